{% macro as_yaml() -%}
name: {{ grains['os_family'] }}
ports: [80, 443]
{%- endmacro %}
loadfilters:
  test.nop:
    - from_yaml: {{ pillar['raw_yaml'] | load_yaml | json }}
    - from_json: {{ pillar['raw_json'] | load_json | json }}
    - from_macro: {{ as_yaml() | load_yaml | json }}
    - scalar: {{ '42' | load_yaml + 1 }}
    - inline: {{ ('{' ~ '"n": ' ~ pillar['raw_yaml'] | length ~ '}') | load_json | json }}
