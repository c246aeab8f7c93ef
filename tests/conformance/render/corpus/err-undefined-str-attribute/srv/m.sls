a:
  test.nop:
    - name: {{ grains.os.x }}
