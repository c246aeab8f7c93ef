{# this comment disappears, {{ even this }} #}
deploy-template:
  file.managed:
    - name: /etc/app/template.j2
    - contents: |
        {% raw %}{% for host in groups['web'] %}
        server {{ host }};
        {% endfor %}{% endraw %}
    - comment: '{% raw %}{{ not_rendered }}{% endraw %} and {{ grains.os }}'
