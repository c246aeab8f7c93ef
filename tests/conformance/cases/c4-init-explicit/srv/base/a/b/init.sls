include:
  - .x
ab_id:
  test.nop: []
