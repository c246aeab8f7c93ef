a:
  test.nop:
    - name: {{ pillar.nosuch }}
