{% from "lib/base.jinja" import base %}
{% set cfg = {'packages': [], 'env': {}} %}
{% do cfg.update({'owner': 'root', 'mode': '0644'}) %}
{% do cfg['packages'].append('vim') %}
{% do cfg.packages.extend(['git', 'htop']) %}
{% do cfg['env'].update(LANG='C.UTF-8', TZ='UTC') %}
{% do base.packages.append('jq') %}
{% do base.settings.update({'b': 2}) %}
{% for role in grains['roles'] %}{% do cfg.packages.append(role ~ '-agent') %}{% endfor %}
mutated:
  test.nop:
    - cfg: {{ cfg | json }}
    - base: {{ base | json }}
    - popped: {{ cfg.packages.pop() }}
    - after_pop: {{ cfg.packages | length }}
