//! The cross-file index over the `db` inputs: every root SLS file's check (`semantic`) and the
//! selected minion's highstate diagnostics (`highstate`), brought up to a revision by replaying
//! the change log.

pub(crate) mod highstate;
pub(crate) mod semantic;
