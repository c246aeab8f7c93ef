//! Salt's semantics as pure functions over a file-system view, one folder per Salt concern:
//! where files and minions come from (`workspace`), which minion gets which SLS (`targeting`),
//! turning a file into data (`render`), the state compiler (`state`), the checks built on them
//! (`check`), what a change does to each minion (`impact`), and the Python behaviour Salt's answers depend on (`py`). `pipeline` is the one
//! place that compiles a minion from all of them. Nothing here does I/O except through
//! [`workspace::vfs::Vfs`], and nothing executes a Salt module.

// `SaltError` is what this crate produces, not an exceptional path: a tree with mistakes yields
// many, and boxing each (to shrink `Result`) would cost an allocation apiece for nothing.
#![allow(clippy::result_large_err)]

pub mod check;
pub mod diagnostic;
pub mod impact;
pub mod mapstack;
pub mod pillar;
pub mod pipeline;
pub mod py;
pub mod render;
pub mod requisites;
pub mod state;
pub mod targeting;
pub mod value;
pub mod version;
pub mod workspace;
