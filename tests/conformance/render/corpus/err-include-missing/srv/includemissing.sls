header:
  test.nop
{% include "snippets/footer.sls" %}
