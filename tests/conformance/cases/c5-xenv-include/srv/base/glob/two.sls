glob_two:
  test.nop: []
