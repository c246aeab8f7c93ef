//! The inputs of a revision and what is cached per file: the disk and the open buffers
//! (`files`, `memory`), the open documents' incremental trees (`document`), the workspace's
//! configuration and file roots (`world`), per-file summaries (`summaries`), Salt's state
//! documentation (`docs`) and the change log (`changes`). Nothing here knows a query.

pub(crate) mod changes;
pub(crate) mod docs;
pub(crate) mod document;
pub(crate) mod files;
pub(crate) mod memory;
pub(crate) mod summaries;
pub(crate) mod world;
