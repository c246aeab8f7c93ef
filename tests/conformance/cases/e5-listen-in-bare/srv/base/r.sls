a:
  test.succeed_with_changes:
    - listen_in:
      - b
b:
  test.nop: []
