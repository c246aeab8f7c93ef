jsonquery:
  test.nop:
    - enabled: {{ pillar['sites'] | json_query('[?enabled].name') | json }}
    - ports: {{ pillar | json_query('sites[*].port') | json }}
    - first: {{ pillar['sites'] | json_query('[0]') | json }}
