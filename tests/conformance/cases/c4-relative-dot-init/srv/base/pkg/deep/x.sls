include:
  - ..
deep_id:
  test.nop: []
