{% set p = pillar['ports'] %}
{% set m = pillar['mounts'] %}
lists:
  test.nop:
    - join: {{ p | join(',') }}
    - join_attr: {{ m | join(' ', attribute='path') }}
    - first_last: {{ p | first }} {{ p | last }}
    - length: {{ p | length }} {{ p | count }} {{ 'ßℝ💣' | length }}
    - sort: {{ p | sort }}
    - sort_rev: {{ p | sort(reverse=true) }}
    - sort_attr: {{ m | sort(attribute='size') | map(attribute='path') | list }}
    - reverse: {{ p | reverse | list }}
    - reverse_str: {{ 'abc' | reverse }}
    - list_str: {{ 'abc' | list }}
    - batch: {{ p | batch(3, 0) | list }}
    - slice: {{ p | slice(2) | list }}
    - index: {{ p.index(8080) }}
    - count_method: {{ [1, 2, 1] .count(1) }}
    - items_sorted: {{ {'b': 1, 'a': 2} | dictsort }}
    - unique_jinja_name: {{ [3, 1, 3] | unique | list }}
