#!stateconf -os yaml . jinja
first:
  test.nop
second:
  test.nop:
    - require:
      - test: first
.third:
  cmd.run:
    - name: echo hi
