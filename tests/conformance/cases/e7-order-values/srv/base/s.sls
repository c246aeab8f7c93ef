include:
  - r
s_plain:
  test.nop: []
