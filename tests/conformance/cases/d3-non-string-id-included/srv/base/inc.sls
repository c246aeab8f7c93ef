4242:
  test.nop: []
