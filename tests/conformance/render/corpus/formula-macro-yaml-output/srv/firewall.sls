{% macro rule_state(name, rule) -%}
{%- set args = [{'name': 'fw-' ~ name}] %}
{%- for key, value in rule | dictsort %}
{%-   do args.append({key: value}) %}
{%- endfor %}
fw-rule-{{ name }}:
  iptables.append:
    {{ args | yaml(False) | indent(4) }}
{%- endmacro %}
{% for name, rule in pillar['firewall']['rules'] | dictsort %}
{{ rule_state(name, rule) }}
{% endfor %}
fw-summary:
  file.managed:
    - name: /etc/firewall.yaml
    - contents: |
        {{ pillar['firewall'] | yaml(False) | indent(8) }}
