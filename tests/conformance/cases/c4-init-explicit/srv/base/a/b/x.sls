plain_x_id:
  test.nop: []
