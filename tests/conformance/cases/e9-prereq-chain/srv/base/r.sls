A:
  test.succeed_with_changes:
    - prereq_in:
      - test: C
B:
  test.succeed_with_changes:
    - prereq:
      - test: C
C:
  test.succeed_with_changes:
    - prereq:
      - test: D
D:
  test.succeed_with_changes:
    - require:
      - test: E
E:
  test.nop: []
F:
  cmd.run:
    - name: echo F
    - prereq:
      - test: E
