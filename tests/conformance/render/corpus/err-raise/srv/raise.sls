{% set supported = ['Debian', 'RedHat'] %}
{% if grains['os_family'] not in supported %}
{{ raise('os_family ' ~ grains['os_family'] ~ ' is not supported by this formula') }}
{% endif %}
ok:
  test.nop
