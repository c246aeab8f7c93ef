wrong_sub_id:
  test.nop: []
