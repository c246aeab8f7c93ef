#!stateconf -G yaml . jinja
.motd:
  file.managed:
    - name: /etc/motd
    - contents: {{ sls_dir }}
plain-id: test.nop
.kept-name:
  cmd.run:
    - name: echo kept
