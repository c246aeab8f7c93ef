{% from "./lib.jinja" import origin %}
relative-from-subdir:
  test.nop:
    - origin: {{ origin }}
    - tpldir: "{{ tpldir }}"
