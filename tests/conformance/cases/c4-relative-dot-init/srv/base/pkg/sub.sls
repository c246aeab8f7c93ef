include:
  - .
sub_id:
  test.nop:
    - require:
      - sls: pkg.
