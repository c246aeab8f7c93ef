#!yaml
state:
  test.nop:
    - name: {{ grains.os }}
