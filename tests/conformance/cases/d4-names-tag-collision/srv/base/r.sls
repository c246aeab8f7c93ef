n:
  test.nop:
    - names:
      - x
      - x:
        - foo: 1
      - y
