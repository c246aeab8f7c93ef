{% set defaults = {'x': 1} %}
{% from "formula/map.jinja" import mapdata with context %}
x:
  test.nop:
    - value: {{ mapdata }}
