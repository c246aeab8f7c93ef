{% set od = odict([('z', 1), ('a', 2)]) %}
{% do od.update({'m': 3}) %}
globals:
  test.nop:
    - odict: {{ od | json(sort_keys=False) }}
    - odict_keys: {{ od.keys() | list }}
    - odict_printed: {{ od }}
    - odict_yaml: {{ od | yaml | yaml_dquote }}
    - dict_yaml: {{ {'z': 1, 'a': 2} | yaml | yaml_dquote }}
    - ifelse: {{ salt['match.ifelse']('G@os_family:RedHat', 'yum', 'G@os_family:Debian', 'apt', 'other') }}
    - ifelse_default: {{ salt['match.ifelse']('G@kernel:Windows', 'win', 'posix') }}
    - has_full_context: {{ show_full_context is callable }}
