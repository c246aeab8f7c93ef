{% if grains.zz == 1 %}
a: test.nop
{% endif %}
