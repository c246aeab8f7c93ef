//! Minion profiles: which minion the analysis is for (id, grains, pillar), from a
//! `salt-analyzer.yaml` profile or from the Salt config (`id`, static `grains`, `pillar`).

use crate::workspace::config::ConfigError;
use crate::workspace::vfs::Vfs;
use crate::workspace::Workspace;

/// What targeting and rendering need to know about a minion.
#[derive(Debug, Clone)]
pub struct Minion {
    pub id: String,
    pub grains: serde_json::Value,
    pub pillar: serde_json::Value,
    pub nodegroups: serde_json::Value,
    /// A profile's own pillar (`pillar_file` under `pillar:`), which overrides the pillar
    /// computed from `pillar_roots`; `None` for the minion the Salt configuration describes.
    pub literal_pillar: Option<serde_json::Value>,
    /// Where the profile came from, for explanations.
    pub source: String,
    /// The profile's pinned answers for host-dependent Salt functions
    /// (`{function: {first argument: answer}}`); an empty mapping when none.
    pub functions: serde_json::Value,
}

/// `salt-call --local grains.items --out=json` prints `{"local": {...}}`: take the inside.
fn unwrap_local(v: serde_json::Value) -> serde_json::Value {
    match v {
        serde_json::Value::Object(mut m) if m.len() == 1 && m.contains_key("local") => m.remove("local").unwrap_or_default(),
        other => other,
    }
}

pub(crate) fn read_data(fs: &dyn Vfs, path: &std::path::Path) -> Result<serde_json::Value, ConfigError> {
    let text = fs.read(path).map_err(|e| ConfigError { path: path.to_path_buf(), line: 0, message: format!("cannot read: {e}") })?;
    let node = syntax::yaml::load(&text).map_err(|e| ConfigError {
        path: path.to_path_buf(),
        line: syntax::line_index::line_number(&text, e.offset),
        message: format!("not valid JSON or YAML: {}", e.message),
    })?;
    Ok(unwrap_local(crate::value::Val::from_node(&node, 0).to_json()))
}

/// What Salt 3008's `pillar.items` prints for every truthy value unless `unmask=True`.
const MASK: &str = "**********";

/// Whether `pillar` is masked `pillar.items` output: it has a truthy leaf, and every truthy
/// leaf is the mask (masking keeps falsy values such as `0`, `false` and `""`).
fn is_masked(pillar: &serde_json::Value) -> bool {
    fn walk(v: &serde_json::Value, masked: &mut usize, plain: &mut usize) {
        match v {
            serde_json::Value::Object(m) => m.values().for_each(|x| walk(x, masked, plain)),
            serde_json::Value::Array(l) => l.iter().for_each(|x| walk(x, masked, plain)),
            serde_json::Value::String(s) if s == MASK => *masked += 1,
            serde_json::Value::String(s) if s.is_empty() => {}
            serde_json::Value::Bool(false) | serde_json::Value::Null => {}
            serde_json::Value::Number(n) if n.as_f64() == Some(0.0) => {}
            _ => *plain += 1,
        }
    }
    let (mut masked, mut plain) = (0, 0);
    walk(pillar, &mut masked, &mut plain);
    masked > 0 && plain == 0
}

/// Merge `over` into `base` recursively (profile grains over file grains, a profile's pillar
/// over the computed one).
pub fn merge_json(base: &mut serde_json::Value, over: &serde_json::Value) {
    match (base, over) {
        (serde_json::Value::Object(b), serde_json::Value::Object(o)) => {
            for (k, v) in o {
                merge_json(b.entry(k.clone()).or_insert(serde_json::Value::Null), v);
            }
        }
        (b, o) => *b = o.clone(),
    }
}

/// Grains or pillar given on the command line: a file (JSON or YAML, `salt-call ... --out=json`
/// output as it is), else the text itself as JSON or YAML (`'{"os": "Debian"}'`).
pub fn data_argument(fs: &dyn Vfs, arg: &str) -> Result<serde_json::Value, ConfigError> {
    let path = std::path::Path::new(arg);
    if fs.is_file(path) {
        return read_data(fs, path);
    }
    let node = syntax::yaml::load(arg).map_err(|e| ConfigError {
        path: path.to_path_buf(),
        line: 0,
        message: format!("is neither a file nor JSON or YAML: {}", e.message),
    })?;
    match unwrap_local(crate::value::Val::from_node(&node, 0).to_json()) {
        v @ serde_json::Value::Object(_) => Ok(v),
        _ => Err(ConfigError { path: path.to_path_buf(), line: 0, message: "is neither a file nor a JSON or YAML mapping".into() }),
    }
}

/// Put the minion the command line describes (`--id`, `--grains`, `--pillar`) among the
/// workspace's profiles, over a profile of the same id, and say its id. Its id is `id`, else
/// the grains' `id`.
pub fn add_command_line_minion(fs: &dyn Vfs, ws: &mut Workspace, id: Option<&str>, grains: Option<&str>, pillar: Option<&str>) -> Result<String, ConfigError> {
    let grains = grains.map(|g| data_argument(fs, g)).transpose()?.unwrap_or_else(|| serde_json::json!({}));
    let pillar = pillar.map(|p| data_argument(fs, p)).transpose()?.unwrap_or_else(|| serde_json::json!({}));
    let id = match id.map(str::to_string).or_else(|| grains.get("id").and_then(|v| v.as_str()).map(str::to_string)) {
        Some(id) => id,
        None => {
            return Err(ConfigError { path: ws.root.clone(), line: 0, message: "give the minion's id with --id (the grains given have no `id`)".into() });
        }
    };
    let profile = ws.profiles.entry(id.clone()).or_insert_with(|| crate::workspace::Profile { id: id.clone(), ..Default::default() });
    if profile.grains.is_null() {
        profile.grains = serde_json::json!({});
    }
    if profile.pillar.is_null() {
        profile.pillar = serde_json::json!({});
    }
    merge_json(&mut profile.grains, &grains);
    merge_json(&mut profile.pillar, &pillar);
    if let serde_json::Value::Object(g) = &mut profile.grains {
        g.insert("id".into(), id.clone().into());
    }
    Ok(id)
}

