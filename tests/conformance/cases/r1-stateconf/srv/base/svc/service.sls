#!stateconf yaml . jinja

.sls_params:
  stateconf.set:
    - parent: default
    - port: 80

# --- end of state config ---

include:
  - .common

.pkg:
  pkg.installed:
    - name: nginx-{{ sls_params.parent }}

.conf:
  file.managed:
    - name: /etc/{{ sls_params.parent }}.conf
    - contents: "port {{ sls_params.port }} in {{ sls_dir }}"
    - require:
      - pkg: .pkg
      - file: .common::motd

named-plainly:
  service.running:
    - name: nginx
    - watch:
      - file: .conf
