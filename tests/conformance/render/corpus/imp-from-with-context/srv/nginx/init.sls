{% from "nginx/map.jinja" import nginx with context %}
nginx-pkg:
  pkg.installed:
    - name: {{ nginx.package }}
nginx-service:
  service.running:
    - name: {{ nginx.service }}
    - watch:
      - file: {{ nginx.conf_dir }}/nginx.conf
    - user: {{ nginx['user'] }}
