//! Where the analysis reads from: the file-system view (`vfs`), Salt's configuration
//! (`config`), the workspace file `salt-analyzer.yaml` (`file`), file roots per environment
//! (`roots`) and minion profiles (`minion`).

pub mod config;
pub mod file;
pub mod minion;
pub mod roots;
pub mod vfs;

pub use file::{Profile, Workspace, WORKSPACE_FILE};
