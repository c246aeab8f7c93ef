{% macro opts_line(prefix) -%}
{{ prefix }} {{ varargs | join(' ') }}{% for k, v in kwargs | dictsort %} --{{ k }}={{ v }}{% endfor %}
{%- endmacro %}
{% macro shout(text) %}{{ text | upper }}{% endmacro %}
cmdline:
  test.nop:
    - args: "{{ opts_line('rsync', '-a', '-z', delete=True, bwlimit=500) }}"
    - none: "{{ opts_line('ls') }}"
    - macro_name: {{ shout.name }}
    - macro_args: {{ opts_line.arguments | list }}
    - piped: {{ shout('ß and ℝ') | lower | replace(' ', '_') }}
