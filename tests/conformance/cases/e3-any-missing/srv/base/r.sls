a:
  test.nop:
    - require_any:
      - test: b
      - test: nothere
b:
  test.nop: []
