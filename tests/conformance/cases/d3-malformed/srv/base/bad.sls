colon:
  test.nop:
twofun:
  test.nop:
    - succeed_with_changes
nonlist:
  test.nop:
    - require: colon
dotted:
  test.nop:
    - require:
      - test.nop: colon
nofun:
  test:
    - name: x
