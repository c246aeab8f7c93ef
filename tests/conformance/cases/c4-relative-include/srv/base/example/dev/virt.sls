virt_id:
  test.nop: []
