{% set port = pillar['app']['port'] %}
inline-values:
  test.configurable_test_state:
    - name: {{ 'debug' if pillar['app']['debug'] else 'production' }}
    - changes: {{ port > 1024 and port < 65536 }}
    - comment: "{{ 'privileged' if port < 1024 }}"
    - warnings:
      - {{ 1024 < port <= 9000 }}
      - {{ 'web' in grains['roles'] }}
      - {{ 'db' not in grains['roles'] }}
      - {{ grains['num_cpus'] * 2 + 1 }}
      - {{ 7 // 2 }} {{ 7 % 3 }} {{ 2 ** 10 }} {{ 7 / 2 }}
      - {{ not pillar['app']['debug'] or none }}
