//! The editor API: an [`AnalysisHost`] that owns open documents layered over the disk and
//! hands out cheap read-only [`Analysis`] snapshots, whose queries return plain data with
//! byte ranges (no protocol types). See docs/ARCHITECTURE.md.

mod analysis;
mod classify;
mod cursor;
mod explain;
mod features;
mod findings;
#[cfg(test)]
mod fixture;
mod host;
mod index;
mod inputs;
mod resolve;
mod snapshot;
#[cfg(test)]
mod tests;
mod types;

pub use analysis::Analysis;
pub use features::call_hierarchy::{HierarchyCall, HierarchyItem};
pub use features::completion::{CompletionItem, CompletionKind};
pub use features::diagnostics::shift_diagnostics;
pub use features::fleet::FleetCheck;
pub use features::impact::{ImpactBase, ImpactReport};
pub use features::inlay_hints::{InlayConfig, InlayHint, InlayKind};
pub use host::AnalysisHost;
pub use index::semantic::IndexStats;
pub use inputs::docs::{DocsStatus, StateDocs};
pub use inputs::memory::MemoryDisk;
pub use types::*;
