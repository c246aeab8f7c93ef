typing:
  test.nop:
    - yes_no: [{{ 'yes' }}, {{ 'no' }}, {{ pillar['flag'] }}, off, Y, n]
    - nulls: [~, null, Null, '']
    - numbers: [0644, 0o644, 0x1f, 1_000, 1e3, 1.5e3, 6.02e+23, 0.5, -0]
    - mode_unquoted: {{ pillar['mode'] }}
    - mode_quoted: '{{ pillar['mode'] }}'
    - version_unquoted: {{ pillar['version'] }}
    - version_float: {{ pillar['version'] | float }}
    - date: 2024-01-31
    - datetime: 2024-01-31 10:20:30
    - sexagesimal: 1:20
    - colon_str: a:b
    - true_key: {true: 1, 10: ten, 1.5: x, null: n}
