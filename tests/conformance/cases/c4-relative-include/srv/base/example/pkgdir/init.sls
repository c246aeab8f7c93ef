include:
  - .sub
  - ..sibling
pkgdir_id:
  test.nop: []
