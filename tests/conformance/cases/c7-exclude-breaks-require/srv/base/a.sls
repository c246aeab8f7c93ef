include:
  - b
exclude:
  - b
a:
  test.nop:
    - require:
      - test: bstate
