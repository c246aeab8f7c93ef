{%- set d = {"z": 1, "a": {"y": [1, 2], "b": None}, "m": "x"} %}
j:
  test.nop:
    - unsorted: {{ d | json(sort_keys=False) }}
    - sorted: {{ d | json }}
    - positional: {{ d | json(False) }}
    - text: {{ (d | json(sort_keys=False, indent=2)) | yaml_dquote }}
    - text_pos: {{ (d | json(True, 1)) | yaml_dquote }}
