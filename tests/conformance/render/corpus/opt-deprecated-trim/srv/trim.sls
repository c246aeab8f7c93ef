trim:
  file.managed:
    - name: /etc/x
    - contents: |
        {% for h in ['a', 'b'] %}
        host {{ h }}
        {% endfor %}
        end
