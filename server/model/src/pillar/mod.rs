//! The minion's pillar as Salt's master computes it: the configured ext_pillar entries
//! (`ext`) and the SQL ext_pillar processing (`sql_base`).

pub mod ext;
pub mod sql_base;
