{% set local_var = 'only in the caller' %}
{% from "lib/helpers.jinja" import fam, port, local_seen, label %}
helpers:
  test.nop:
    - fam: {{ fam }}
    - port: {{ port }}
    - local_seen: {{ local_seen }}
    - label: {{ label('x') }}
