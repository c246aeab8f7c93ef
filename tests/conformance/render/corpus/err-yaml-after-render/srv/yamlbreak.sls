motd:
  file.managed:
    - name: /etc/motd
    - user: root
    - contents: {{ pillar['motd'] }}
