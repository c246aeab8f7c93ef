include:
  - b
extend:
  target:
    test:
      - succeed_with_changes
      - keep: replaced
      - require:
        - test: other
  bynameonly:
    test:
      - foo: extended
other:
  test.nop: []
other2:
  test.nop: []
