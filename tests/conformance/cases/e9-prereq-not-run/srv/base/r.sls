broken:
  test.fail_without_changes: []
calm:
  test.succeed_without_changes: []
target:
  test.succeed_with_changes:
    - require:
      - test: broken
watcher:
  test.succeed_with_changes:
    - prereq:
      - test: target
      - test: quiet_target
quiet_target:
  test.succeed_with_changes:
    - onchanges:
      - test: calm
late:
  test.nop:
    - order: last
