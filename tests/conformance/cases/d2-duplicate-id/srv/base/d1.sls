include:
  - d2
dup_id:
  test.nop: []
