{%- from "ntp/map.jinja" import ntp with context %}
ntp-pkg:
  pkg.installed:
    - name: {{ ntp.pkg }}
ntp-config:
  file.managed:
    - name: {{ ntp.config }}
    - contents: |
{%- for server in ntp.servers %}
        server {{ server }} iburst
{%- endfor %}
    - require:
      - pkg: ntp-pkg
ntp-service:
  service.running:
    - name: {{ ntp.service }}
    - watch:
      - file: ntp-config
