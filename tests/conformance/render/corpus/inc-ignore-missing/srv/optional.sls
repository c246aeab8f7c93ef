{% load_yaml as found %}
{% include "overrides/" ~ grains['os'] ~ "-12.yaml" ignore missing %}
{% include "overrides/" ~ grains['os_family'] ~ ".yaml" ignore missing %}
{% endload %}
{% load_yaml as first %}
{% include ["overrides/Nope.yaml", "overrides/default.yaml", "overrides/Debian.yaml"] ignore missing %}
{% endload %}
optional:
  test.nop:
    - found: {{ found | json }}
    - first: {{ first | json }}
    - nothing: "{% include 'overrides/absent.yaml' ignore missing %}"
