ctxdata:
  test.nop:
    - opts_id: {{ opts['id'] }}
    - opts_attr: {{ opts.id }}
    - file_client: {{ opts['file_client'] }}
    - renderer: {{ opts['renderer'] }}
    - state_top: {{ opts.get('state_top') }}
    - custom: {{ opts['company'] | json }}
    - missing_opt: {{ opts.get('no_such_option', 'absent') }}
    - grain_attr: {{ grains.nested.a.b }}
    - pillar_item: {{ pillar['nested']['x']['y'] }}
    - pillar_keys: {{ pillar.keys() | sort | list }}
    - salt_is_mapping: {{ salt is mapping }}
    - test_true: {{ salt.test.true() }}
