{% set fqdn = grains['fqdn'] %}
{% set line = '  key = value = more  ' %}
strmethods:
  test.nop:
    - starts: {{ fqdn.startswith('web') }} {{ fqdn.startswith(('db', 'web')) }} {{ fqdn.endswith('.com') }}
    - split: {{ fqdn.split('.') }}
    - split_max: {{ line.strip().split(' = ', 1) }}
    - rsplit: {{ fqdn.rsplit('.', 1)[0] }}
    - split_ws: {{ '  a  b \t c '.split() }}
    - format: {{ '{0}-{1}-{name}'.format('x', 2, name=grains['os']) }}
    - upper_lower: {{ fqdn.upper() }} {{ 'ÄÖÜ'.lower() }}
    - strip: "{{ line.strip() }}|{{ line.lstrip() }}|{{ line.rstrip() }}|{{ 'xxaxx'.strip('x') }}"
    - replace: {{ fqdn.replace('.', '_') }}
    - join: {{ '-'.join(['a', 'b', grains['os']]) }}
    - zfill: "{{ '7'.zfill(3) }}"
    - partition: {{ 'user@host'.partition('@') | list }}
    - find: {{ fqdn.find('.') }} {{ fqdn.find('nope') }}
    - isdigit: {{ '123'.isdigit() }} {{ '12a'.isdigit() }}
    - splitlines: {{ 'a\nb\n'.splitlines() }}
    - title: {{ 'hello wORLD'.title() }} {{ 'ßtraße'.capitalize() }}
