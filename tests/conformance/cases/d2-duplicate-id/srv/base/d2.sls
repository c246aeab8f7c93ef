dup_id:
  test.nop:
    - foo: 1
