packages:
  pkg.installed:
    - pkgs:
{% for p in ['vim', 'git'] %}
  - {{ p }}
{% endfor %}
    - refresh: true
