other_id:
  test.nop: []
