{% set pairs = odict([('z', 1), ('a', [1, 2])]) %}
{% set from_map = odict({'k': 'v'}) %}
{% set with_kw = odict([('b', 2)], c=3) %}
{% set empty = odict() %}
{% do pairs.update({'m': 3}) %}
{% do pairs['a'].append(3) %}
{% do empty.setdefault('x', []).append('y') %}
{% if grains['os_family'] == 'RedHat' %}{{ raise('never on Debian') }}{% endif %}
odict-forms:
  test.nop:
    - keys: {{ pairs.keys() | list }}
    - values: {{ pairs.values() | list }}
    - printed: {{ pairs }}
    - from_map: {{ from_map }}
    - with_kw: {{ with_kw }}
    - empty: {{ empty }}
    - length: {{ pairs | length }}
    - ifelse1: {{ ifelse('only') }}
    - match_ifelse: {{ salt['match.ifelse'](True, 'first', 'second') }}
    - match_ifelse_false: {{ salt['match.ifelse'](False, 'first', 'G@kernel:Linux', 'linux', 'second') }}
    - match_ifelse_glob: {{ salt['match.ifelse']('gl*', 'glob', 'none', tgt_type='glob') }}
