target:
  test.succeed_with_changes: []
watcher:
  demo.thing:
    - watch:
      - test: target
testwatcher:
  test.nop:
    - watch:
      - test: target
    - listen:
      - test: nothere
