ok:
  test.nop:
    - name: fine

bad:
  test.nop:
    - name: {{ '%s and %s' % ('only one',) }}
