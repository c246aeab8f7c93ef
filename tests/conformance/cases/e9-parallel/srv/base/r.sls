a:
  test.succeed_with_changes:
    - parallel: True
b:
  test.succeed_with_changes:
    - parallel: True
    - require:
      - test: a
c:
  test.nop:
    - require:
      - test: a
d:
  test.nop:
    - parallel: True
    - require:
      - test: c
e:
  test.succeed_without_changes:
    - parallel: True
    - watch:
      - test: b
f:
  test.nop: []
g:
  cmd.run:
    - name: echo g
    - parallel: True
    - prereq:
      - test: f
