{% for d in pillar['dirs'] recursive %}
dir {{ d.name }}:
  file.directory:
    - name: {{ d.name }}
    - depth: {{ loop.depth }}
{{ loop(d.children) }}
{%- endfor %}
