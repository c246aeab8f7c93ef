app-config:
  file.managed:
    - name: /etc/app.conf
    - context:
        name: {{ pillar.app.name }}
        workers: {{ pillar.app.workers }}
