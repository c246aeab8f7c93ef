y_id:
  test.nop: []
