extend:
  nothere:
    test:
      - foo: 1
a:
  test.nop: []
