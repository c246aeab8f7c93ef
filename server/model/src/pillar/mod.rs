//! The minion's pillar as Salt's master computes it: the SQL ext_pillar processing
//! (`sql_base`).

pub mod sql_base;
