{%- set name = 'ßob' %}
{%- set home = "/home/%s" % name %}
{%- set users = {'a': {'uid': 1001}, 'b': {'uid': 7}} %}
percent:
  test.nop:
    - home: {{ home }}
    - two: "{{ '%s:%s' % (name, 3) }}"
    - padded: "{{ '%-6s|%05d|%.2f|%x' % ('ℝ', 42, 2.5, 255) }}"
    - mapping: "{{ '%(uid)d is %(missing_ok)s' % {'uid': 5, 'missing_ok': None} }}"
    - percent: "{{ '%d%%' % 50 }}"
    - boolnone: "{{ '%s/%s/%r' % (True, None, 'q') }}"
    - list_arg: "{{ '%s' % ['x', 1] }}"
    - modulo: {{ [7 % 3, -7 % 3, 7 % -3, 7.5 % 2] }}
    - precedence: {{ 2 + 7 % 4 * 2 }}
    - filtered: "{{ 'uid=%d' % users.a.uid | int }}"
{%- for u, d in users | dictsort %}
    - {{ 'user_%s' % u }}: {{ '%04d' % d.uid }}
{%- endfor %}
