net:
  test.nop:
    - v4: {{ grains['ipv4'] | map('is_ipv4') | list }}
    - v6: {{ grains['ipv6'] | map('is_ipv6') | list }}
    - cidr: {{ '10.0.0.0/8' | is_ipv4 }} {{ '2001:db8::/32' | is_ipv6 }} {{ '10.0.0.0/8' | is_ipv6 }}
    - loopback: {{ grains['ipv4'] | map('is_ip', 'loopback') | list }}
    - integer: {{ 3232235777 | is_ipv4 }}
    - wrapped: {{ grains['ipv6'] | ipwrap | json }}
text:
  test.nop:
    - camel: {{ 'max_open_files' | to_camelcase }} {{ 'max_open_files' | to_camelcase(true) }}
    - escaped: {{ 'a.b*c (d)' | regex_escape | yaml_dquote }}
    - search: {{ 'version=3.11.4' | regex_search('(\\d+)\\.(\\d+)') | json }}
    - search_named: {{ 'key: value' | regex_search('(?P<k>\\w+): (?P<v>\\w+)') | json }}
    - match_none: {{ 'xyz' | regex_match('y') | json }}
    - strip: {{ '<p>Hello&nbsp;<b>World</b></p>  &amp; more' | striptags | yaml_dquote }}
    - truncate: {{ 'The quick brown fox jumps' | truncate(12) }}|{{ 'The quick brown fox jumps' | truncate(12, true, '…', 0) }}
    - words: {{ 'one two, three-four' | wordcount }}
    - center: "{{ 'ab' | center(7) }}"
