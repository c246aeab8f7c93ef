devonly:
  test.nop: []
