{%- set mapdata = salt["map.data"](tpldir) %}
tpl-mapdata:
  test.nop:
    - mapdata: {{ mapdata | json }}
    - again: {{ salt['map.data'](tpldir).pkg.name }}
