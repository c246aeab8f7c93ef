{% set d = {'b': 2, 'a': 1} %}
{% do d.update({'c': 3}) %}
{% set got = d.setdefault('z', [])%}
{% do got.append('via setdefault') %}
{% set existing = d.setdefault('a', 'ignored') %}
{% set popped = d.pop('b') %}
{% set c = d.copy() %}
{% do c.update(a=100) %}
dictmethods:
  test.nop:
    - get: {{ d.get('a') }} {{ d.get('nope', 'dflt') }} {{ d.get('nope') is none }}
    - items: {{ d | dictsort | list | length }}
    - keys: {{ d.keys() | list }}
    - values_len: {{ d.values() | list | length }}
    - setdefault: {{ d.z | json }}
    - setdefault_existing: {{ existing }}
    - popped: {{ popped }}
    - copy_independent: {{ d.a }} {{ c.a }}
    - in: {{ 'a' in d }} {{ 'b' in d }}
    - pillar_items: {{ pillar['users'].items() | map('first') | list }}
