seqflat:
  test.nop:
    - one: {{ pillar['one_server'] | sequence | json }}
    - many: {{ pillar['servers'] | sequence | json }}
    - flat: {{ pillar['nested'] | flatten | json }}
    - flat1: {{ pillar['nested'] | flatten(levels=1) | json }}
    - keep_none: {{ pillar['nested'] | flatten(preserve_nulls=True) | json }}
{% for s in pillar['one_server'] | sequence %}
ntp-{{ loop.index }}:
  test.nop:
    - name: {{ s }}
{% endfor %}
