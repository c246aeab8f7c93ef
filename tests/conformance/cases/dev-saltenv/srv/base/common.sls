common_from_base:
  test.nop: []
