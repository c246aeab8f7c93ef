include:
  - other
first:
  test.nop:
    - name: thename
by_mod_name:
  test.nop:
    - require:
      - test: thename
by_bare_name:
  test.nop:
    - require:
      - thename
by_id_name:
  test.nop:
    - watch:
      - id: thename
by_glob:
  test.nop:
    - onchanges:
      - test: fir*
by_sls:
  test.nop:
    - require:
      - sls: other
by_sls_nomatch:
  test.nop:
    - require:
      - sls: nomatch*
any_all:
  test.nop:
    - require_any:
      - test: first
      - test: by_sls
    - onfail_all:
      - test: by_glob
