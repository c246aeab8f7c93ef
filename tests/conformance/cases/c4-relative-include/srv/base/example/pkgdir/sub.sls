pkgdir_sub_id:
  test.nop: []
