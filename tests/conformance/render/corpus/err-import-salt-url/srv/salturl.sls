{% from "salt://lib/vars.jinja" import where %}
salt-url-import:
  test.nop:
    - name: {{ where }}
