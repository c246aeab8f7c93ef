http_id:
  test.succeed_without_changes:
    - names:
      - a
      - b
