miscsalt:
  test.nop:
    - to_num: {{ '42' | to_num + 1 }}
    - to_num_float: {{ '1.5' | to_num * 2 }}
    - md5: {{ 'salt' | md5 }}
    - sha256: {{ 'salt' | sha256 }}
    - b64: {{ 'ß💣' | base64_encode }}
    - unb64: {{ 'aGVsbG8=' | base64_decode }}
    - quoted: {{ "it's a file" | quote | yaml_dquote }}
    - snake: {{ 'camelCaseName' | to_snake_case }}
    - sorted_ci: {{ ['b', 'A', 'c', 'B'] | sorted_ignorecase | json }}
    - is_ip: {{ '10.0.0.1' | is_ip }}
    - not_ip: {{ 'example.com' | is_ip }}
    - wrapped: {{ '::1' | ipwrap | yaml_dquote }}
    - wrapped_v4: {{ '10.0.0.1' | ipwrap }}
params:
  file.managed:
    {{ {'name': '/etc/x', 'mode': '0644', 'user': 'root'} | dict_to_sls_yaml_params | indent(4) }}
