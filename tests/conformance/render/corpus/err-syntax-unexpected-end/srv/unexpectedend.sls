{% for user in pillar['users'] %}
user-{{ user }}:
  user.present:
    - name: {{ user }}
