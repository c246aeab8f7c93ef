{% set family = grains['os_family'] %}
pkgmgr:
  test.nop:
    - name: {{ ifelse('G@os_family:RedHat', 'yum', 'G@os_family:Debian', 'apt', 'other') }}
    - family: {{ family }}
