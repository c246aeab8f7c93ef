{% from "./lib/settings.jinja" import settings %}
app-config:
  file.serialize:
    - name: /etc/app.json
    - dataset: {{ settings | json }}
