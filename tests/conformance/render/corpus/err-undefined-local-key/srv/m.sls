{% set d = {"k": {}} %}
a:
  test.nop:
    - name: {{ d.m }}
