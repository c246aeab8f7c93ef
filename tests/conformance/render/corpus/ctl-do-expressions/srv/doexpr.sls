{%- set cfg = {'snippets': 1, 'servers': 2, 'keep': 3} %}
{%- set seen = [] %}
{%- do cfg.pop('snippets') if cfg.snippets is defined %}
{%- do cfg.pop('absent', None) if cfg.absent is defined else seen.append('no-absent') %}
{%- do (seen.append('a'), seen.append('b')) %}
{%- for k in ['x', 'y'] %}{% do seen.append(k) %}{% endfor %}
doexpr:
  test.nop:
    - cfg: {{ cfg | json }}
    - seen: {{ seen }}
