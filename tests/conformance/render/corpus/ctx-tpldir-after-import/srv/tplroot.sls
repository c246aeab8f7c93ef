{% set before = tpldir %}
{% from "formula/map.jinja" import lib_tpldir, lib_tplfile %}
{% from "./extra.jinja" import extra %}
tplroot:
  test.nop:
    - before: "{{ before }}"
    - after: "{{ tpldir }}"
    - lib_tpldir: "{{ lib_tpldir }}"
    - lib_tplfile: "{{ lib_tplfile }}"
    - extra: {{ extra }}
