{% macro ini(data, section=none) -%}
{%- for key, value in data | dictsort %}
{%- if value is mapping %}
[{{ key }}]
{{ ini(value, key) }}
{%- else %}
{{ key }} = {{ value }}
{%- endif %}
{%- endfor %}
{%- endmacro %}
php-ini:
  file.managed:
    - name: /etc/php/php.ini
    - contents: |
        {{ ini(pillar['php']['ini']) | indent(8) }}
