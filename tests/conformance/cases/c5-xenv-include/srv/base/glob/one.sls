glob_one:
  test.nop: []
