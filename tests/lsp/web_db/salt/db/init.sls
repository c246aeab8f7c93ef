include:
  - web
db_id:
  test.nop:
    - require:
      - pkg: web_id
      - sls: web
