item: {{ salt['nope.fn'] is defined }}
module: {{ salt.nope is defined }}
function: {{ salt.test.nope is defined }}
present: {{ salt['test.ping'] is defined }} {{ salt.test.ping is defined }} {{ salt['cmd.run'] is defined }} {{ salt['pkg.version'] is defined }}
{% if salt['nope.fn'] is not defined %}
fallback: {{ salt['test.echo']('used') }}
{% endif %}
