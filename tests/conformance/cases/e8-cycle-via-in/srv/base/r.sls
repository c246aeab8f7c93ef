a:
  test.nop:
    - name: a_name
    - require:
      - test: b
    - require_in:
      - test: b
b:
  test.nop: []
