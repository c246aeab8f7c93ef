a:
  test.nop:
    - require_in:
      - test: nonexistent_typed
