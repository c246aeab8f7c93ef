{% set conf %}
[section]
key = value

other = 2
{%- endset %}
indent:
  file.managed:
    - name: /etc/app.conf
    - contents: |
        {{ conf | indent(8) }}
indent-variants:
  test.nop:
    - default: {{ conf | indent | yaml_dquote }}
    - first: {{ conf | indent(2, true) | yaml_dquote }}
    - blank: {{ conf | indent(2, blank=true) | yaml_dquote }}
    - string: {{ conf | indent('> ') | yaml_dquote }}
