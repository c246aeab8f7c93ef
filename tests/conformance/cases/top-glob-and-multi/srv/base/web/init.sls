web_root:
  test.nop: []
