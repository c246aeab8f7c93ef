//! Salt's state compiler (`salt/state.py`: `BaseHighState`, `State`): assembling high data from
//! SLS files and their includes, `verify_high`, compiling to low chunks, `extend` / `_in` /
//! `exclude`, the requisite graph and ordering, the run order of `state.apply`, the contents `file.managed` states would write, and the `show_low_sls` / `show_lowstate`
//! pipelines built from them.

pub mod calls;
pub mod catalog;
pub mod chunk;
pub mod compile;
pub mod extend;
pub mod highstate;
pub mod lowstate;
pub mod managed;
pub mod order;
pub mod patch;
pub mod run;
pub mod verify;
pub mod walk;
