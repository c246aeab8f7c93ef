//! Python behaviour Salt's answers depend on, written once for every concern that needs it:
//! `fnmatch`, `re` patterns, `json.dumps`, YAML text (`dump`: PyYAML's Python emitter, as Salt's
//! `yaml` filter prints; `yaml_dump`: libyaml's, as Salt's YAML serializer prints), builtins
//! such as `str()`, `int()`, `repr()` and the `%` operator (`percent`), and `textwrap.wrap`;
//! and the dict-merge strategies templates, pillar and mapstack share
//! (`salt/utils/dictupdate.py`, in `dictupdate`) and the key-path walk of
//! `salt/utils/data.py` (in `data`).

pub mod builtins;
pub mod data;
pub mod dictupdate;
pub mod dump;
pub mod fnmatch;
pub mod json;
pub mod path;
pub mod percent;
pub mod re;
pub mod textwrap;
pub mod yaml_dump;
