include:
  - d
b:
  test.nop: []
