{% set mine = 'x' %}
{% load_yaml as with_ctx %}{% include "parts/ctx.jinja" %}{% endload %}
{% load_yaml as without_ctx %}{% include "parts/ctx.jinja" without context %}{% endload %}
include-context:
  test.nop:
    - with: {{ with_ctx | json }}
    - without: {{ without_ctx | json }}
