# SYNTAX TEST "source.sls" "Block scalars: Jinja inside, Jinja lines at any indentation, where they end"
/etc/motd:
  file.managed:
    - contents: |
#   ^ punctuation.definition.block.sequence.item.yaml
#     ^^^^^^^^ entity.name.tag.yaml
#               ^ keyword.control.flow.block-scalar.literal.yaml
        Welcome to {{ grains['id'] }}: key-like text
#       ^^^^^^^^^^^ string.unquoted.block.yaml
#                  ^^ string.unquoted.block.yaml meta.embedded.expression.jinja punctuation.section.embedded.begin.jinja
#                                    ^^^^^^^^^^^^^^^ string.unquoted.block.yaml - entity.name.tag.yaml
{%- if pillar.get('motd:extra') %}
# <-- string.unquoted.block.yaml meta.embedded.statement.jinja punctuation.section.embedded.begin.jinja
#   ^^ string.unquoted.block.yaml keyword.control.jinja
        {{ pillar['motd:extra'] }}
#       ^^ string.unquoted.block.yaml meta.embedded.expression.jinja
{%- endif %}
# <-- string.unquoted.block.yaml meta.embedded.statement.jinja
{#- a comment inside the block #}
# <-- string.unquoted.block.yaml comment.block.jinja
        - not a list item
#       ^^^^^^^^^^^^^^^^^ string.unquoted.block.yaml - punctuation.definition.block.sequence.item.yaml

        # not a comment
#       ^^^^^^^^^^^^^^^ string.unquoted.block.yaml - comment
    - mode: '0644'
#   ^ punctuation.definition.block.sequence.item.yaml - string.unquoted.block.yaml
#     ^^^^ entity.name.tag.yaml
    - source: >-
#             ^ keyword.control.flow.block-scalar.folded.yaml
#              ^ storage.modifier.chomping-indicator.yaml
        folded
#       ^^^^^^ string.unquoted.block.yaml
      user: root
#     ^^^^ entity.name.tag.yaml - string.unquoted.block.yaml
motd: |2+  # header comment {{ x }}
#     ^ keyword.control.flow.block-scalar.literal.yaml
#      ^^ storage.modifier.chomping-indicator.yaml
#          ^ comment.line.number-sign.yaml
#                           ^^ comment.line.number-sign.yaml meta.embedded.expression.jinja
   indented text
#  ^^^^^^^^^^^^^ string.unquoted.block.yaml
next: value
# <---- entity.name.tag.yaml - string.unquoted.block.yaml
list:
  - |
# ^ punctuation.definition.block.sequence.item.yaml
#   ^ keyword.control.flow.block-scalar.literal.yaml
    item {{ n }}
#   ^^^^^ string.unquoted.block.yaml
#        ^^ string.unquoted.block.yaml meta.embedded.expression.jinja
  - plain
# ^ punctuation.definition.block.sequence.item.yaml - string.unquoted.block.yaml
#   ^^^^^ string.unquoted.plain.out.yaml
  - key: >
#   ^^^ entity.name.tag.yaml
#        ^ keyword.control.flow.block-scalar.folded.yaml
      folded item
#     ^^^^^^^^^^^ string.unquoted.block.yaml
    sibling: 1
#   ^^^^^^^ entity.name.tag.yaml - string.unquoted.block.yaml
{{ name }}-after:
# <-- entity.name.tag.yaml meta.embedded.expression.jinja - string.unquoted.block.yaml
