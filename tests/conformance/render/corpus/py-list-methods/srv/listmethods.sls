{% set l = ['c', 'a', 'b', 'a'] %}
{% do l.insert(0, 'first') %}
{% do l.remove('b') %}
{% set extended = l + ['z'] %}
listmethods:
  test.nop:
    - list: {{ l }}
    - index: {{ l.index('a') }}
    - count: {{ l.count('a') }}
    - slice: {{ l[1:3] }}
    - reversed: {{ l[::-1] }}
    - last: {{ l[-1] }}
    - plus: {{ extended | length }}
    - times: {{ ['x'] * 3 }}
    - in: {{ 'c' in l }}
    - sorted_copy: {{ l | sort }}
    - unchanged: {{ l }}
    - tuple_unpack: {% for a, b in [[1, 2], [3, 4]] %}{{ a + b }} {% endfor %}
    - range_list: {{ range(1, 4) | list }}
