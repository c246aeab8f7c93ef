4242:
  test.nop: []
ok:
  test.nop: []
