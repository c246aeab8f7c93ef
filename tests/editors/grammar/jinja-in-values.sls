# SYNTAX TEST "source.sls" "Jinja inside plain and quoted scalars, list items and flow collections"
source: salt://{{ tpldir }}/files/{{ name }}.conf  # comment
# <------ entity.name.tag.yaml
#       ^^^^^^^ string.unquoted.plain.out.yaml
#              ^^ string.unquoted.plain.out.yaml meta.embedded.expression.jinja punctuation.section.embedded.begin.jinja
#                 ^^^^^^ string.unquoted.plain.out.yaml meta.embedded.expression.jinja variable.language.salt.jinja
#                          ^^^^^^^ string.unquoted.plain.out.yaml
#                                 ^^ string.unquoted.plain.out.yaml meta.embedded.expression.jinja
#                                           ^^^^^ string.unquoted.plain.out.yaml
#                                                  ^ comment.line.number-sign.yaml punctuation.definition.comment.yaml
name: "{{ pillar.get('motd', "Hi # not a comment") }} and {{ x ~ '}}' }}"
#     ^ string.quoted.double.yaml punctuation.definition.string.begin.yaml
#      ^^ string.quoted.double.yaml meta.embedded.expression.jinja punctuation.section.embedded.begin.jinja
#         ^^^^^^ variable.language.salt.jinja
#                ^^^ entity.name.function.jinja
#                    ^^^^^^ string.quoted.single.jinja
#                            ^^^^^^^^^^^^^^^^^^^^ meta.embedded.expression.jinja string.quoted.double.jinja - comment
#                                                  ^^ string.quoted.double.yaml meta.embedded.expression.jinja punctuation.section.embedded.end.jinja
#                                                    ^^^^^ string.quoted.double.yaml - meta.embedded.expression.jinja
#                                                                ^^^^ meta.embedded.expression.jinja string.quoted.single.jinja
#                                                                     ^^ string.quoted.double.yaml meta.embedded.expression.jinja punctuation.section.embedded.end.jinja
#                                                                       ^ string.quoted.double.yaml punctuation.definition.string.end.yaml
mode: '{{ mode | default("0644") }}'
#     ^ string.quoted.single.yaml punctuation.definition.string.begin.yaml
#      ^^ string.quoted.single.yaml meta.embedded.expression.jinja punctuation.section.embedded.begin.jinja
#                ^^^^^^^ support.function.filter.jinja
#                        ^^^^^^ string.quoted.double.jinja
#                                  ^ string.quoted.single.yaml punctuation.definition.string.end.yaml
port: {{ port + 1 }}
#     ^^ meta.embedded.expression.jinja punctuation.section.embedded.begin.jinja
#             ^ keyword.operator.arithmetic.jinja
#               ^ constant.numeric.jinja
pkgs:
  - {{ pkg }}
# ^ punctuation.definition.block.sequence.item.yaml
#   ^^ meta.embedded.expression.jinja punctuation.section.embedded.begin.jinja
#      ^^^ variable.other.jinja
  - prefix-{{ pkg }}-suffix
#   ^^^^^^^ string.unquoted.plain.out.yaml
#          ^^ string.unquoted.plain.out.yaml meta.embedded.expression.jinja
#                   ^^^^^^^ string.unquoted.plain.out.yaml
  - {%- if x %}a{% else %}b{% endif %}
#   ^^ meta.embedded.statement.jinja punctuation.section.embedded.begin.jinja
#     ^ keyword.operator.whitespace-control.jinja
#              ^ string.unquoted.plain.out.yaml
#                  ^^^^ string.unquoted.plain.out.yaml meta.embedded.statement.jinja keyword.control.jinja
  - '{{ quoted }}'
#    ^^ string.quoted.single.yaml meta.embedded.expression.jinja
require: [pkg: {{ name }}, file: '{{ path }}', {{ extra }}]
#        ^ meta.flow-sequence.yaml punctuation.definition.sequence.begin.yaml
#         ^^^ meta.flow-sequence.yaml entity.name.tag.yaml
#              ^^ meta.flow-sequence.yaml meta.embedded.expression.jinja punctuation.section.embedded.begin.jinja
#                        ^ punctuation.separator.sequence.yaml
#                          ^^^^ entity.name.tag.yaml
#                                 ^^ string.quoted.single.yaml meta.embedded.expression.jinja
#                                              ^^ meta.flow-sequence.yaml meta.embedded.expression.jinja punctuation.section.embedded.begin.jinja
#                                                         ^ meta.flow-sequence.yaml punctuation.definition.sequence.end.yaml
opts: {user: {{ user }}, groups: [{{ g }}]}
#     ^ meta.flow-mapping.yaml punctuation.definition.mapping.begin.yaml
#      ^^^^ entity.name.tag.yaml
#            ^^ meta.flow-mapping.yaml meta.embedded.expression.jinja punctuation.section.embedded.begin.jinja
#                    ^^ meta.flow-mapping.yaml meta.embedded.expression.jinja punctuation.section.embedded.end.jinja
#                                ^ meta.flow-mapping.yaml meta.flow-sequence.yaml
#                                 ^^ meta.flow-sequence.yaml meta.embedded.expression.jinja
#                                         ^ meta.flow-mapping.yaml punctuation.definition.mapping.end.yaml
nested: {{ {'a': {'b': [1, 2]}}['a'] | tojson }}
#       ^^ meta.embedded.expression.jinja punctuation.section.embedded.begin.jinja
#          ^ meta.embedded.expression.jinja meta.mapping.jinja punctuation.section.mapping.begin.jinja
#                ^ meta.embedded.expression.jinja meta.mapping.jinja meta.mapping.jinja punctuation.section.mapping.begin.jinja
#                            ^ meta.embedded.expression.jinja meta.mapping.jinja meta.mapping.jinja punctuation.section.mapping.end.jinja
#                             ^ meta.embedded.expression.jinja meta.mapping.jinja punctuation.section.mapping.end.jinja
#                              ^^^^^ meta.embedded.expression.jinja - meta.mapping.jinja
#                                      ^^^^^^ support.function.filter.jinja
#                                             ^^ meta.embedded.expression.jinja punctuation.section.embedded.end.jinja
ws: {{- value -}}
#   ^^ punctuation.section.embedded.begin.jinja
#     ^ punctuation.section.embedded.begin.jinja keyword.operator.whitespace-control.jinja
#             ^ punctuation.section.embedded.end.jinja keyword.operator.whitespace-control.jinja
#              ^^ punctuation.section.embedded.end.jinja
multi: {{ salt['cmd.run'](
#         ^^^^ variable.language.salt.jinja
#                        ^ punctuation.section.group.begin.jinja
          'hostname') }}
#         ^^^^^^^^^^ meta.embedded.expression.jinja string.quoted.single.jinja
#                     ^^ meta.embedded.expression.jinja punctuation.section.embedded.end.jinja
next: 1
# <---- entity.name.tag.yaml
ops: {{ 2 ** 3 // 2 % 5 != 1 and x is defined or not y in z }}
#         ^^ keyword.operator.arithmetic.jinja
#              ^^ keyword.operator.arithmetic.jinja
#                   ^ keyword.operator.arithmetic.jinja
#                       ^^ keyword.operator.comparison.jinja
#                            ^^^ keyword.operator.word.jinja
#                                  ^^ keyword.operator.word.jinja
#                                     ^^^^^^^ support.function.test.jinja
#                                             ^^ keyword.operator.word.jinja
#                                                ^^^ keyword.operator.word.jinja
#                                                      ^^ keyword.operator.word.jinja
