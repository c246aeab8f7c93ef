{% set data = {'a': 1} %}
config:
  file.managed:
    - name: /etc/x.yaml
    - contents: {{ data | to_yaml }}
