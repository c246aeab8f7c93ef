{% for group in salt['pillar.get']('groups', []) %}
group-{{ group }}:
  group.present:
    - name: {{ group }}
{% endfor %}
{% for name, user in salt['pillar.get']('users', {}).items() %}
{%   if user.get('absent', False) %}
user-{{ name }}:
  user.absent:
    - name: {{ name }}
{%   else %}
user-{{ name }}:
  user.present:
    - name: {{ name }}
    - fullname: {{ user.fullname | default(name | capitalize) }}
    - shell: {{ user.get('shell', '/bin/bash') }}
{%     if user.uid is defined %}
    - uid: {{ user.uid }}
{%     endif %}
    - groups: {{ user.get('groups', []) | json }}
{%     for key in user.get('ssh_keys', []) %}
ssh-{{ name }}-{{ loop.index }}:
  ssh_auth.present:
    - user: {{ name }}
    - name: {{ key }}
    - require:
      - user: user-{{ name }}
{%     endfor %}
{%   endif %}
{% endfor %}
