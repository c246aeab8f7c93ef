include:
  - both
  - shadow
other:
  test.nop: []
