defaults: &defaults
  user: root
  group: root
  mode: '0644'
{% for f in ['a.conf', 'b.conf'] %}
/etc/app/{{ f }}:
  file.managed:
    - {{ f | replace('.conf', '') }}: *defaults
    - settings:
        <<: *defaults
        mode: '0600'
{% endfor %}
