{% set workers = pillar.get('workers', 0) %}
tuning:
  test.nop:
    - per_worker: {{ 1000 // workers }}
