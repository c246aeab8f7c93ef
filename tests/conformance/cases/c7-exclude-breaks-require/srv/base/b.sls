bstate:
  test.nop: []
