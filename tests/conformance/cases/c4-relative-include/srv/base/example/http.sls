http_id:
  test.nop: []