/// The minion to analyse for: `wanted` (a profile id), else `default_minion`, else the
/// config's own `id`, `grains` and `pillar`. A named profile that does not exist is an error.
pub fn select(fs: &dyn Vfs, ws: &Workspace, wanted: Option<&str>) -> Result<Minion, ConfigError> {
    let name = wanted.map(str::to_string).or_else(|| ws.default_minion.clone());
    if let Some(name) = name {
        let Some(p) = ws.profiles.get(&name) else {
            return Err(ConfigError {
                path: ws.file.clone().unwrap_or_else(|| ws.root.join(crate::workspace::WORKSPACE_FILE)),
                line: 0,
                message: format!("no minion profile `{name}` (profiles: {})", ws.profiles.keys().cloned().collect::<Vec<_>>().join(", ")),
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
            Some(f) => {
                let data = read_data(fs, f)?;
                if is_masked(&data) {
                    return Err(ConfigError {
                        path: f.clone(),
                        line: 0,
                        message: format!(
                            "every pillar value is `{MASK}`: Salt 3008's pillar.items masks values unless asked not to; \
                             write the file with `salt-call --local pillar.items unmask=True --out=json`"
                        ),
                    });
                }
                data
            }
            None => serde_json::Value::Object(Default::default()),
        };
        merge_json(&mut pillar, &p.pillar);
        let literal_pillar = Some(pillar.clone());
        return Ok(Minion {
            id: p.id.clone(),
            grains,
            pillar,
            nodegroups: nodegroups(ws),
            literal_pillar,
            source: format!("profile `{}`", p.id),
            functions: p.functions.clone(),
        });
    }
    Ok(from_config(ws))
}

/// The minion the Salt configuration describes: its `id`, static `grains` and `pillar`.
pub fn from_config(ws: &Workspace) -> Minion {
    let raw = &ws.opts.raw;
    let obj = |k: &str| raw.get(k).cloned().filter(|v| v.is_object()).unwrap_or(serde_json::Value::Object(Default::default()));
    let mut grains = obj("grains");
    if let serde_json::Value::Object(m) = &mut grains {
        m.entry("id").or_insert(ws.opts.id.clone().into());
    }
    Minion {
        id: ws.opts.id.clone(),
        grains,
        pillar: obj("pillar"),
        nodegroups: nodegroups(ws),
        literal_pillar: None,
        source: "the Salt configuration".into(),
        functions: serde_json::Value::Object(Default::default()),
    }
}

pub(crate) fn nodegroups(ws: &Workspace) -> serde_json::Value {
    ws.opts.raw.get("nodegroups").cloned().unwrap_or(serde_json::Value::Object(Default::default()))
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use serde_json::json;

    use super::*;
    use crate::workspace::vfs::MemFs;

    fn load(fixture: &str) -> Result<Minion, ConfigError> {
        let fs = MemFs::from_fixture(fixture);
        let ws = Workspace::load(&fs, Path::new("/ws"), None).expect("workspace");
        select(&fs, &ws, None)
    }

    #[test]
    fn profile_files_are_read_with_or_without_the_local_wrapper() {
        let m = load(
            "#- salt-analyzer.yaml\nminions: {web01: {grains_file: g.json, pillar_file: p.json, grains: {extra: 1}, functions: {file.file_exists: {/etc/localtime: true}}}}\ndefault_minion: web01\n\
             #- g.json\n{\"local\": {\"id\": \"web01\", \"roles\": [\"web\"]}}\n#- p.json\n{\"app\": {\"color\": \"Blue\", \"off\": false}}\n",
        )
        .expect("minion");
        assert_eq!(m.id, "web01");
        assert_eq!(m.grains, json!({"id": "web01", "roles": ["web"], "extra": 1}));
        assert_eq!(m.pillar, json!({"app": {"color": "Blue", "off": false}}));
        assert_eq!(m.functions, json!({"file.file_exists": {"/etc/localtime": true}}));
    }

    #[test]
    fn a_masked_pillar_dump_is_refused_with_the_command_that_works() {
        // `salt-call --local pillar.items --out=json` in 3008: truthy leaves masked, falsy kept.
        let err = load(
            "#- salt-analyzer.yaml\nminions: {web01: {pillar_file: p.json}}\ndefault_minion: web01\n\
             #- p.json\n{\"local\": {\"app\": {\"color\": \"**********\", \"list\": [\"**********\"], \"off\": false, \"n\": 0}}}\n",
        )
        .expect_err("masked");
        assert!(err.message.contains("unmask=True"), "{}", err.message);
        // One real value is enough to show the file is not masked output.
        assert!(is_masked(&json!({"a": "**********"})));
        assert!(!is_masked(&json!({"a": "**********", "b": "x"})));
        assert!(!is_masked(&json!({"a": false})));
    }
}
