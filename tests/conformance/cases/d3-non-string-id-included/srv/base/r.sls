include:
  - inc
ok:
  test.nop: []
