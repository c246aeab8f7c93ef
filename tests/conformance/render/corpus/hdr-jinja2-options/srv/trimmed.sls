#!jinja|yaml
#jinja2: {"trim_blocks": true, "lstrip_blocks": true}
trimmed:
  file.managed:
    - name: /etc/hosts.allow
    - contents: |
        {% for host in ['a', 'b'] %}
        ALLOW {{ host }}
        {% endfor %}
        end
