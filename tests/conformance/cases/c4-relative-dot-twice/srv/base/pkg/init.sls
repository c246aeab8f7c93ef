pkg_init:
  test.nop: []
