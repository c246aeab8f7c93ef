{% set app = pillar['app'] %}
defaults:
  test.nop:
    - missing_key: {{ app.workers | default(2) }}
    - missing_item: {{ app['log_level'] | d('info') }}
    - falsy_kept: {{ app.debug | default(true) }}
    - falsy_replaced: {{ app.debug | default(true, true) }}
    - empty_replaced: {{ '' | d('was empty', true) }}
    - none_kept: {{ none | default('x') is none }}
    - chained: {{ app.nope | default(app.name) | default('never') }}
    - or_operator: {{ app.get('mode') or 'auto' }}
    - deep: {{ pillar.get('missing', {}).get('x', {}) | default('empty dict kept', false) }}
    - undefined_grain: {{ grains.nosuchgrain | default('no grain') }}
