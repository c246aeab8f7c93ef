{% set apache = salt['grains.filter_by']({
    'default': {
        'server': 'apache2',
        'config': {'ServerTokens': 'OS', 'Timeout': 300, 'KeepAlive': 'On'},
        'modules': ['rewrite'],
    },
    'RedHat': {
        'server': 'httpd',
        'config': {'Timeout': 60},
    },
}, base='default', merge=salt['pillar.get']('apache:lookup')) %}
apache:
  test.nop:
    - merged: {{ apache | json }}
    - order: {{ apache.keys() | list }}
    - config_order: {{ apache.config.keys() | list }}
