undefok:
  test.nop:
    - missing: "{{ no_such_var }}"
    - missing_attr: "{{ pillar.nope }}"
    - missing_default: {{ no_such_var | default('dflt') }}
    - truthy: {{ no_such_var is defined }} {{ 'yes' if no_such_var else 'no' }}
    - length: {{ no_such_var | length }}
