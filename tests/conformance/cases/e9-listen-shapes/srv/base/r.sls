a:
  test.succeed_with_changes:
    - listen:
      - test: b
b:
  test.succeed_with_changes:
    - listen_in:
      - test: a
      - cmd: c
      - test: nope
c:
  cmd.run:
    - name: echo c
    - listen:
      - test: succeed_with_changes
d:
  test.succeed_with_changes:
    - name: c
    - listen:
      - c
      - echo c
e:
  test.succeed_without_changes:
    - listen_in:
      - test: nothing
