b-seen:
  test.nop:
    - clients: {{ salt['pillar.get']('vpn:clients') | json }}
    - proto: {{ pillar['vpn']['server']['proto'] }}
    - missing: {{ salt['pillar.get']('missing', 'none') }}
    - other: {{ pillar.other | json }}
    - hardened: {{ salt['config.get']('vpn:hardened', False) }}
    - own_clients: {{ pillar.vpn.clients | json }}
