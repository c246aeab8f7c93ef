{% for user in pillar['users'] %}
user-{{ user }}:
  user.present:
{% if user == 'alice' %}
    - shell: /bin/zsh
{% endfor %}
