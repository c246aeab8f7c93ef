{% for check in pillar['checks'] %}
{%   if not check.enabled %}
{%     continue %}
{%   endif %}
{%   if check.name == 'STOP' %}
{%     break %}
{%   endif %}
check-{{ check.name }}:
  test.nop:
    - position: {{ loop.index }}
{% endfor %}
