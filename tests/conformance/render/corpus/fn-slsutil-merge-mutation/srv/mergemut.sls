{% set a = {'conf': {'port': 80, 'opts': {'x': 1}}, 'keep': 1} %}
{% set b = {'conf': {'port': 8080}} %}
{% set r = salt['slsutil.merge'](a, b, strategy='recurse') %}
{% set a_after_recurse = a | json %}
{% set o = salt['slsutil.merge'](a, b, strategy='overwrite') %}
{% do b.conf.update({'late': true}) %}
mergemut:
  test.nop:
    - recurse: {{ r | json }}
    - a_after_recurse: {{ a_after_recurse }}
    - overwrite: {{ o | json }}
    - a_after_overwrite: {{ a | json }}
    - b_changed_later: {{ b | json }}
