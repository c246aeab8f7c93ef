# SYNTAX TEST "source.sls" "Jinja inside mapping keys"
{{ sls }}-service:
# <-- entity.name.tag.yaml meta.embedded.expression.jinja punctuation.section.embedded.begin.jinja
#  ^^^ entity.name.tag.yaml meta.embedded.expression.jinja variable.language.salt.jinja
#        ^^^^^^^^ entity.name.tag.yaml
#                ^ punctuation.separator.key-value.mapping.yaml
  service.running:
# ^^^^^^^^^^^^^^^ entity.name.tag.yaml
#                ^ punctuation.separator.key-value.mapping.yaml
install-{{ pkg | lower }}:
# <-------- entity.name.tag.yaml
#       ^^ entity.name.tag.yaml meta.embedded.expression.jinja punctuation.section.embedded.begin.jinja
#              ^ keyword.operator.filter.jinja
#                ^^^^^ support.function.filter.jinja
#                      ^^ entity.name.tag.yaml meta.embedded.expression.jinja punctuation.section.embedded.end.jinja
#                        ^ punctuation.separator.key-value.mapping.yaml - meta.embedded.expression.jinja
"{{ name }} config": x
# <- entity.name.tag.yaml string.quoted.double.yaml punctuation.definition.string.begin.yaml
#^^ entity.name.tag.yaml string.quoted.double.yaml meta.embedded.expression.jinja punctuation.section.embedded.begin.jinja
#   ^^^^ variable.other.jinja
#          ^^^^^^^ entity.name.tag.yaml string.quoted.double.yaml - meta.embedded.expression.jinja
#                  ^ punctuation.separator.key-value.mapping.yaml
#                    ^ string.unquoted.plain.out.yaml
'{{ grains.id }}': y
# <- entity.name.tag.yaml string.quoted.single.yaml
#   ^^^^^^ entity.name.tag.yaml string.quoted.single.yaml meta.embedded.expression.jinja variable.language.salt.jinja
#         ^ punctuation.accessor.jinja
#          ^^ variable.other.property.jinja
#                ^ punctuation.separator.key-value.mapping.yaml
{{ "a: b" }}: colon inside the Jinja string does not end the key
#  ^^^^^^ entity.name.tag.yaml meta.embedded.expression.jinja string.quoted.double.jinja
#           ^ punctuation.separator.key-value.mapping.yaml
#             ^^^^^ string.unquoted.plain.out.yaml
{%- if x %}{{ x }}{% endif %}: 1
# <-- entity.name.tag.yaml meta.embedded.statement.jinja punctuation.section.embedded.begin.jinja
#          ^^ entity.name.tag.yaml meta.embedded.expression.jinja
#                    ^^^^^ entity.name.tag.yaml meta.embedded.statement.jinja keyword.control.jinja
#                            ^ punctuation.separator.key-value.mapping.yaml
#                              ^ constant.numeric.integer.yaml
users:
  - {{ user }}:
# ^ punctuation.definition.block.sequence.item.yaml
#   ^^ entity.name.tag.yaml meta.embedded.expression.jinja punctuation.section.embedded.begin.jinja
#             ^ punctuation.separator.key-value.mapping.yaml
      - shell: /bin/bash
#     ^ punctuation.definition.block.sequence.item.yaml
#       ^^^^^ entity.name.tag.yaml
#              ^^^^^^^^^ string.unquoted.plain.out.yaml
/etc/{{ app }}/app.conf: {}
# <----- entity.name.tag.yaml
#    ^^ entity.name.tag.yaml meta.embedded.expression.jinja
#             ^^^^^^^^^ entity.name.tag.yaml
#                        ^ meta.flow-mapping.yaml punctuation.definition.mapping.begin.yaml
C:\salt\{{ x }}:
# <-------- entity.name.tag.yaml
#       ^^ entity.name.tag.yaml meta.embedded.expression.jinja
key with spaces and {{ jinja }} : value
# <-------------------- entity.name.tag.yaml
#                   ^^ entity.name.tag.yaml meta.embedded.expression.jinja
#                               ^ punctuation.separator.key-value.mapping.yaml
#                                 ^^^^^ string.unquoted.plain.out.yaml
