{% import_yaml "formula/defaults.yaml" as defaults %}
formula:
  test.nop:
    - name: {{ defaults.formula.name }}
