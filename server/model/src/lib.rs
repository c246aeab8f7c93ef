//! Salt's semantics as pure functions over a file-system view: config, file roots,
//! SLS resolution, includes, high data, requisites, ordering, top files and matchers.

pub mod check;
pub mod compile;
pub mod config;
pub mod errors;
pub mod extend;
pub mod fnmatch;
pub mod highstate;
pub mod jinja_render;
pub mod lowstate;
pub mod matchers;
pub mod minion;
pub mod order;
pub mod recheck;
pub mod render;
pub mod requisites;
pub mod roots;
pub mod summary;
pub mod top;
pub mod top_check;
pub mod value;
pub mod verify;
pub mod vfs;
pub mod workspace;
