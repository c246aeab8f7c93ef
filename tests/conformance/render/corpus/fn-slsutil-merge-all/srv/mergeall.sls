{% set layers = [
    {'chrony': {'package': 'chrony', 'servers': ['pool.ntp.org'], 'conf': '/etc/chrony.conf'}},
    {'chrony': {'conf': '/etc/chrony/chrony.conf', 'service': 'chrony'}},
    {'chrony': salt['pillar.get']('chrony', {})},
] %}
{% set merged = salt['slsutil.merge_all'](layers) %}
{% set merged_lists = salt['slsutil.merge_all'](layers, merge_lists=True) %}
mergeall:
  test.nop:
    - merged: {{ merged.chrony | json(sort_keys=False) }}
    - merged_lists: {{ merged_lists.chrony.servers | json }}
