{% if grains['os_family'] == 'RedHat' %}
{% set pkg = 'httpd' %}
{% elif grains['os_family'] == 'Debian' and grains['osmajorrelease'] >= 11 %}
{% set pkg = 'apache2' %}
{% elif grains['os_family'] == 'Debian' %}
{% set pkg = 'apache2-legacy' %}
{% else %}
{% set pkg = 'www-server' %}
{% endif %}
webserver-pkg:
  pkg.installed:
    - name: {{ pkg }}
{% if pillar['app']['debug'] %}
webserver-debug:
  file.managed:
    - name: /etc/{{ pkg }}/debug.conf
{% elif not pillar['app']['debug'] and pillar['app']['port'] != 80 %}
webserver-port:
  file.managed:
    - name: /etc/{{ pkg }}/ports.conf
    - contents: Listen {{ pillar['app']['port'] }}
{% endif %}
