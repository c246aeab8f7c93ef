second_root_loses:
  test.nop: []
