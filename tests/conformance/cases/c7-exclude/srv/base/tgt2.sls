tgt2_id:
  test.nop: []
