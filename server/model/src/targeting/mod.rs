//! Which minion gets which SLS: top-file compilation (`salt/state.py`'s `get_tops`,
//! `merge_tops`, `verify_tops`, `top_matches`) and the target matchers (`salt/matchers/`).

pub mod matchers;
pub mod top;
