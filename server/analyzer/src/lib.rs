//! The salt-analyzer library behind the binary: the language server (`lsp`). The CLI lives in
//! the binary (`cli.rs`); both only convert and call `model` / `ide`.

pub mod lsp;
pub mod saltcall;
