{% set root = '/srv/app' %}
paths:
  test.nop:
    - joined: {{ root | path_join('conf', 'app.ini') }}
    - absolute_wins: {{ root | path_join('/etc', 'x') }}
    - trailing: {{ 'a/' | path_join('b') }}
    - file_join: {{ salt['file.join']('/etc', 'nginx', 'sites-enabled') }}
    - dirname: {{ salt['file.dirname']('/etc/nginx/nginx.conf') }}
    - basename: {{ salt['file.basename']('/etc/nginx/nginx.conf') }}
    - dirname_rel: "{{ salt['file.dirname']('file.txt') }}"
    - split: {{ '/etc/nginx/nginx.conf'.rsplit('/', 1) | json }}
