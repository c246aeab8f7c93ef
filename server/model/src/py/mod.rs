//! Python behaviour Salt's answers depend on, written once for every concern that needs it:
//! `fnmatch`, `re` patterns, builtins such as `str()`, `int()` and `repr()`, and the JSON and
//! YAML text `json.dumps` and PyYAML print. The dict-merge
//! strategies that pillar and mapstack share (`salt/utils/dictupdate.py`) belong here too.

pub mod builtins;
pub mod dump;
pub mod fnmatch;
pub mod re;
