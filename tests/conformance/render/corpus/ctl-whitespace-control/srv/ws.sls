limits-conf:
  file.managed:
    - name: /etc/security/limits.d/app.conf
    - contents: |
        {%- for user in pillar['users'] | sort %}
        {{ user }} soft nofile {{ 1024 * loop.index -}}
        {%- if not loop.last %}
        {# nothing #}{% endif %}
        {%- endfor %}
packages:
  pkg.installed:
    - pkgs:
      {%- for p in ['curl', 'git'] %}
      - {{ p -}}
      {% endfor %}
joined:
  test.nop:
    - name: "{{- ' a ' -}} | {{- ' b ' -}}"
