//! Salt configuration as `salt-call -c DIR` reads it (`DIR/minion` + `minion.d/*.conf`,
//! else `DIR/master` + `master.d/*.conf`), reduced to the options the analysis uses.

use std::path::{Path, PathBuf};

use indexmap::IndexMap;

use crate::value::{Dict, Val, V};
use crate::workspace::vfs::Vfs;

pub use crate::version::{SaltVersion, VersionSource};

/// The options the model reads, with Salt's defaults (`salt/config/__init__.py` `DEFAULT_MINION_OPTS`).
#[derive(Debug, Clone)]
pub struct Opts {
    /// Environment name to its roots, in configuration order.
    pub file_roots: IndexMap<String, Vec<PathBuf>>,
    /// Pillar environment name to its roots, in configuration order (`pillar_roots`).
    pub pillar_roots: IndexMap<String, Vec<PathBuf>>,
    pub state_top: String,
    pub state_top_saltenv: Option<String>,
    pub top_file_merging_strategy: String,
    pub env_order: Vec<String>,
    pub default_top: String,
    pub state_auto_order: bool,
    pub saltenv: Option<String>,
    pub renderer: String,
    pub id: String,
    /// The Salt release whose rules the analysis follows, for this minion.
    pub version: SaltVersion,
    /// Where [`Opts::version`] came from.
    pub version_source: VersionSource,
    /// The Salt extensions the minions have installed (`saltexts:` in `salt-analyzer.yaml`),
    /// normalised (`saltext-mysql`): their state modules join the catalog of the release's core.
    pub saltexts: Vec<String>,
    /// The whole merged configuration as JSON (grains, pillar, nodegroups, ...).
    pub raw: serde_json::Value,
    /// The files that were read, in order.
    pub sources: Vec<PathBuf>,
    /// `fileserver_backend`, lower-cased (`roots`, `gitfs`), in order.
    pub fileserver_backend: Vec<String>,
    /// The gitfs backend's roots per saltenv: paths where the `salt-gitfs` crate mounted each
    /// remote's tree (in remote order), set by whoever mounts them (the binary). Empty until then.
    pub gitfs_roots: IndexMap<String, Vec<PathBuf>>,
    /// `ext_pillar`'s `- git:` entries with their remotes' trees mounted, set by whoever
    /// mounts them (the `salt-gitfs` crate); `None` until then, and a `git` entry is then not
    /// evaluated.
    pub git_pillar: Option<Vec<crate::workspace::gitfs::PillarEntry>>,
}

/// Salt 3008's options for a masterless minion before its own configuration (generated from
/// Salt by tests/conformance/gen_minion_defaults.py; the host-dependent ones left out).
static MINION_DEFAULTS: std::sync::LazyLock<serde_json::Map<String, serde_json::Value>> = std::sync::LazyLock::new(|| {
    let all: serde_json::Value = serde_json::from_str(include_str!("minion_defaults.json")).unwrap_or_default();
    all.get("opts").and_then(|o| o.as_object()).cloned().unwrap_or_default()
});

impl Opts {
    /// The file server's roots per saltenv: each backend of `fileserver_backend` in order
    /// (`roots`: `file_roots`; `gitfs`: the mounted remotes), so the first backend that has a
    /// file serves it, as `Fileserver.find_file` asks them.
    pub fn served_roots(&self) -> IndexMap<String, Vec<PathBuf>> {
        let mut out: IndexMap<String, Vec<PathBuf>> = IndexMap::new();
        for backend in &self.fileserver_backend {
            let roots = match backend.as_str() {
                "roots" => &self.file_roots,
                "gitfs" => &self.gitfs_roots,
                _ => continue,
            };
            for (env, dirs) in roots {
                out.entry(env.clone()).or_default().extend(dirs.iter().cloned());
            }
        }
        out
    }

