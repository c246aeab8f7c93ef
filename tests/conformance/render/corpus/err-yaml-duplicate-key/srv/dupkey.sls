{% for name in ['web', 'web'] %}
{{ name }}-service:
  service.running:
    - name: {{ name }}
{% endfor %}
