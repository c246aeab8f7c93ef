{% for name, user in pillar.get('users', {}).items() %}
user-{{ name }}:
  user.present:
    - name: {{ name }}
    - uid: {{ user.uid }}
    - shell: {{ user.get('shell', '/bin/sh') }}
    - groups:
{% for g in user['groups'] %}
      - {{ g }}
{% endfor %}
{% endfor %}
{% for name, user in pillar['users'] | dictsort %}
sorted-{{ loop.index }}:
  test.nop:
    - name: {{ name }} {{ user.uid }}
{% endfor %}
