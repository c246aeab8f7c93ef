{% set defaults = {'worker_processes': 'auto', 'user': 'www-data', 'server': {'listen': 80, 'root': '/var/www'}} %}
pillarget:
  test.nop:
    - nested: {{ salt['pillar.get']('nginx:server:listen') }}
    - default_str: {{ salt['pillar.get']('nginx:missing', 'fallback') }}
    - default_empty: "{{ salt['pillar.get']('nginx:missing') }}"
    - default_list: {{ salt['pillar.get']('nginx:list', []) | json }}
    - merged: {{ salt['pillar.get']('nginx', defaults, merge=True) | json }}
    - not_merged: {{ salt['pillar.get']('nginx', defaults) | json }}
    - merge_missing: {{ salt['pillar.get']('absent', defaults, merge=True) | json }}
    - delimiter: {{ salt['pillar.get']('feature:flags', 'x', delimiter='/') }}
    - index: {{ salt['pillar.get']('nginx:server:names:0') }}
    - pillar_dict: {{ pillar.get('nginx').get('worker_processes') }}
