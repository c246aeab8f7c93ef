include:
  - .
sub_id:
  test.nop: []
