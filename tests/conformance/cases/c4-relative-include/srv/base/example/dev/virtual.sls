include:
  - .virt
  - ..http
virtual_id:
  test.nop: []
