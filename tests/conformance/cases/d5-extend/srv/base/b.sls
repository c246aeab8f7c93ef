target:
  test.nop:
    - keep: original
    - require:
      - test: other2
realid:
  test.nop:
    - name: bynameonly
