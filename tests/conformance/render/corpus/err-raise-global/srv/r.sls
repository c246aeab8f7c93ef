{% set family = grains['os_family'] %}
ok:
  test.nop:
    - family: {{ family }}
{% if family == 'Debian' %}
{{ raise('Debian is not supported by this formula') }}
{% endif %}
