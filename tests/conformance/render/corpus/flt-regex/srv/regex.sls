{% set fqdn = grains['fqdn'] %}
regex:
  test.nop:
    - short: {{ fqdn | regex_replace('\\..*$', '') }}
    - swapped: {{ 'key=value' | regex_replace('(\\w+)=(\\w+)', '\\2=\\1') }}
    - ci: {{ 'Web01.EXAMPLE.com' | regex_replace('example', 'test', ignorecase=True) }}
    - search: {{ fqdn | regex_search('(\\w+)(\\d+)\\.(\\w+)') | json }}
    - search_none: {{ fqdn | regex_search('^db') is none }}
    - match: {{ 'web01' | regex_match('web(\\d+)') | json }}
    - match_anchor: {{ 'xweb01' | regex_match('web') is none }}
    - search_named: {{ 'v1.22.3' | regex_search('v(?P<major>\\d+)\\.(?P<minor>\\d+)') | list }}
    - test_match: {{ fqdn is match('web\\d+\\.') }}
    - test_match_ci: {{ 'WEB01' is match('web', ignorecase=True) }}
    - number: {{ grains['osfinger'] | regex_replace('^\\D+-', '') | int + 1 }}
