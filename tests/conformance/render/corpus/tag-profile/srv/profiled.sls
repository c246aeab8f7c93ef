{% profile as 'build the map' %}
{% set m = {'a': 1} %}
{% do m.update({'b': grains['num_cpus']}) %}
{% endprofile %}
profiled:
  test.nop:
{% profile as 'emit ' ~ 'states' %}
    - map: {{ m | json }}
{% endprofile %}
