d:
  test.nop: []
