{% set opts = {'max_conn': 100, 'timeout': 5} %}
banner:
  test.nop:
    - text: {% filter upper %}hello {{ grains['os'] }}{% endfilter %}
nested:
  test.nop:
    - settings:
{% filter indent(8, true) %}
{% for k, v in opts | dictsort %}
- {{ k }}: {{ v }}
{% endfor %}
{% endfilter %}
    - replaced: {% filter replace('-', '_') %}a-b-{{ grains['id'] }}{% endfilter %}
