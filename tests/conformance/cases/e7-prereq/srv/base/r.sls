target:
  test.succeed_with_changes: []
pre:
  test.nop:
    - prereq:
      - test: target
after:
  test.nop:
    - require:
      - test: target
