//! What the selected minion gets, explained where a feature asks (each over a
//! [`Snapshot`](crate::snapshot::Snapshot)): minion profiles and the top file's choices
//! (`top_files`), which fleet minions each top target matches (`fleet_tops`), pillar values and
//! where they came from (`pillar`), formula parameters layer by layer (`mapstack`), the values
//! of a file's Jinja blocks (`jinja_values`) and Salt's state documentation (`state_docs`).

pub(crate) mod fleet_tops;
pub(crate) mod jinja_values;
pub(crate) mod mapstack;
pub(crate) mod pillar;
pub(crate) mod state_docs;
pub(crate) mod top_files;
