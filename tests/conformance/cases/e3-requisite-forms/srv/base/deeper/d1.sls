d1:
  test.nop: []
