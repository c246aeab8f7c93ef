#!jinja|yaml
{% set name = 'shebang' %}
{{ name }}-state:
  test.nop:
    - os: {{ grains['os'] }}