    /// What a template's `opts` holds: Salt's defaults, then the configuration, with
    /// `file_roots` as read.
    pub fn template_opts(&self) -> serde_json::Value {
        let mut all = MINION_DEFAULTS.clone();
        if let serde_json::Value::Object(set) = &self.raw {
            all.extend(set.iter().map(|(k, v)| (k.clone(), v.clone())));
        }
        let roots =
            self.file_roots.iter().map(|(env, dirs)| (env.clone(), dirs.iter().map(|d| serde_json::Value::from(d.to_string_lossy().into_owned())).collect()));
        all.entry("file_roots").or_insert_with(|| serde_json::Value::Object(roots.collect()));
        // `salt.config.minion_config` sets these from the file it read.
        if let Some(conf) = self.sources.first() {
            let dir = conf.parent().map(|d| d.to_string_lossy().into_owned()).unwrap_or_default();
            all.entry("config_dir").or_insert_with(|| dir.into());
            all.entry("conf_file").or_insert_with(|| conf.to_string_lossy().into_owned().into());
        }
        all.entry("config_dir").or_insert_with(|| "/etc/salt".into());
        all.entry("conf_file").or_insert_with(|| "/etc/salt/minion".into());
        // `BaseHighState.__gen_opts`: the state system sees `state_top` as a `salt://` URL.
        if let Some(top) = all.get("state_top").and_then(|t| t.as_str()).filter(|t| !t.starts_with("salt://")) {
            let url = format!("salt://{}", top.strip_prefix('/').unwrap_or(top));
            all.insert("state_top".into(), url.into());
        }
        serde_json::Value::Object(all)
    }
}

impl Default for Opts {
    fn default() -> Opts {
        let mut file_roots = IndexMap::new();
        file_roots.insert("base".to_string(), vec![PathBuf::from("/srv/salt"), PathBuf::from("/srv/spm/salt")]);
        let pillar_roots = IndexMap::from([("base".to_string(), vec![PathBuf::from("/srv/pillar"), PathBuf::from("/srv/spm/pillar")])]);
        Opts {
            file_roots,
            pillar_roots,
            state_top: "top.sls".into(),
            state_top_saltenv: None,
            top_file_merging_strategy: "merge".into(),
            env_order: Vec::new(),
            default_top: "base".into(),
            state_auto_order: true,
            saltenv: None,
            renderer: "jinja|yaml".into(),
            id: "localhost".into(),
            version: SaltVersion::default(),
            version_source: VersionSource::default(),
            saltexts: Vec::new(),
            raw: serde_json::Value::Object(Default::default()),
            sources: Vec::new(),
            fileserver_backend: vec!["roots".to_string()],
            gitfs_roots: IndexMap::new(),
            git_pillar: None,
        }
    }
}

/// A configuration that could not be read: the tool cannot run (exit 2).
#[derive(Debug, Clone)]
pub struct ConfigError {
    pub path: PathBuf,
    pub line: usize,
    pub message: String,
}

impl std::fmt::Display for ConfigError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.line > 0 {
            write!(f, "{}:{}: {}", self.path.display(), self.line, self.message)
        } else {
            write!(f, "{}: {}", self.path.display(), self.message)
        }
    }
}

/// Read `DIR/minion` (+ `minion.d/*.conf`), or `DIR/master` (+ `master.d/*.conf`) when there
/// is no minion file. A directory with neither gives Salt's defaults.
pub fn read_config_dir(fs: &dyn Vfs, dir: &Path) -> Result<Opts, ConfigError> {
    let (main, conf_d) = if fs.is_file(&dir.join("minion")) {
        (dir.join("minion"), dir.join("minion.d"))
    } else if fs.is_file(&dir.join("master")) {
        (dir.join("master"), dir.join("master.d"))
    } else if !dir.is_dir() {
        return Err(ConfigError { path: dir.to_path_buf(), line: 0, message: "no such configuration directory".into() });
    } else {
        return Ok(Opts::default());
    };
    let mut merged = Dict::new();
    let mut sources = vec![main.clone()];
    merge_into(&mut merged, load_conf(fs, &main)?);
    let mut extra: Vec<String> = fs.walk(&conf_d).into_iter().filter(|f| f.ends_with(".conf") && !f.contains('/')).collect();
    extra.sort();
    for rel in extra {
        let path = conf_d.join(&rel);
        merge_into(&mut merged, load_conf(fs, &path)?);
        sources.push(path);
    }
    let mut opts = opts_from_dict(&merged);
    opts.sources = sources;
    Ok(opts)
}

fn load_conf(fs: &dyn Vfs, path: &Path) -> Result<Dict, ConfigError> {
    let text = fs.read(path).map_err(|e| ConfigError { path: path.to_path_buf(), line: 0, message: format!("cannot read: {e}") })?;
    let node = syntax::yaml::load(&text).map_err(|e| ConfigError {
        path: path.to_path_buf(),
        line: syntax::line_index::line_number(&text, e.offset),
        message: format!("not valid YAML: {}", e.message),
    })?;
    match Val::from_node(&node, 0).v {
        V::Dict(d) => Ok(d),
        V::None => Ok(Dict::new()),
        _ => Err(ConfigError { path: path.to_path_buf(), line: 1, message: "the configuration is not a mapping".into() }),
    }
}

