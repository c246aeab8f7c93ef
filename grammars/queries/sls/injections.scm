; Tree-sitter injections for SaltStack SLS files in Neovim.
;
; Assumed parsers (all from nvim-treesitter, `:TSInstall jinja yaml`):
;   jinja         cathaysia/tree-sitter-jinja, the host: an SLS file is a Jinja
;                 template first, and Salt renders it before YAML sees it. The
;                 plugin registers the language `sls` with this parser for the
;                 `salt` filetype.
;   yaml          tree-sitter-grammars/tree-sitter-yaml, injected below.
;   jinja_inline  not needed here. nvim-treesitter lists it as a dependency of
;                 `jinja` for Jinja *line statements*, which that grammar starts
;                 with "# ". Salt does not enable line statements by default, and
;                 in an SLS file "# for ..." is a YAML comment, so those lines go
;                 to YAML as well.
;
; Why not YAML as the host with Jinja injected: tree-sitter-yaml cannot parse
; `{% ... %}` lines, and an SLS file that starts with `{% set %}` comes out as a
; single ERROR node. Here the Jinja parser splits the file into template tags and
; the text between them; that text, with its indentation, is handed to one YAML
; parse (injection.combined), so the YAML structure spans the Jinja blocks.

((content) @injection.content
  (#set! injection.language "yaml")
  (#set! injection.combined))

((inline) @injection.content
  (#set! injection.language "yaml")
  (#set! injection.combined))

((comment) @injection.content
  (#set! injection.language "comment"))
