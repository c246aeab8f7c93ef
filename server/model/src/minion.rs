//! Minion profiles: which minion the analysis is for (id, grains, pillar), from a
//! `salt-analyzer.yaml` profile or from the Salt config (`id`, static `grains`, `pillar`).

use crate::config::ConfigError;
use crate::vfs::Vfs;
use crate::workspace::Workspace;

/// What targeting and rendering need to know about a minion.
#[derive(Debug, Clone)]
pub struct Minion {
    pub id: String,
    pub grains: serde_json::Value,
    pub pillar: serde_json::Value,
    pub nodegroups: serde_json::Value,
    /// Where the profile came from, for explanations.
    pub source: String,
}

impl Minion {
    pub fn context(&self) -> crate::matchers::MatchContext<'_> {
        crate::matchers::MatchContext::new(&self.id, &self.grains, &self.pillar).with_nodegroups(&self.nodegroups)
    }
}

/// `salt-call --local grains.items --out=json` prints `{"local": {...}}`: take the inside.
fn unwrap_local(v: serde_json::Value) -> serde_json::Value {
    match v {
        serde_json::Value::Object(mut m) if m.len() == 1 && m.contains_key("local") => m.remove("local").unwrap_or_default(),
        other => other,
    }
}

fn read_data(fs: &dyn Vfs, path: &std::path::Path) -> Result<serde_json::Value, ConfigError> {
    let text = fs.read(path).map_err(|e| ConfigError { path: path.to_path_buf(), line: 0, message: format!("cannot read: {e}") })?;
    let node = syntax::yaml::load(&text).map_err(|e| ConfigError {
        path: path.to_path_buf(),
        line: text[..e.offset.min(text.len())].matches('\n').count() + 1,
        message: format!("not valid JSON or YAML: {}", e.message),
    })?;
    Ok(unwrap_local(crate::value::Val::from_node(&node, 0).to_json()))
}

/// Merge `over` into `base` recursively (profile grains over file grains).
fn merge_json(base: &mut serde_json::Value, over: &serde_json::Value) {
    match (base, over) {
        (serde_json::Value::Object(b), serde_json::Value::Object(o)) => {
            for (k, v) in o {
                merge_json(b.entry(k.clone()).or_insert(serde_json::Value::Null), v);
            }
        }
        (b, o) => *b = o.clone(),
    }
}

/// The minion to analyse for: `wanted` (a profile id), else `default_minion`, else the
/// config's own `id`, `grains` and `pillar`. A named profile that does not exist is an error.
pub fn select(fs: &dyn Vfs, ws: &Workspace, wanted: Option<&str>) -> Result<Minion, ConfigError> {
    let raw = &ws.opts.raw;
    let nodegroups = raw.get("nodegroups").cloned().unwrap_or(serde_json::Value::Object(Default::default()));
    let name = wanted.map(str::to_string).or_else(|| ws.default_minion.clone());
    if let Some(name) = name {
        let Some(p) = ws.profiles.get(&name) else {
            return Err(ConfigError {
                path: ws.file.clone().unwrap_or_else(|| ws.root.join(crate::workspace::WORKSPACE_FILE)),
                line: 0,
                message: format!(
                    "no minion profile `{name}` (profiles: {})",
                    ws.profiles.keys().cloned().collect::<Vec<_>>().join(", ")
                ),
            });
        };
        let mut grains = match &p.grains_file {
            Some(f) => read_data(fs, f)?,
            None => serde_json::Value::Object(Default::default()),
        };
        merge_json(&mut grains, &p.grains);
        if grains.get("id").is_none() {
            if let serde_json::Value::Object(m) = &mut grains {
                m.insert("id".into(), p.id.clone().into());
            }
        }
        let mut pillar = match &p.pillar_file {
            Some(f) => read_data(fs, f)?,
            None => serde_json::Value::Object(Default::default()),
        };
        merge_json(&mut pillar, &p.pillar);
        return Ok(Minion { id: p.id.clone(), grains, pillar, nodegroups, source: format!("profile `{}`", p.id) });
    }
    let obj = |k: &str| raw.get(k).cloned().filter(|v| v.is_object()).unwrap_or(serde_json::Value::Object(Default::default()));
    let mut grains = obj("grains");
    if let serde_json::Value::Object(m) = &mut grains {
        m.entry("id").or_insert(ws.opts.id.clone().into());
    }
    Ok(Minion { id: ws.opts.id.clone(), grains, pillar: obj("pillar"), nodegroups, source: "the Salt configuration".into() })
}
