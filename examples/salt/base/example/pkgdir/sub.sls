pkgdir_sub_id:
  test.nop:
    - order: last
