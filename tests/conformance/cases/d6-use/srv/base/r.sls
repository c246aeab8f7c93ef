base_state:
  test.nop:
    - foo: 1
    - bar: 2
    - require:
      - test: other
other:
  test.nop: []
user:
  test.nop:
    - bar: 99
    - use:
      - test: base_state
