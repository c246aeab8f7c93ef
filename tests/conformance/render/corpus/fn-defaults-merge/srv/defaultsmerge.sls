{% set dest = {'a': 1, 'l': [1], 'd': {'x': 1}} %}
{% set src = {'b': 2, 'l': [2], 'd': {'y': 2}} %}
{% set copy = salt['defaults.deepcopy'](dest) %}
{% set returned = salt['defaults.merge'](dest, src) %}
{% set dest2 = {'l': ['a'], 'k': 'v'} %}
{% do salt['defaults.merge'](dest2, {'l': ['b']}, merge_lists=True) %}
{% set dest3 = {'keep': 'me'} %}
{% set fresh = salt['defaults.merge'](dest3, {'new': 1}, in_place=False) %}
defaultsmerge:
  test.nop:
    - dest_mutated: {{ dest | json }}
    - returned: {{ returned | json }}
    - copy: {{ copy | json }}
    - lists: {{ dest2 | json }}
    - dest3: {{ dest3 | json }}
    - fresh: {{ fresh | json }}
