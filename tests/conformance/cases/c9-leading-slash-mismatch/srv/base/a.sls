include:
  - lib
a_id:
  test.nop:
    - require:
      - sls: /lib
