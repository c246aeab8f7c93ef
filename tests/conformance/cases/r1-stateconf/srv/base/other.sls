#!stateconf yaml . jinja
include:
  - svc.service
extend:
  svc.service::sls_params:
    stateconf.set:
      - parent: other
other-seen:
  test.nop:
    - dir: {{ sls_dir }}
