web_id:
  pkg.installed:
    - name: nginx
web_conf:
  file.managed:
    - name: /etc/nginx/nginx.conf
    - source: salt://web/files/nginx.conf
    - require:
      - pkg: nginx
