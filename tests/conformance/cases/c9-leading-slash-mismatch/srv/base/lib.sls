lib_id:
  test.nop: []
