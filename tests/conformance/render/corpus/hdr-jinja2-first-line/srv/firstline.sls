#jinja2: {"trim_blocks": true}
{% import_text "snippet.txt" as untrimmed %}
firstline:
  test.nop:
    - contents: |
{% for x in [1, 2] %}
        line {{ x }}
{% endfor %}
    - untrimmed: {{ untrimmed | json }}
