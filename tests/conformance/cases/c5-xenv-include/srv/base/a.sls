include:
  - dev: devonly
  - dev: shared
  - glob.*
a:
  test.nop: []
