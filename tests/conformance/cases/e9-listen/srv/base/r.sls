changing:
  test.succeed_with_changes: []

quiet:
  test.succeed_without_changes:
    - listen_in:
      - test: service
      - test: nowhere

service:
  test.succeed_without_changes:
    - names:
      - nginx
      - crond
    - listen:
      - test: changing

bare:
  test.nop:
    - listen:
      - changing
      - test: missing
      - unknown_id

cmd_listener:
  cmd.run:
    - name: echo listening
    - listen:
      - test: changing
      - test: quiet

other:
  test.succeed_with_changes:
    - name: foo
    - listen_in:
      - cmd: cmd_listener
