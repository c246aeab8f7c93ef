{% from "lib/bad.jinja" import render_user %}
{% set u = {'name': 'alice', 'shell': '/bin/zsh'} %}

{{ render_user(u) }}
