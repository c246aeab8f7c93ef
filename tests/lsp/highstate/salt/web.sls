# Webserver: Größe 💣
nginx_ß:
  pkg.installed:
    - name: nginx
agent_💣:
  test.nop: []
