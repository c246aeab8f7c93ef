{% import "lib/macros.jinja" as m %}
{{ m.pkg('nginx') }}
{{ m.pkg('redis', m.version) }}
lib-vars:
  test.nop:
    - os: {{ m.os_seen }}
    - version: {{ m.version }}
