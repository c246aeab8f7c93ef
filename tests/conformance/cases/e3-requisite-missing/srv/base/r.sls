include:
  - empty
a:
  test.nop:
    - require:
      - test: nothere
x:
  test.nop:
    - require:
      - sls: empty
n:
  test.nop:
    - name: named_n
    - require:
      - test: 12
