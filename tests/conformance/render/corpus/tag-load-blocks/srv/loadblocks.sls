{% load_yaml as settings %}
worker_processes: {{ grains['num_cpus'] }}
events:
  worker_connections: 1024
hosts:
{% for h in ['a', 'b'] %}
  - {{ h }}.{{ grains['datacenter'] }}
{% endfor %}
{% endload %}
{% load_json as limits %}
{"nofile": {{ 1024 * 4 }}, "nproc": null, "core": true}
{% endload %}
{% load_text as note %}
  spaces kept {{ grains['os'] }}
{% endload %}
loaded:
  test.nop:
    - settings: {{ settings | json }}
    - limits: {{ limits | json }}
    - note: {{ note | json }}
    - conns: {{ settings.events.worker_connections * 2 }}
