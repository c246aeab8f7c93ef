init_loses:
  test.nop: []
