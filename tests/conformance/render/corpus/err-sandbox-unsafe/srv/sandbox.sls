escape:
  test.nop:
    - classes: {{ ''.__class__.__mro__ }}
