{% set release = salt['grains.filter_by']({
    'Ubuntu-2?.04': 'lts-new',
    'Ubuntu-*': 'ubuntu-any',
    'Debian-*': 'debian',
}, grain='osfinger') %}
{% set role = salt['grains.filter_by']({
    'db-*': {'tier': 'data'},
    'web*': {'tier': 'front'},
    'monitoring': {'tier': 'ops'},
}, grain='roles') %}
{% set vendor = salt['grains.filter_by']({'Dell*': 'idrac', 'HP*': 'ilo'}, grain='hw:vendor') %}
{% set major = salt['grains.filter_by']({'2[0-9]': 'modern', '1*': 'old'}, grain='osmajorrelease') %}
filterbyglob:
  test.nop:
    - release: {{ release }}
    - role: {{ role | json }}
    - vendor: {{ vendor }}
    - major: {{ major }}
    - case: {{ salt['grains.filter_by']({'ubuntu': 'lower', 'default': 'case-sensitive'}, grain='os') }}
