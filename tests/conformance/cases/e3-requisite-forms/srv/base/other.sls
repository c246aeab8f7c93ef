include:
  - deeper.d1
other_id:
  test.nop: []
