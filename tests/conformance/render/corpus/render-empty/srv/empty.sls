{# nothing to do on this minion #}
{% if grains['os_family'] == 'Windows' %}
windows-only:
  test.nop
{% endif %}
# a YAML comment
