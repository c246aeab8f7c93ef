include:
  - common
app:
  test.nop: []
