{% set banner %}
Welcome to {{ grains['fqdn'] }}
Roles: {{ grains['roles'] | join(', ') }}
{% endset %}
{% set shout | upper %}managed by salt ({{ grains['os'] }}){% endset %}
motd:
  file.managed:
    - name: /etc/motd
    - contents: |
        {{ banner | indent(8) }}
        {{ shout }}
motd-raw:
  test.nop:
    - text: {{ banner | yaml_dquote }}
