include:
  - missing.inc
  - dev: devmissing
  - nosuchenv: foo
a:
  test.nop: []
