plain_wins:
  test.nop: []
