motd:
  file.managed:
    - contents: |
        hello
        {%- if grains["os"] == "Debian" %}
        debian
        {%- endif %}