bar_id:
  test.nop: []