/// `salt.utils.dictupdate.update(dest, upd, recursive_update=True, merge_lists=True)`.
pub(crate) fn merge_into(dest: &mut Dict, upd: Dict) {
    for (k, v) in upd.0 {
        let key = k.clone();
        match (dest.get_val(&k).cloned(), v) {
            (Some(Val { v: V::Dict(mut old), at }), Val { v: V::Dict(new), .. }) => {
                merge_into(&mut old, new);
                dest.set(key, Val { v: V::Dict(old), at });
            }
            (Some(Val { v: V::List(mut old), at }), Val { v: V::List(new), .. }) => {
                for item in new {
                    if !old.contains(&item) {
                        old.push(item);
                    }
                }
                dest.set(key, Val { v: V::List(old), at });
            }
            (_, v) => dest.set(key, v),
        }
    }
}

/// `file_roots` or `pillar_roots` as written (environment to a directory or a list of them),
/// each directory through `path`; `None` when the value is not a mapping.
pub fn roots_of(v: &Val, path: impl Fn(&str) -> PathBuf) -> Option<IndexMap<String, Vec<PathBuf>>> {
    let V::Dict(roots) = &v.v else { return None };
    Some(
        roots
            .0
            .iter()
            .map(|(env, dirs)| {
                let dirs = match &dirs.v {
                    V::List(l) => l.iter().filter_map(|x| x.as_str().map(&path)).collect(),
                    V::Str(s) => vec![path(s)],
                    _ => Vec::new(),
                };
                (env.py_str(), dirs)
            })
            .collect(),
    )
}

/// Typed options from a merged configuration dict, defaults where absent.
pub fn opts_from_dict(d: &Dict) -> Opts {
    let mut opts = Opts::default();
    if let Some(roots) = d.get("file_roots").and_then(|v| roots_of(v, |p: &str| PathBuf::from(p))) {
        opts.file_roots = roots;
    }
    if let Some(roots) = d.get("pillar_roots").and_then(|v| roots_of(v, |p: &str| PathBuf::from(p))) {
        opts.pillar_roots = roots;
    }
    let s = |key: &str| d.get(key).filter(|v| !v.is_none()).map(Val::py_str);
    if let Some(v) = s("state_top") {
        opts.state_top = v;
    }
    opts.state_top_saltenv = s("state_top_saltenv");
    if let Some(v) = s("top_file_merging_strategy") {
        opts.top_file_merging_strategy = v;
    }
    if let Some(V::List(l)) = d.get("env_order").map(|v| &v.v) {
        opts.env_order = l.iter().map(Val::py_str).collect();
    }
    if let Some(v) = s("default_top") {
        opts.default_top = v;
    }
    if let Some(v) = d.get("state_auto_order") {
        opts.state_auto_order = v.truthy();
    }
    opts.saltenv = s("saltenv");
    if let Some(v) = s("renderer") {
        opts.renderer = v;
    }
    if let Some(v) = s("id") {
        opts.id = v;
    }
    opts.raw = d.to_json();
    opts.fileserver_backend = crate::workspace::gitfs::fileserver_backend(&opts.raw);
    opts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn minion_d_overrides_and_merges() {
        let dir = std::env::temp_dir().join(format!("sa-config-{}", std::process::id()));
        let _ = std::fs::create_dir_all(dir.join("minion.d"));
        std::fs::write(dir.join("minion"), "file_roots:\n  base: [/a]\nstate_auto_order: False\nid: m1\n").unwrap();
        std::fs::write(dir.join("minion.d/b.conf"), "file_roots:\n  base: [/b]\n  dev: [/d]\n").unwrap();
        let opts = read_config_dir(&crate::workspace::vfs::RealFs, &dir).unwrap();
        assert_eq!(format!("{:?}", opts.file_roots), r#"{"base": ["/a", "/b"], "dev": ["/d"]}"#);
        assert!(!opts.state_auto_order);
        assert_eq!(opts.id, "m1");
        std::fs::write(dir.join("minion"), "file_roots: [\n").unwrap();
        let err = read_config_dir(&crate::workspace::vfs::RealFs, &dir).unwrap_err();
        assert!(err.to_string().contains("not valid YAML"), "{err}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
