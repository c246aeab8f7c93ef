# included header for {{ site }}
header-{{ site }}:
  test.nop:
    - name: {{ grains['id'] }}
