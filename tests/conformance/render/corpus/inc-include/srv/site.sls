{% set site = 'shop' %}
{% include "snippets/header.sls" %}
{% for name in pillar['users'] | sort %}
{% include "snippets/user.sls" %}
{% endfor %}
