include:
  - /formulas/common/base
  - /formulas/common/other
  - .y
exclude:
  - sls: /formulas/common/other
extend:
  base_id:
    test:
      - extended: true
x_id:
  test.nop:
    - require:
      - sls: /formulas/common/base
