//! Salt subjects the queries share, each over a [`Snapshot`](crate::snapshot::Snapshot): what a
//! position resolves to (`resolve`), minion profiles and the top (`top`), the fleet's tops
//! (`fleet`), pillar (`pillar`), formula parameters (`mapstack`), Jinja blocks' values
//! (`jinja`) and Salt's state documentation (`statedocs`).

pub(crate) mod fleet;
pub(crate) mod jinja;
pub(crate) mod mapstack;
pub(crate) mod pillar;
pub(crate) mod resolve;
pub(crate) mod statedocs;
pub(crate) mod top;
