a:
  test.nop:
    - require_in:
      - test: b
c:
  test.nop:
    - watch_in:
      - b
    - require_in:
      - nonexistent_bare
b:
  test.nop: []
