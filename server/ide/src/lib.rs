//! The editor API: an [`AnalysisHost`] that owns open documents layered over the disk and
//! hands out cheap read-only [`Analysis`] snapshots, whose queries return plain data with
//! byte ranges (no protocol types). See docs/ARCHITECTURE.md.

mod analysis;
mod code_actions;
mod completion;
mod diagnostics;
mod document;
mod files;
#[cfg(test)]
mod fixture;
mod fleet;
mod highstate;
mod host;
mod hover;
mod impact;
mod jinja;
mod mapstack;
mod memory;
mod navigation;
mod pillar;
mod resolve;
mod semantic;
mod statedocs;
mod summaries;
mod symbols;
#[cfg(test)]
mod tests;
mod top;
mod types;
mod world;

pub use analysis::Analysis;
pub use completion::{CompletionItem, CompletionKind};
pub use diagnostics::shift_diagnostics;
pub use fleet::FleetCheck;
pub use host::AnalysisHost;
pub use impact::{ImpactBase, ImpactReport};
pub use memory::MemoryDisk;
pub use semantic::IndexStats;
pub use statedocs::{DocsStatus, StateDocs};
pub use types::*;
