{% set port = salt['pillar.get']('db:port', 5432) %}
include:
  - .users
  - common
{% if grains['os_family'] == 'RedHat' %}
  - .selinux             # mistake: only RedHat minions include it, and it does not exist
{% endif %}

postgresql:
  test.nop:
    - name: postgresql-{{ port }}
    - require:
      - test: db_users

{% for db in ['app', 'reports'] %}
database_{{ db }}:
  test.nop:
    - require:
      - test: postgresql
{% endfor %}
