{% set s = pillar['sysctl'] %}
{% for k, v in s | dictsort %}
sysctl-{{ k }}:
  sysctl.present:
    - value: {{ v }}
{% endfor %}
dicts:
  test.nop:
    - case_sensitive: {{ s | dictsort(true) | map('first') | list }}
    - by_value: {{ s | dictsort(by='value', reverse=true) | map('last') | list }}
    - keys: {{ s.keys() | list }}
    - values: {{ s.values() | list | sum }}
    - items: {{ s.items() | list | length }}
    - built: {{ dict(a=1, b=2) | json }}
    - attr_item: {{ s['vm.swappiness'] }}
    - items_filter: {{ {'x': 1} | items | list }}
