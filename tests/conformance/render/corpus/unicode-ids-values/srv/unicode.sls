{% for name, u in pillar['users'] | dictsort %}
benutzer-{{ name }}:
  user.present:
    - home: {{ u.home }}
{% endfor %}
ℝeal-💣-state:
  test.nop:
    - greeting: {{ pillar['greeting'] }}
    - upper: {{ 'straße' | upper }}
    - length: {{ pillar['greeting'] | length }}
    - replace: {{ grains['location'] | replace('ß', 'ss') }}
    - json: {{ {'ß': '💣'} | json }}
    - yaml: {{ {'ß': 'ℝ'} | yaml }}
    - sorted: {{ ['ß', 'z', 'ä', 'a'] | sort }}
    - escapes: "\u00df \U0001F4A3"
