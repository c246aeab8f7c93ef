{% set cfg = {'name': grains['id'], 'ports': [80, 443], 'tls': {'enabled': true}, 'ß': 'ℝ'} %}
serialize:
  file.managed:
    - name: /etc/app/config.json
    - contents: {{ salt['slsutil.serialize']('json', cfg) | yaml_dquote }}
serialize-yaml:
  file.managed:
    - name: /etc/app/config.yaml
    - contents: {{ salt['slsutil.serialize']('yaml', cfg) | yaml_dquote }}
serialize-json-opts:
  test.nop:
    - compact: {{ salt['slsutil.serialize']('json', cfg, sort_keys=True) | yaml_dquote }}
    - roundtrip: {{ salt['slsutil.deserialize']('json', '{"a": [1, 2]}') | json }}
    - yaml_in: {{ salt['slsutil.deserialize']('yaml', 'k: [x, y]') | json }}
