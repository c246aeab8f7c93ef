{% set s = '  Hello World from Salt  ' %}
strings:
  test.nop:
    - lower: {{ s | lower | trim }}
    - upper: {{ s | upper | trim }}
    - capitalize: {{ 'sALT stack' | capitalize }}
    - title: {{ 'salt stack ßtraße' | title }}
    - replace: {{ 'a-b-c-d' | replace('-', '_') }}
    - replace_count: {{ 'a-b-c-d' | replace('-', '_', 2) }}
    - trim_chars: {{ '--x--' | trim('-') }}
    - format: {{ '%s:%d/%s' | format('host', 80, 'path') }}
    - format_py: {{ '{}:{}'.format('host', 443) }}
    - percent: {{ '%05.1f%%' % 3.14159 }}
    - string: {{ 42 | string ~ '!' }}
    - center: "{{ 'x' | center(5) }}"
    - truncate: {{ 'a long sentence here' | truncate(9, true, '...', 0) }}
    - wordcount: {{ s | wordcount }}
    - striptags: {{ '<b>bold</b> text' | striptags }}
    - concat: {{ 'a' ~ 1 ~ none ~ true }}
