{% set total = 0 %}
{% set ns = namespace(total=0, names=[]) %}
{% for name, user in pillar['users'] | dictsort %}
{%   set total = total + user.uid %}
{%   set ns.total = ns.total + user.uid %}
{%   do ns.names.append(name | upper) %}
{% endfor %}
scoping:
  test.nop:
    - plain_set: {{ total }}
    - namespace_set: {{ ns.total }}
    - names: {{ ns.names | join(',') }}
