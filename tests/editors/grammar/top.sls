# SYNTAX TEST "source.sls" "A top file with Jinja"
{%- set roles = grains.get('roles', []) %}
base:
# <---- entity.name.tag.yaml
  '*':
# ^^^ entity.name.tag.yaml string.quoted.single.yaml
#    ^ punctuation.separator.key-value.mapping.yaml
    - core
#   ^ punctuation.definition.block.sequence.item.yaml
#     ^^^^ string.unquoted.plain.out.yaml
  'os:Debian':
# ^^^^^^^^^^^ entity.name.tag.yaml string.quoted.single.yaml
    - match: grain
#     ^^^^^ entity.name.tag.yaml
#            ^^^^^ string.unquoted.plain.out.yaml
    - debian
#     ^^^^^^ string.unquoted.plain.out.yaml
{%- for role in roles %}
#   ^^^ meta.embedded.statement.jinja keyword.control.jinja
  'roles:{{ role }}':
#        ^^ entity.name.tag.yaml string.quoted.single.yaml meta.embedded.expression.jinja
#           ^^^^ variable.other.jinja
    - match: grain
#     ^^^^^ entity.name.tag.yaml
    - roles.{{ role }}
#     ^^^^^^ string.unquoted.plain.out.yaml
#           ^^ string.unquoted.plain.out.yaml meta.embedded.expression.jinja
{%- endfor %}
#   ^^^^^^ keyword.control.jinja
  'G@os:Ubuntu and web*':
# ^^^^^^^^^^^^^^^^^^^^^^ entity.name.tag.yaml string.quoted.single.yaml
    - match: compound
#            ^^^^^^^^ string.unquoted.plain.out.yaml
dev:
# <--- entity.name.tag.yaml
  'web-dev-*': [web, {{ 'dev' }}]
# ^^^^^^^^^^^ entity.name.tag.yaml
#               ^^^ string.unquoted.plain.in.yaml
#                       ^^^^^ meta.flow-sequence.yaml meta.embedded.expression.jinja string.quoted.single.jinja
