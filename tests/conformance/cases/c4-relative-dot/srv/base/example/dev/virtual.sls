include:
  - .
virtual_id:
  test.nop: []
