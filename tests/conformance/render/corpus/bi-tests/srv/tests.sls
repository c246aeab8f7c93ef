{% set samples = {'str': 'abc', 'int': 3, 'float': 1.5, 'bool': true, 'none': none, 'list': [1], 'dict': {'a': 1}} %}
{% for name, v in samples | dictsort %}
test-{{ name }}:
  test.nop:
    - kinds: "{{ v is string }} {{ v is mapping }} {{ v is iterable }} {{ v is sequence }} {{ v is number }} {{ v is none }}"
    - exact: "{{ v is integer }} {{ v is float }} {{ v is boolean }} {{ v is callable }}"
{% endfor %}
tests:
  test.nop:
    - defined: {{ pillar.app is defined }} {{ pillar.nope is defined }} {{ nope is undefined }}
    - sameas: {{ pillar.app.debug is sameas false }} {{ 0 is sameas false }}
    - equalto: {{ grains.os is equalto 'Debian' }} {{ grains.num_cpus == 4.0 }}
    - in: {{ 'web' is in grains.roles }} {{ 'b' in 'abc' }}
    - divisible: {{ 12 is divisibleby 4 }}
    - case: {{ 'abc' is lower }} {{ 'ABC' is upper }}
    - salt_callable: {{ salt['test.ping'] is callable }}
    - escaped: {{ 'x' is escaped }}
