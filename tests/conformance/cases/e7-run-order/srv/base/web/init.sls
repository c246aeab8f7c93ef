include:
  - web.conf
nginx:
  test.nop: []
conf:
  test.nop:
    - require:
      - nginx
    - names:
      - a
      - b
reload:
  test.nop:
    - watch:
      - test: a
