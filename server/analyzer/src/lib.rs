//! The salt-analyzer library behind the binary: the language server (`lsp`), and the codes
//! table of docs/cli.md with the rule pages of docs/rules (`codes_doc`). The CLI lives in
//! the binary (`cli/`, a file per command); both only convert and call `model` / `ide`.

pub mod codes_doc;
pub mod lsp;
pub mod saltcall;
