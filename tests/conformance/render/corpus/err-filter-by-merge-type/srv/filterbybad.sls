{% set cfg = salt['grains.filter_by']({
    'Debian': {'pkg': 'x'},
}, merge='not-a-dict') %}
cfg:
  test.nop:
    - pkg: {{ cfg.pkg }}
