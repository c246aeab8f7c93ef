include:
  - .virt
  - ..http
  - dev: tools.editor

virtual_id:
  test.nop:
    - require:
      - test: virt_id
      - sls: example.http
