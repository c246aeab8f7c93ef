include:
  - b
  - c
a:
  test.nop: []
