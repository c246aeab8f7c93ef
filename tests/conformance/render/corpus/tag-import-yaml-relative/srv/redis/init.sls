{% from "redis/map.jinja" import redis with context %}
redis-pkg:
  pkg.installed:
    - name: {{ redis.pkg }}
redis-conf:
  file.managed:
    - name: {{ redis.conf | default('/etc/redis.conf') }}
    - context: {{ redis | json }}
