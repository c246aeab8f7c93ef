ℝeal:
  test.succeed_without_changes:
    - require_in:
      - test: "ünï_id"
