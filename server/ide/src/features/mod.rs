//! One file per editor query, each a function of a [`Snapshot`](crate::snapshot::Snapshot)
//! returning plain data (`crate::types`): hover, navigation, completion, symbols, code
//! actions, diagnostics, the impact of the uncommitted changes, the fleet's lenses, the inlay
//! hints of rendered values, rename, semantic tokens, document links, folding and selection
//! ranges, document highlight, signature help and the requisite graph as a call hierarchy.

pub(crate) mod call_hierarchy;
pub(crate) mod code_actions;
pub(crate) mod completion;
pub(crate) mod diagnostics;
pub(crate) mod fleet;
pub(crate) mod folding;
pub(crate) mod highlight;
pub(crate) mod hover;
pub(crate) mod impact;
pub(crate) mod inlay_hints;
pub(crate) mod links;
pub(crate) mod navigation;
pub(crate) mod rename;
pub(crate) mod rename_files;
pub(crate) mod selection;
pub(crate) mod semantic_tokens;
pub(crate) mod signature_help;
pub(crate) mod symbols;
