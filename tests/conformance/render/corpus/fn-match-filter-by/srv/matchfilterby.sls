{% set env = salt['match.filter_by']({
    '*.prod.*': 'production',
    '*.dev.*': 'development',
}, default='unknown') %}
{% set size = salt['match.filter_by']({'db*': 'large', 'web*': 'small'}, minion_id='db01') %}
matchfilterby:
  test.nop:
    - env: {{ env }}
    - size: {{ size }}
