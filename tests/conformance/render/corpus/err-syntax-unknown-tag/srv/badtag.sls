{% set x = 1 %}
stray:
  test.nop:
    - x: {{ x }}
{% endfor %}
