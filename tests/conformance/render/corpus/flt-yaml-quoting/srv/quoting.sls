{% set a = pillar['awkward'] %}
dquote:
  test.nop:
{% for k, v in a | dictsort %}
    - {{ k }}: {{ v | yaml_dquote }}
{% endfor %}
squote:
  test.nop:
    - colon: {{ a.colon | yaml_squote }}
    - quotes: {{ a.quotes | yaml_squote }}
    - boolish: {{ a.boolish | yaml_squote }}
encode:
  test.nop:
    - unicode: {{ a.unicode | yaml_encode }}
    - boolish: {{ a.boolish | yaml_encode }}
    - number: {{ 12 | yaml_encode }}
    - bool: {{ true | yaml_encode }}
