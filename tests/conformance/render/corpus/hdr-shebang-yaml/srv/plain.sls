#!yaml
plain-yaml:
  test.nop:
    - name: "{{ grains['os'] }}"
    - tag: '{% if x %}y{% endif %}'
    - comment: "{# not a jinja comment here #}" # but a YAML one after the space
    - num: 010
    - bool: on
