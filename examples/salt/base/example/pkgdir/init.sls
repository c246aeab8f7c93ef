include:
  - .sub
  - ..http

pkgdir_id: test.nop
