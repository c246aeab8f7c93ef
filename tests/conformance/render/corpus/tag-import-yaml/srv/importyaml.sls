{% import_yaml "formula/defaults.yaml" as defaults %}
{% set formula = salt['slsutil.merge'](defaults.formula, salt['pillar.get']('formula', {})) %}
formula-config:
  file.serialize:
    - name: /etc/formula.yaml
    - dataset: {{ formula | json }}
    - workers_type: {{ formula.workers is number }}
