{% set host, port = '10.0.0.5:8080'.split(':') %}
{% set a, b = 1, 2 %}
{% with scoped = 'inner', port = 9 %}
{% set only_inside = scoped ~ port %}
with-inside:
  test.nop:
    - name: {{ only_inside }}
{% endwith %}
withblock:
  test.nop:
    - host: {{ host }}
    - port: {{ port | int }}
    - sum: {{ a + b }}
    - outside_defined: {{ only_inside is defined }}
{% for k, v in [('x', 1), ('y', 2)] %}
    - {{ k }}: {{ v }}
{% endfor %}
