{%- set cfg = salt['map.data'](tpldir) %}
app-conf:
  test.nop:
    - cfg: {{ cfg | json }}
    - tpldir: {{ tpldir }}
