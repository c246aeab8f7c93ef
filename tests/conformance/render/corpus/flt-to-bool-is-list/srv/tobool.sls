tobool:
  test.nop:
    - values:
{% for v in ['yes', 'True', 'on', '1', 'no', 'false', 'off', '0', 'other', 1, 0, -2, 2.5, [], [1], {}, none, true] %}
      - {{ (v | json ~ ' -> ' ~ v | to_bool) | yaml_dquote }}
{% endfor %}
islist:
  test.nop:
    - list: {{ [1, 2] | is_list }}
    - tuple: {{ (1, 2) | is_list }}
    - string: {{ 'abc' | is_list }}
    - dict: {{ {'a': 1} | is_list }}
    - test_list: {{ grains['roles'] is list }}
    - test_list_str: {{ grains['os'] is list }}
