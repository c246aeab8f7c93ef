early:
  test.nop:
    - order: first
