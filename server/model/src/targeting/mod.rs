//! Which minion gets which SLS: top-file compilation (`salt/state.py`'s `get_tops`,
//! `merge_tops`, `verify_tops`, `top_matches`) and the target matchers (`salt/matchers/`).

pub mod matchers;
pub mod top;

/// The requested SLS per environment (`{saltenv: [sls, ...]}` for `state.sls`, or the
/// compiled top for a highstate). Order matters.
pub type Matches = indexmap::IndexMap<String, Vec<String>>;
