kernel:
  cmd.run:
    - name: echo {{ grains["kernelrelease"] }}
