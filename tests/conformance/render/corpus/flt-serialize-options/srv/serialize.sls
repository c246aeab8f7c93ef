{% set c = pillar['cfg'] %}
serialize:
  test.nop:
    - yaml_block: {{ c | yaml(False) | yaml_dquote }}
    - yaml_mixed: {{ c | yaml(flow_style=none) | yaml_dquote }}
    - yaml_flow: {{ c | yaml | yaml_dquote }}
    - json_indent: {{ c | json(indent=2) | yaml_dquote }}
    - json_unsorted: {{ c | json(sort_keys=False) | yaml_dquote }}
    - tojson: {{ c.alpha | tojson | yaml_dquote }}
    - tojson_opts: {{ c.alpha | tojson(sort_keys=True, ensure_ascii=False) | yaml_dquote }}
    - roundtrip: {{ (c | json | load_json) == c }}
    - encode: [{{ 1.5e20 | yaml_encode }}, {{ none | yaml_encode }}, {{ "it's: x" | yaml_encode }}, {{ 'yes' | yaml_encode }}]
    - squote: {{ "it's ß: x" | yaml_squote }}
