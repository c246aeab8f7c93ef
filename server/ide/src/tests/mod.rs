//! In-process tests across features, on `#- path` fixtures with `$0` cursors: diagnostics as
//! edits come and go, the selected minion's highstate, gitfs, code actions and the minion
//! picker, and the structure requests (folding, selection, highlight, signature help). A
//! feature's own tests sit beside it (`features/hover/tests.rs`).

mod actions;
mod diagnostics;
mod gitfs;
mod highstate;
mod structure;
