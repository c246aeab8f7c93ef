{% set c = pillar['cluster'] %}
traverse:
  test.nop:
    - tls_port: {{ c | traverse('settings:tls:port') }}
    - second_ip: {{ c | traverse('nodes:1:ip') }}
    - dotted: {{ c | traverse('settings.tls.enabled', delimiter='.') }}
    - missing: {{ c | traverse('settings:nope', 'fallback') }}
    - missing_none: {{ c | traverse('settings:nope:deeper') is none }}
    - pillar_direct: {{ pillar | traverse('cluster:nodes:0:name') }}
    - whole: {{ c | traverse('settings:tls') | json }}
