{% macro managed_conf(name) -%}
conf-{{ name }}:
  file.managed:
    - name: /etc/{{ name }}
    - contents: |
        # managed by salt
        {{ caller() | indent(8) }}
{%- endmacro %}
{% macro each_user(users) -%}
{%- for u in users %}
{{ caller(u) }}
{%- endfor %}
{%- endmacro %}
{% call managed_conf('app.ini') -%}
[main]
port = {{ pillar['app']['port'] }}
{%- endcall %}
{% call(user) each_user(pillar['users'] | sort) -%}
home-{{ user }}:
  file.directory:
    - name: /home/{{ user }}
{%- endcall %}
