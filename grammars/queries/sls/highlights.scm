; Highlights for the `sls` language: the jinja parser as host (see injections.scm).
; The YAML between the tags is highlighted by the injected yaml tree with the yaml
; queries (nvim-treesitter's). Neovim draws an injected tree after its host, and
; YAML paints quoted strings, block scalars and comments right across the Jinja
; inside them; so every capture here sets a priority above the default (100).
;
; Only node names present in both jinja revisions nvim-treesitter pins (master
; 9af6ce9 and main c213d37) are used, so this file itself parses with either;
; the plugin still enables tree-sitter only for parsers that have `content`.

((identifier) @variable
  (#set! priority 110))

(([
  "{{"
  "{{-"
  "{{+"
  "}}"
  "-}}"
  "+}}"
  "{%"
  "{%-"
  "{%+"
  "%}"
  "-%}"
  "+%}"
] @keyword.directive)
  (#set! priority 110))

((comment) @comment @spell
  (#set! priority 110))

((string_literal) @string
  (#set! priority 110))

((number_literal) @number
  (#set! priority 110))

((float_literal) @number.float
  (#set! priority 110))

((boolean_literal) @boolean
  (#set! priority 110))

((null_literal) @constant.builtin
  (#set! priority 110))

(([
  (binary_operator)
  (unary_operator)
] @operator)
  (#set! priority 110))

(([
  ","
  "."
  ":"
] @punctuation.delimiter)
  (#set! priority 110))

(([
  "("
  ")"
  "["
  "]"
  "{"
  "}"
] @punctuation.bracket)
  (#set! priority 110))

(([
  "if"
  "elif"
  "else"
  "endif"
] @keyword.conditional)
  (#set! priority 110))

(([
  "for"
  "endfor"
  "in"
  "recursive"
  "continue"
  "break"
] @keyword.repeat)
  (#set! priority 110))

(([
  "import"
  "from"
  "include"
  "extends"
  "as"
  "with"
  "without"
  "context"
  "ignore"
  "missing"
] @keyword.import)
  (#set! priority 110))

(([
  "set"
  "endset"
  "macro"
  "endmacro"
  "call"
  "endcall"
  "filter"
  "endfilter"
  "block"
  "endblock"
  "endwith"
  "do"
  "trans"
  "endtrans"
  "pluralize"
  "autoescape"
  "endautoescape"
  "debug"
] @keyword)
  (#set! priority 110))

(([
  "and"
  "or"
  "not"
] @keyword.operator)
  (#set! priority 110))

((function_call
  (identifier) @function.call)
  (#set! priority 110))

((arg
  (identifier) @variable.parameter)
  (#set! priority 110))

; Names Salt puts in every template's context.
((identifier) @variable.builtin
  (#any-of? @variable.builtin
    "salt" "grains" "pillar" "opts" "saltenv" "env" "sls" "slspath" "sls_path" "slsdotpath"
    "slscolonpath" "tplpath" "tpldir" "tplfile" "tpldot" "tplroot" "proxy")
  (#set! priority 110))

(([
  (raw_start)
  (raw_end)
] @keyword.directive)
  (#set! priority 110))

((raw_body) @markup.raw.block @nospell
  (#set! priority 110))
