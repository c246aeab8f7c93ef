webapp:
  test.nop: []
