{#- A minion's highstate syncs _modules first (`HighState.load_dynamic`); state.show_sls does not, so this case syncs them as a highstate would. #}
{%- do salt['saltutil.sync_modules']() %}
defined: {{ salt['corp.owner'] is defined }} {{ salt.corp.owner is defined }} {{ salt['corp.nope'] is defined }} {{ salt['site.owner'] is defined }}
x: '{{ salt['corp.owner']('a') }}'
