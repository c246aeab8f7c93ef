{% set empty = pillar.get('nothing_here', []) %}
{% for x in empty %}
never-{{ x }}:
  test.nop
{% else %}
for-else-ran:
  test.nop:
    - name: the list was empty
{% endfor %}
{% for r in grains['roles'] if r != 'monitoring' %}
role-{{ r }}:
  test.nop:
    - name: {{ loop.index }} of {{ loop.length }}
{% endfor %}
ranges:
  test.nop:
    - steps: {{ range(0, 10, 3) | list }}
    - down: {{ range(3) | reverse | list }}
