{% set pair = ('web', 80) %}
{% set single = ('only',) %}
tuples:
  test.nop:
    - pair: {{ pair }}
    - single: {{ single }}
    - empty: "{{ () }}"
    - nested: "{{ [pair, ('x', [1, none])] }}"
    - index: {{ pair[0] }}-{{ pair[1] }} {{ pair | length }}
    - is_list: {{ pair is list }} {{ pair | is_list }} {{ [1] is list }}
    - in_tuple: {{ grains['os_family'] in ('Debian', 'RedHat') }}
    - items: {{ pillar['ports'] | dictsort }}
    - items_method: {{ pillar['ports'].items() | list }}
    - for_unpack: {% for (k, v) in pillar['ports'] | dictsort %}{{ k }}={{ v }} {% endfor %}
percent:
  test.nop:
    - one: {{ '%s-%s' % pair }}
    - value: {{ 'cpus=%d' % grains['num_cpus'] }}
    - mapping: {{ '%(http)d/%(https)d' % pillar['ports'] }}
    - padded: "{{ '[%-6s|%6.2f]' % ('ab', 3.14159) }}"
    - chained: {{ 'n' ~ '%03d' % 7 ~ '!' }}
    - filtered: {{ '%s' % 'x' | upper }}
printed:
  test.nop:
    - dict: {{ {'motd': pillar['motd'], 'n': 1} }}
    - string_filter: {{ {'motd': pillar['motd']} | string | yaml_dquote }}
