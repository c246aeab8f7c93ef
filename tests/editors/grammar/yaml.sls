# SYNTAX TEST "source.sls" "Plain YAML: comments, keys, scalars, anchors, aliases, tags, documents"
%YAML 1.1
# <- meta.directive.yaml punctuation.definition.directive.begin.yaml
---
# <--- entity.other.document.begin.yaml
# a comment with {{ jinja }}, which Salt still renders
# <- comment.line.number-sign.yaml punctuation.definition.comment.yaml
#                ^^ comment.line.number-sign.yaml meta.embedded.expression.jinja punctuation.section.embedded.begin.jinja
#                           ^^^^^^^ comment.line.number-sign.yaml - meta.embedded
base: &defaults
# <---- entity.name.tag.yaml
#     ^ punctuation.definition.anchor.yaml
#      ^^^^^^^^ entity.name.type.anchor.yaml
  enabled: yes
#          ^^^ constant.language.boolean.yaml
  disabled: Off  # YAML 1.1 booleans, as PyYAML reads them
#           ^^^ constant.language.boolean.yaml
#                ^ comment.line.number-sign.yaml
  nothing: ~
#          ^ constant.language.null.yaml
  none: null
#       ^^^^ constant.language.null.yaml
  count: -42
#        ^^^ constant.numeric.integer.yaml
  ratio: 0.5
#        ^^^ constant.numeric.float.yaml
  octal: 0644
#        ^^^^ constant.numeric.integer.yaml
  version: 1.2.3
#          ^^^^^ string.unquoted.plain.out.yaml - constant.numeric
  word: true story
#       ^^^^^^^^^^ string.unquoted.plain.out.yaml - constant.language
other:
  <<: *defaults
# ^^ entity.name.tag.yaml
#     ^ variable.other.alias.yaml punctuation.definition.alias.yaml
#      ^^^^^^^^ variable.other.alias.yaml
  text: !!str 123
#       ^^^^^ storage.type.tag.yaml
#             ^^^ constant.numeric.integer.yaml
  escaped: "tab\t bad\d {{ "ok" }}"
#              ^^ constant.character.escape.yaml
#                    ^^ invalid.illegal.character.escape.yaml
#                          ^^^^ string.quoted.double.yaml meta.embedded.expression.jinja string.quoted.double.jinja
  single: 'it''s # not a comment'
#            ^^ constant.character.escape.yaml
#                ^^^^^^^^^^^^^^^ string.quoted.single.yaml - comment
  hash: a#b
#       ^^^ string.unquoted.plain.out.yaml - comment
  url: http://example.com:8080/x
#      ^^^^^^^^^^^^^^^^^^^^^^^^^ string.unquoted.plain.out.yaml
  flow: [a, 'b', 3, {k: v}]
#        ^ string.unquoted.plain.in.yaml
#           ^^^ string.quoted.single.yaml
#                ^ constant.numeric.integer.yaml
#                    ^ meta.flow-mapping.yaml entity.name.tag.yaml
#                       ^ string.unquoted.plain.in.yaml
  - -x
# ^ punctuation.definition.block.sequence.item.yaml
#   ^^ string.unquoted.plain.out.yaml
...
# <--- entity.other.document.end.yaml
