c-seen:
  test.nop:
    - vpn: {{ salt['pillar.get']('vpn') | json }}
    - own: {{ pillar.vpn | json }}
