{% for host in pillar['backends'] %}
backend-{{ loop.index }}:
  test.configurable_test_state:
    - name: {{ host }}
    - changes: {{ loop.first }}
    - result: {{ not loop.last }}
    - comment: "{{ loop.index0 }}/{{ loop.revindex }}/{{ loop.revindex0 }}/{{ loop.length }} {{ loop.cycle('odd', 'even') }}"
    - warnings:
      - prev={{ loop.previtem | default('none') }}
      - next={{ loop.nextitem | default('none') }}
{% endfor %}
