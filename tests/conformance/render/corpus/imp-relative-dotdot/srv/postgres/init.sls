{% from "postgres/map.jinja" import pg %}
{% set pg = pg | load_json %}
postgres-server:
  pkg.installed:
    - name: postgresql-{{ pg.version }}
  file.managed:
    - name: /etc/postgresql/{{ pg.version }}/main/postgresql.conf
    - context: {{ pg.conf | json }}
    - port: {{ pg.port }}
