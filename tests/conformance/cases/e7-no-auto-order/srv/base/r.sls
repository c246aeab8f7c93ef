zeta:
  test.nop: []
alpha:
  test.nop:
    - name: zz_last_by_name
mid:
  test.succeed_without_changes: []
ordered:
  test.nop:
    - order: 3
