include:
  - .editor

tools:
  test.nop:
    - require:
      - sls: tools.editor
