{% set port = pillar['app']['port'] %}
site:
  file.managed:
    - name: /etc/nginx/sites-enabled/site.conf
    - port: {{ port }}
    - root: {{ webroot }}
