//! One file per editor query, each a function of a [`Snapshot`](crate::snapshot::Snapshot)
//! returning plain data (`crate::types`): hover, navigation, completion, symbols, code
//! actions, diagnostics, the impact of the uncommitted changes and the fleet's lenses.

pub(crate) mod code_actions;
pub(crate) mod completion;
pub(crate) mod diagnostics;
pub(crate) mod fleet;
pub(crate) mod hover;
pub(crate) mod impact;
pub(crate) mod navigation;
pub(crate) mod symbols;
