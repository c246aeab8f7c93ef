# SYNTAX TEST "source.sls" "Jinja statements, comments and whitespace control on their own lines"
{% if grains['os_family'] == 'Debian' %}
# <-- meta.embedded.statement.jinja punctuation.section.embedded.begin.jinja
#  ^^ meta.embedded.statement.jinja keyword.control.jinja
#     ^^^^^^ meta.embedded.statement.jinja variable.language.salt.jinja
#           ^ punctuation.section.brackets.begin.jinja
#            ^^^^^^^^^^^ string.quoted.single.jinja
#                         ^^ keyword.operator.comparison.jinja
#                            ^^^^^^^^ string.quoted.single.jinja
#                                     ^^ meta.embedded.statement.jinja punctuation.section.embedded.end.jinja
{%- set port = 8080 + 1 -%}
# <-- meta.embedded.statement.jinja punctuation.section.embedded.begin.jinja
# ^ punctuation.section.embedded.begin.jinja keyword.operator.whitespace-control.jinja
#   ^^^ keyword.control.jinja
#       ^^^^ variable.other.jinja
#            ^ keyword.operator.assignment.jinja
#              ^^^^ constant.numeric.jinja
#                   ^ keyword.operator.arithmetic.jinja
#                     ^ constant.numeric.jinja
#                       ^ punctuation.section.embedded.end.jinja keyword.operator.whitespace-control.jinja
#                        ^^ punctuation.section.embedded.end.jinja
{%+ else %}
# ^ punctuation.section.embedded.begin.jinja keyword.operator.whitespace-control.jinja
#   ^^^^ keyword.control.jinja
{% endif %}
#  ^^^^^ keyword.control.jinja
#        ^^ punctuation.section.embedded.end.jinja - keyword.operator.whitespace-control.jinja
{%- from tpldir ~ "/map.jinja" import mapdata with context %}
#   ^^^^ keyword.control.jinja
#        ^^^^^^ variable.language.salt.jinja
#               ^ keyword.operator.concatenation.jinja
#                 ^^^^^^^^^^^^ string.quoted.double.jinja
#                              ^^^^^^ keyword.control.jinja
#                                     ^^^^^^^ variable.other.jinja
#                                             ^^^^ keyword.control.jinja
#                                                  ^^^^^^^ keyword.control.jinja
{%- import_yaml "defaults.yaml" as defaults %}
#   ^^^^^^^^^^^ keyword.control.jinja
#                               ^^ keyword.control.jinja
{%- for name, user in pillar.get('users', {}).items() if user is not none %}
#   ^^^ keyword.control.jinja
#           ^ punctuation.separator.comma.jinja
#                  ^^ keyword.operator.word.jinja
#                     ^^^^^^ variable.language.salt.jinja
#                           ^ punctuation.accessor.jinja
#                            ^^^ entity.name.function.jinja
#                               ^ punctuation.section.group.begin.jinja
#                                         ^^ meta.mapping.jinja
#                                            ^ punctuation.accessor.jinja
#                                             ^^^^^ entity.name.function.jinja
#                                                     ^^ keyword.control.jinja
#                                                             ^^ keyword.operator.word.jinja
#                                                                ^^^ keyword.operator.word.jinja
#                                                                    ^^^^ support.function.test.jinja
{%- endfor %}
#   ^^^^^^ keyword.control.jinja
{#- a Jinja comment: {{ not rendered }} -#}
# <-- comment.block.jinja punctuation.definition.comment.begin.jinja
# ^ comment.block.jinja keyword.operator.whitespace-control.jinja
#  ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^ comment.block.jinja - meta.embedded entity.name.tag
#                                       ^ comment.block.jinja punctuation.definition.comment.end.jinja keyword.operator.whitespace-control.jinja
#                                        ^^ comment.block.jinja punctuation.definition.comment.end.jinja
{#
  a comment over
  several lines: key: value
# ^^^^^^^^^^^^^^^^^^^^^^^^^ comment.block.jinja - entity.name.tag
#}
# <-- comment.block.jinja punctuation.definition.comment.end.jinja
after: comment
# <----- entity.name.tag.yaml - comment
{%- set config = {
#                ^ meta.embedded.statement.jinja meta.mapping.jinja punctuation.section.mapping.begin.jinja
      'nested': {'inner': [1, 2.5, true, None]},
#     ^^^^^^^^ meta.mapping.jinja string.quoted.single.jinja
#               ^ meta.mapping.jinja meta.mapping.jinja punctuation.section.mapping.begin.jinja
#                         ^ punctuation.section.brackets.begin.jinja
#                          ^ constant.numeric.jinja
#                             ^^^ constant.numeric.jinja
#                                  ^^^^ constant.language.jinja
#                                        ^^^^ constant.language.jinja
#                                             ^ meta.mapping.jinja meta.mapping.jinja punctuation.section.mapping.end.jinja
#                                              ^ meta.mapping.jinja punctuation.separator.comma.jinja
    } %}
#   ^ meta.embedded.statement.jinja meta.mapping.jinja punctuation.section.mapping.end.jinja
#     ^^ meta.embedded.statement.jinja punctuation.section.embedded.end.jinja
{% raw %}{{ literal }}: {% not jinja %}{% endraw %}
#  ^^^ keyword.control.jinja
#        ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^ string.unquoted.raw.jinja - meta.embedded entity.name.tag
#                                         ^^^^^^ keyword.control.jinja
{%- load_yaml as settings %}
#   ^^^^^^^^^ keyword.control.jinja
port: {{ port }}
# <---- entity.name.tag.yaml
{%- endload %}
#   ^^^^^^^ keyword.control.jinja
{{ salt['slsutil.renderer']('x.sls') }}
# <-- meta.embedded.expression.jinja punctuation.section.embedded.begin.jinja
#  ^^^^ variable.language.salt.jinja
#                          ^ punctuation.section.group.begin.jinja
#                                    ^^ meta.embedded.expression.jinja punctuation.section.embedded.end.jinja
