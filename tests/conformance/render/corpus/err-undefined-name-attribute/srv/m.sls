a:
  test.nop:
    - name: {{ foo.bar }}
