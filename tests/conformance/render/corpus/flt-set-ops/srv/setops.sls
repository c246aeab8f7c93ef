{% set w = pillar['wanted'] %}
{% set i = pillar['installed'] %}
setops:
  test.nop:
    - unique: {{ grains['roles'] | unique | list }}
    - union: {{ w | union(i) | list }}
    - intersect: {{ w | intersect(i) | list }}
    - difference: {{ w | difference(i) | list }}
    - symmetric: {{ w | symmetric_difference(i) | list }}
    - unique_case: {{ ['A', 'a', 'B'] | unique | list }}
    - unique_dicts: {{ [{'a': 1}, {'a': 1}, {'a': 2}] | unique | list }}
