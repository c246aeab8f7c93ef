//! In-process tests across features, on `#- path` fixtures with `$0` cursors: diagnostics as
//! edits come and go, the selected minion's highstate, gitfs, and the structure requests
//! (folding, selection, highlight, signature help). A feature's own tests sit beside it
//! (`features/hover/tests.rs`).

mod diagnostics;
mod gitfs;
mod highstate;
mod structure;
