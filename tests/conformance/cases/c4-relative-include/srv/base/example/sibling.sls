sibling_id:
  test.nop: []
