{% do salt['log.debug']('rendering ' ~ tplfile) %}
{% do salt.log.info('info message') %}
{% do salt['log.warning']('careful') %}
{%- set ignored = salt['log.error']('an error that is only logged') %}
logging:
  test.nop:
    - printed: {{ salt['log.debug']('x') }}
    - ignored_is_none: {{ ignored is none }}
