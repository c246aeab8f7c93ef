{%- set hosts = salt['mine.get']('web*', 'network.ip_addrs') %}
{%- set info = salt['user.info']('no-such-user-sa') %}
inert:
  test.nop:
    - hosts: {{ hosts.values() | list }}
    - home: {{ info.get('home', '/home/fallback') }}
    - count: {{ hosts | length }}
{%- for host, addrs in hosts.items() %}
    - {{ host }}: {{ addrs }}
{%- endfor %}
