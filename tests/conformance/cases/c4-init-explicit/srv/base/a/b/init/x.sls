quirk_x_id:
  test.nop: []
