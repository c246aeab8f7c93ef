include:
  - d
  - a
c:
  test.nop: []
