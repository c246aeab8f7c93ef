{% set pkgs = salt['grains.filter_by']({
    'Debian': {'apache': 'apache2', 'php': 'php8.2'},
    'RedHat': {'apache': 'httpd', 'php': 'php'},
    'default': {'apache': 'apache', 'php': 'php'},
}) %}
{% set arch = salt['grains.filter_by']({
    'aarch64': 'arm64',
    'default': 'native',
}, grain='cpuarch') %}
{% set dc = salt['grains.filter_by']({
    'nyc*': 'us-east',
    'ams*': 'eu-west',
    'fallback': 'unknown',
}, grain='datacenter', default='fallback') %}
filterby:
  test.nop:
    - pkgs: {{ pkgs | json }}
    - arch: {{ arch }}
    - dc: {{ dc }}
    - missing_grain: {{ salt['grains.filter_by']({'x': 1, 'default': 0}, grain='no_such_grain') }}
