//! What `map.data` gives for a minion ([`MapData`]: the values, every layer tried and who set
//! each value), the vocabulary the stack, both flavours and the report share ([`Layer`],
//! [`Stage`], [`Status`], which [`Implementation`] a formula uses), and the sources each
//! implementation starts from.

use serde_json::{json, Map, Value};

use super::origin::Origins;
use crate::diagnostic::SaltError;
use crate::workspace::vfs::FileTable;

/// Which implementation a formula's `map.jinja` uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Implementation {
    /// saltext-formula's `salt["map.data"](tpldir)`.
    Saltext,
    /// template-formula's `libmapstack.jinja`.
    Jinja,
    /// A `map.jinja` that builds its map itself (`import_yaml`, `grains.filter_by`,
    /// `pillar.get` with `merge=True`): what it exports, as the formula's `_mapdata` dumps it.
    MapJinja,
    /// No map at all: no `map.jinja`, no `parameters/`.
    NoMap,
}

impl Implementation {
    pub fn as_str(self) -> &'static str {
        match self {
            Implementation::Saltext => "saltext",
            Implementation::Jinja => "jinja",
            Implementation::MapJinja => "map.jinja",
            Implementation::NoMap => "none",
        }
    }
}

/// Which of `map.data`'s two stacks a layer belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    /// The meta configuration (`map_jinja.yaml`), which becomes `mapdata.map_jinja`.
    MapJinja,
    /// The formula's configuration.
    Formula,
}

impl Stage {
    pub fn as_str(self) -> &'static str {
        match self {
            Stage::MapJinja => "map_jinja",
            Stage::Formula => "formula",
        }
    }
}

/// What became of a layer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// Merged.
    Loaded,
    /// No such file, or the lookup found nothing.
    Missing,
    /// A file without `values`: skipped.
    Empty,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Loaded => "loaded",
            Status::Missing => "missing",
            Status::Empty => "empty",
        }
    }
}

/// One layer: a candidate file of a YAML source, or a lookup merged as it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Layer {
    pub stage: Stage,
    /// The data source as written (`Y!G@os_family`).
    pub source: String,
    /// The `salt://` path of a candidate file (`tpl/parameters/os_family/Debian.yaml`).
    pub path: Option<String>,
    /// Where that file is.
    pub file: Option<std::path::PathBuf>,
    pub status: Status,
    /// The strategy and `merge_lists` it was merged with.
    pub strategy: Option<String>,
    pub merge_lists: Option<bool>,
}

/// What `map.data` gives for a minion.
pub struct MapData {
    /// Whose rules computed it.
    pub implementation: Implementation,
    /// What `salt["map.data"](tpldir)` returns, or the error Salt raises.
    pub values: Result<Value, SaltError>,
    /// Every layer tried, in order (index 0: `map.data`'s built-in meta configuration).
    pub layers: Vec<Layer>,
    /// Who set each value of `values`.
    pub origins: Option<Origins>,
    /// What was not analysed (a `post-map.jinja`, Salt functions a layer template called).
    pub notes: Vec<SaltError>,
}

/// saltext-formula's `DEFAULT_MATCHERS`.
const DEFAULT_SOURCES: [&str; 6] = ["Y!G@osarch", "Y!G@os_family", "Y!G@os", "Y!G@osfinger", "C@{tplroot}", "Y!G@id"];

/// template-formula's `map.jinja`'s `map_sources`.
const JINJA_SOURCES: [&str; 7] = ["Y:G@osarch", "Y:G@os_family", "Y:G@os", "Y:G@osfinger", "C@{tplroot}:lookup", "C@{tplroot}", "Y:G@id"];

/// The sources `implementation` uses when no `map_jinja.yaml` sets any (without the
/// `defaults.yaml` both put first).
pub fn default_sources(implementation: Implementation, tplroot: &str) -> Vec<String> {
    let list: &[&str] = match implementation {
        Implementation::Saltext => &DEFAULT_SOURCES,
        Implementation::Jinja => &JINJA_SOURCES,
        Implementation::MapJinja | Implementation::NoMap => &[],
    };
    list.iter().map(|s| s.replace("{tplroot}", tplroot)).collect()
}

/// The top-level name under a parameter directory (`os_family` for `Y!G@os_family`, a
/// directory or a `.yaml` file) that `source` can load files from; `None` for a source that
/// loads no files (a lookup merged as it is) or that does not parse.
pub fn selectable_name(implementation: Implementation, source: &str) -> Option<String> {
    let chain = match implementation {
        Implementation::Saltext => super::source::parse(source),
        Implementation::Jinja | Implementation::MapJinja | Implementation::NoMap => super::source::parse_jinja(source),
    }
    .ok()
    .filter(|c| c.yaml)?;
    let first = chain.matchers.first()?;
    first.query.trim_start_matches('/').split('/').next().map(str::to_string)
}

impl MapData {
    /// The `--format json` output: `{"values", "layers", "origins"}` (or `"errors"` instead of
    /// `values` when Salt raises). Paths in `layers` are `salt://` relative; `origins` lists
    /// every value that is not a dict with keys, with its key path, the layer that set it, its
    /// line in that layer's file (1-based) and the layers it overrode.
    pub fn to_json(&self, files: &FileTable, error_json: &dyn Fn(&SaltError) -> Vec<Value>) -> Value {
        let layers: Vec<Value> = self
            .layers
            .iter()
            .map(|l| {
                json!({
                    "stage": l.stage.as_str(),
                    "source": l.source,
                    "path": l.path,
                    "file": l.file.as_ref().map(|f| f.display().to_string()),
                    "status": l.status.as_str(),
                    "strategy": l.strategy,
                    "merge_lists": l.merge_lists,
                })
            })
            .collect();
        let mut out = Map::new();
        out.insert("implementation".into(), json!(self.implementation.as_str()));
        match &self.values {
            Ok(v) => {
                out.insert("values".into(), v.clone());
            }
            Err(e) => {
                out.insert("errors".into(), Value::Array(error_json(e)));
            }
        }
        out.insert("layers".into(), Value::Array(layers));
        if let Some(origins) = &self.origins {
            let list: Vec<Value> = origins
                .leaves()
                .into_iter()
                .map(|(path, o)| {
                    let line = o.at.as_ref().map(|at| files.human(at.file, at.span.start).0);
                    json!({"path": path, "layer": o.layer, "line": line, "overrode": o.overrode})
                })
                .collect();
            out.insert("origins".into(), Value::Array(list));
        }
        if !self.notes.is_empty() {
            out.insert("notes".into(), Value::Array(self.notes.iter().flat_map(error_json).collect()));
        }
        Value::Object(out)
    }
}
