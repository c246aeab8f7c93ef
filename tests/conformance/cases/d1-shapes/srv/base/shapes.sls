dotted_extra:
  test.nop.extra:
    - name: multi_name
string_form: test.succeed_without_changes
modlist:
  test:
    - foo: 1
    - succeed_with_changes
overwritten:
  test.succeed_with_changes: []
  test:
    - nop
many:
  test.nop:
    - names:
      - one
      - two:
        - foo: 2
        - bar: 3
      - "ünï ✓"
intname:
  test.nop:
    - name: 12
flow: {test.nop: [{name: flowname}, {x: [1, 2]}]}
