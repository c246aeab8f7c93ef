{% set mine = 'x' %}
{% set tag = 'with' %}
include-context:
  test.nop:
{% include "parts/ctx.jinja" with context %}
{% include "parts/plain.jinja" without context %}
