# mistake: this file's name has a dot, so no include can reach it.
legacy_web:
  test.nop
