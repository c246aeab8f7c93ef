{% for r in grains['roles'] %}
- {{ r }}
{% endfor %}
- {{ grains['os'] }}
