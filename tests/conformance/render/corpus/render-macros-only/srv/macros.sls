{% macro opt(v) -%}
None
{%- endmacro %}
{% macro flag() -%}
True
{% endmacro %}
{% macro wrap() -%}
{{ caller() }}
{%- endmacro %}
{% set block %}
- one
None
{% endset %}
{% call wrap() %}
{% endcall %}
