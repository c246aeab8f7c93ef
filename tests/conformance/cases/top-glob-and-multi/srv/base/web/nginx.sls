web_nginx:
  test.nop: []
