other1:
  test.nop: []
other2:
  test.nop: []
