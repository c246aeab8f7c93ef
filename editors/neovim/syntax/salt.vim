" Vim syntax file
" Language:    SaltStack SLS (YAML with embedded Jinja)
" Origin:      salt-analyzer, editors/neovim/syntax/salt.vim
"
" The regex highlighting used when tree-sitter is off or its parsers are
" missing (see lua/salt-analyzer/settings.lua). YAML comes from the runtime's
" syntax/yaml.vim; Jinja is defined here and may appear inside any YAML item
" (keys, plain and quoted scalars, block scalars, flow collections, comments),
" because Salt renders the template before YAML reads it.

if exists('b:current_syntax')
  finish
endif

runtime! syntax/yaml.vim
unlet! b:current_syntax

syn case match

syn cluster saltJinjaInner contains=saltJinjaString,saltJinjaNumber,saltJinjaConstant,saltJinjaOperator,
      \saltJinjaWordOperator,saltJinjaKeyword,saltJinjaFilter,saltJinjaTest,saltJinjaSaltVar,saltJinjaFunction,
      \saltJinjaParen,saltJinjaBracket,saltJinjaBrace

" {# comment #}, {#- trimmed -#}
syn region saltJinjaComment matchgroup=saltJinjaCommentDelim start=/{#[-+]\=/ end=/[-+]\=#}/
      \ containedin=ALLBUT,@saltJinjaAll contains=@Spell extend

" {% raw %} ... {% endraw %}: literal text
syn region saltJinjaRaw matchgroup=saltJinjaDelim start=/{%[-+]\=\s*raw\s*[-+]\=%}/ end=/{%[-+]\=\s*endraw\s*[-+]\=%}/
      \ containedin=ALLBUT,@saltJinjaAll extend

" {% tag ... %}: the first word is the tag
syn region saltJinjaStatement matchgroup=saltJinjaDelim start=/{%[-+]\=/ end=/[-+]\=%}/
      \ containedin=ALLBUT,@saltJinjaAll contains=saltJinjaTag,@saltJinjaInner extend
syn match saltJinjaTag /\%({%[-+]\=\s*\)\@<=\h\w*/ contained

" {{ expression }}
syn region saltJinjaExpression matchgroup=saltJinjaDelim start=/{{[-+]\=/ end=/[-+]\=}}/
      \ containedin=ALLBUT,@saltJinjaAll contains=@saltJinjaInner extend

" Nested (), [] and {} so that `{{ {'a': {'b': 1}} }}` ends at the right `}}`.
syn region saltJinjaParen   matchgroup=saltJinjaPunct start=/(/ end=/)/ contained contains=@saltJinjaInner
syn region saltJinjaBracket matchgroup=saltJinjaPunct start=/\[/ end=/]/ contained contains=@saltJinjaInner
syn region saltJinjaBrace   matchgroup=saltJinjaPunct start=/{/ end=/}/ contained contains=@saltJinjaInner

syn region saltJinjaString start=/"/ skip=/\\\\\|\\"/ end=/"/ contained
syn region saltJinjaString start=/'/ skip=/\\\\\|\\'/ end=/'/ contained
syn match saltJinjaNumber /\<\d[0-9_]*\%(\.\d[0-9_]*\)\=\%([eE][-+]\=\d\+\)\=\>/ contained
syn keyword saltJinjaConstant true false none True False None contained
syn keyword saltJinjaWordOperator and or not in is contained
syn keyword saltJinjaKeyword if else elif for recursive as import from with without context ignore missing scoped contained
syn match saltJinjaOperator /==\|!=\|<=\|>=\|[<>=~+*/%-]/ contained
syn match saltJinjaFilter /|\s*\h\w*/ contained contains=saltJinjaPipe
syn match saltJinjaPipe /|/ contained
syn match saltJinjaTest /\<is\s\+\%(not\s\+\)\=\zs\h\w*/ contained
syn match saltJinjaFunction /\<\h\w*\ze\s*(/ contained
" Names Salt puts in every template's context.
syn keyword saltJinjaSaltVar salt grains pillar opts saltenv env sls slspath sls_path slsdotpath slscolonpath
      \ tplpath tpldir tplfile tpldot tplroot proxy contained

" A block mapping key with Jinja in it (`install-{{ pkg }}:`), which yaml.vim's
" key pattern cannot see through.
syn match saltJinjaKey /^\s*\%(-\s\+\)*\zs\%([^ \t:#{'"]\|:\S\)*\%({{.\{-}}}\%([^ \t:#{]\|:\S\)*\)\+\ze\s*:\%(\s\|$\)/
      \ contains=saltJinjaExpression nextgroup=yamlBlockMappingDelimiter

syn cluster saltJinjaAll contains=saltJinjaKey,saltJinjaComment,saltJinjaRaw,saltJinjaStatement,saltJinjaExpression,
      \saltJinjaTag,@saltJinjaInner,saltJinjaPipe

hi def link saltJinjaKey           yamlBlockMappingKey
hi def link saltJinjaDelim         PreProc
hi def link saltJinjaCommentDelim  Comment
hi def link saltJinjaComment       Comment
hi def link saltJinjaRaw           String
hi def link saltJinjaTag           Statement
hi def link saltJinjaKeyword       Keyword
hi def link saltJinjaWordOperator  Operator
hi def link saltJinjaOperator      Operator
hi def link saltJinjaPipe          Operator
hi def link saltJinjaString        String
hi def link saltJinjaNumber        Number
hi def link saltJinjaConstant      Constant
hi def link saltJinjaFilter        Function
hi def link saltJinjaTest          Function
hi def link saltJinjaFunction      Function
hi def link saltJinjaSaltVar       Identifier
hi def link saltJinjaPunct         Delimiter

let b:current_syntax = 'salt'
