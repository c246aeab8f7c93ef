//! Text to trees: Jinja masking, spanned YAML values, an incremental CST and positions.
//! No Salt semantics and no LSP types live here.

pub mod document;
pub mod jinja;
pub mod jinja_lex;
pub mod line_index;
pub mod python;
pub mod text_diff;
pub mod yaml;
pub mod yaml_reuse;
