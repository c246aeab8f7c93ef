{% set data = {'zeta': 1, 'alpha': ['x', 'y'], 'nested': {'b': true, 'a': none}, 'html': "<a href='x'>&</a>"} %}
serial:
  test.nop:
    - flow: {{ data | yaml }}
    - json: {{ data | json }}
    - tojson: {{ data | tojson }}
    - flow_text: {{ data | yaml | yaml_dquote }}
    - json_text: {{ data | json | yaml_dquote }}
    - tojson_text: {{ data | tojson | yaml_dquote }}
    - json_indent_text: {{ data | json(sort_keys=False) | yaml_dquote }}
block:
  test.nop:
    - block: {{ {'k': [1, 2]} | yaml(False) | yaml_dquote }}
    - scalar_yaml: {{ 'plain' | yaml | yaml_dquote }}
    - number_yaml: {{ 42 | yaml | yaml_dquote }}
    - unicode_json: {{ 'ß💣' | json | yaml_dquote }}
    - unicode_yaml: {{ 'ß💣' | yaml | yaml_dquote }}
