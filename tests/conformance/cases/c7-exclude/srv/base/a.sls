include:
  - tgt2
  - other
exclude:
  - id: other2
  - sls: tgt2
a:
  test.nop: []
