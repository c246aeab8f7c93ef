wrong_sibling_id:
  test.nop: []
