{%- do salt['pillar.get']('vpn').update({'port': 443, 'hardened': True}) %}
{%- do pillar.vpn.clients.append('bob') %}
{%- do salt['pillar.get']('vpn:server', {}).update({'proto': 'tcp'}) %}
{%- do salt['pillar.get']('missing', {}).update({'x': 1}) %}
{%- do salt['pillar.get']('other', {}, merge=True).update({'k': 2}) %}
a-seen:
  test.nop:
    - port: {{ pillar.vpn.port }}
include: [c]
