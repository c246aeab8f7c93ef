{% import_json "data/ports.json" as ports %}
{% import_text "data/banner.txt" as banner %}
imported:
  test.nop:
    - ports: {{ ports | json }}
    - admin: {{ ports.admin + 1 }}
    - banner: {{ banner | json }}
    - lines: {{ banner.splitlines() | length }}
