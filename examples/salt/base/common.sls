# Shared by every minion.
motd:
  test.succeed_without_changes:
    - name: /etc/motd — überall

timezone:
  test.nop:
    - require:
      - test: motd
