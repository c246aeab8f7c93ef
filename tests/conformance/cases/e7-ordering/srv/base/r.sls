a:
  test.nop:
    - require:
      - test: c
b:
  test.nop: []
c:
  test.nop:
    - require:
      - test: d
d:
  test.nop: []
