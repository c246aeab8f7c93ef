//! Python behaviour Salt's answers depend on, written once for every concern that needs it:
//! `fnmatch`, `re` patterns, `json.dumps`, `yaml.dump` (libyaml's emitter), and builtins such
//! as `str()`, `int()` and `repr()`; and the dict-merge strategies templates, pillar and
//! mapstack share (`salt/utils/dictupdate.py`, in `dictupdate`) and the key-path walk of
//! `salt/utils/data.py` (in `data`).

pub mod builtins;
pub mod data;
pub mod dictupdate;
pub mod fnmatch;
pub mod json;
pub mod re;
pub mod yaml_dump;
