{% set hosts = ['10.0.0.1 a', '10.0.0.2 b'] %}
hosts-literal:
  file.managed:
    - name: /etc/hosts.d/app
    - contents: |
{%- for h in hosts %}
        {{ h }}
{%- endfor %}
strip-chomp:
  test.nop:
    - strip: |-
        one
        two {{ grains['os'] }}

    - keep: |+
        kept

    - folded: >
        folded {{ grains['os'] }}
        into one line

        new paragraph
