first_root_wins:
  test.nop: []
