{% macro vhost(name, port=80, ssl=False, aliases=[]) -%}
vhost-{{ name }}:
  file.managed:
    - name: /etc/nginx/sites-available/{{ name }}.conf
    - context:
        port: {{ port }}
        ssl: {{ ssl }}
        aliases: {{ aliases | json }}
{%- endmacro %}
{{ vhost('shop.example.com') }}
{{ vhost('api.example.com', 8443, ssl=True) }}
{{ vhost(name='static.example.com', aliases=['cdn.example.com', 'img.example.com']) }}
