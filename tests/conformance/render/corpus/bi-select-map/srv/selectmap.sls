{% set v = pillar['vhosts'] %}
selectmap:
  test.nop:
    - ssl: {{ v | selectattr('ssl', 'defined') | selectattr('ssl') | map(attribute='name') | list }}
    - no_ssl_key: {{ v | rejectattr('ssl', 'defined') | map(attribute='name') | list }}
    - team_web: {{ v | selectattr('team', 'equalto', 'web') | map(attribute='port') | list }}
    - high_ports: {{ v | map(attribute='port') | select('gt', 100) | list }}
    - odd_ports: {{ v | map(attribute='port') | select('odd') | list }}
    - reject_even: {{ [1, 2, 3, 4] | reject('even') | list }}
    - truthy: {{ [0, 1, '', 'x', none] | select | list }}
    - ssl_default: {{ v | map(attribute='ssl', default='unset') | list }}
    - upper_names: {{ v | map(attribute='name') | map('upper') | list }}
    - replaced: {{ v | map(attribute='name') | map('replace', '.example.com', '') | list }}
    - in_list: {{ v | map(attribute='port') | select('in', [80, 81]) | list }}
{% for team, hosts in v | groupby('team') %}
team-{{ team }}:
  test.nop:
    - hosts: {{ hosts | map(attribute='name') | join(',') }}
{% endfor %}
