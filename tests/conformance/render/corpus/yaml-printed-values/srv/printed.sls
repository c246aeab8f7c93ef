{% set s = pillar['settings'] %}
printed:
  test.nop:
    - dict: {{ s }}
    - list: {{ s.tags }}
    - none: {{ s.nothing }}
    - none_json: {{ s.nothing | json }}
    - bool: {{ s.enabled }}
    - float: {{ s.ratio }}
    - tuple: {{ (1, 2) }}
    - empty_str: {{ '' }}
    - str_of_dict: {{ s | string | yaml_dquote }}
