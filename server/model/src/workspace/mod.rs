//! Where the analysis reads from: the file-system view (`vfs`), Salt's configuration
//! (`config`), the roots found in a repository without configuration (`discover`), the workspace file `salt-analyzer.yaml` (`file`, its keys: `keys`), file roots per environment
//! (`roots`), the gitfs backend's remotes and saltenvs (`gitfs`), minion profiles (`minion`), the
//! fleet a master knows (`fleet`), the Salt extensions the minions have (`saltexts`), which
//! findings are reported (`rules`, and a `.salt-lint` file: `saltlint`), and the record of what
//! a result read (`reads`; its vocabulary, below `vfs`, is `readlog`).

pub mod config;
pub mod discover;
pub mod facts;
pub mod file;
pub mod fleet;
pub mod gitfs;
pub mod keys;
pub mod minion;
pub mod readlog;
pub mod reads;
pub mod roots;
pub mod rules;
pub mod saltexts;
pub mod saltlint;
pub mod sql;
pub mod vfs;

pub use file::{Profile, Workspace, WORKSPACE_FILE};
