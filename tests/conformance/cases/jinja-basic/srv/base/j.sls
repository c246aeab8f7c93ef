{% set who = 'wörld' %}
{% for n in ['one', 'two'] %}
loop_{{ n }}:
  test.nop:
    - name: hello {{ who }} {{ n }}
{% endfor %}
{% if 1 > 2 %}
never:
  test.nop: []
{% endif %}
