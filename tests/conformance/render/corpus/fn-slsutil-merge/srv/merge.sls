{% set A = '{"pkg": "nginx", "conf": {"port": 80, "mods": ["ssl", "gzip"], "opts": {"x": 1}}, "list": [1, 2]}' %}
{% set B = '{"conf": {"port": 8080, "mods": ["gzip", "http2"], "opts": {"y": 2}}, "list": [3], "extra": true}' %}
{% set m = salt['slsutil.merge'] %}
merge:
  test.nop:
    - smart: {{ m(A | load_json, B | load_json) | json }}
    - recurse: {{ m(A | load_json, B | load_json, strategy='recurse') | json }}
    - recurse_lists: {{ m(A | load_json, B | load_json, strategy='recurse', merge_lists=True) | json }}
    - overwrite: {{ m(A | load_json, B | load_json, strategy='overwrite') | json }}
    - overwrite_lists: {{ m(A | load_json, B | load_json, strategy='overwrite', merge_lists=True) | json }}
    - list: {{ m(A | load_json, B | load_json, strategy='list') | json }}
    - aggregate: {{ m(A | load_json, B | load_json, strategy='aggregate') | json }}
    - none: {{ m(A | load_json, B | load_json, strategy='none') | json }}
    - unknown: {{ m(A | load_json, B | load_json, strategy='bogus') | json }}
    - yamlex_renderer: {{ m(A | load_json, B | load_json, renderer='jinja|yamlex') | json }}
    - key_order: {{ m(A | load_json, B | load_json) | list }}
