include:
  - ..bar
foo_id:
  test.nop: []
