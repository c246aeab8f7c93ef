motd:
  file.managed:
    - name: /etc/motd
    - contents: |
        hello
{%- if grains['os'] == 'Debian' %}
        debian
{%- endif %}
