twice:
  test:
    - nop
  test.succeed_with_changes: []
