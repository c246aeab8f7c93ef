//! File roots per environment: which SLS names exist (`list_states`) and which file a name
//! loads (`get_state`: `x.sls` before `x/init.sls`, first root that has the file wins).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use indexmap::IndexMap;

use crate::workspace::config::Opts;
use crate::workspace::vfs::Vfs;

/// One environment's roots and the files found in them.
#[derive(Debug, Clone, Default)]
pub struct EnvRoots {
    pub roots: Vec<PathBuf>,
    /// Relative paths (with `/`) of every file, per root, in root order.
    pub files: Vec<BTreeSet<String>>,
}

/// Where an SLS name resolved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StateFile {
    /// The `salt://` URL that hit, e.g. `salt://web/init.sls`.
    pub source: String,
    pub path: PathBuf,
    pub env: String,
}

impl StateFile {
    pub fn is_init(&self) -> bool {
        self.source.ends_with("/init.sls")
    }
}

/// All environments' roots, scanned once.
#[derive(Debug, Clone, Default)]
pub struct FileRoots {
    pub envs: IndexMap<String, EnvRoots>,
    /// `list_states` of every environment, computed on first use: every include and every
    /// per-root check asks for it, and recomputing it costs O(files) each time. Whoever
    /// changes `envs` after that must build a new `FileRoots` (as [`FileRoots::scan`] does).
    states: OnceLock<IndexMap<String, Arc<Vec<String>>>>,
}

impl FileRoots {
    pub fn scan(fs: &dyn Vfs, file_roots: &IndexMap<String, Vec<PathBuf>>) -> FileRoots {
        let envs = file_roots
            .iter()
            .map(|(env, roots)| {
                let files = roots.iter().map(|r| fs.walk(r).into_iter().collect()).collect();
                (env.clone(), EnvRoots { roots: roots.clone(), files })
            })
            .collect();
        FileRoots { envs, states: OnceLock::new() }
    }

    pub fn env_names(&self) -> impl Iterator<Item = &str> {
        self.envs.keys().map(String::as_str)
    }

    /// `Client.list_states(env)`: every `.sls` file as an SLS name, sorted.
    pub fn list_states(&self, env: &str) -> Vec<String> {
        self.list_states_shared(env).as_ref().clone()
    }

    /// [`FileRoots::list_states`] without copying: computed once per `FileRoots`.
    pub fn list_states_shared(&self, env: &str) -> Arc<Vec<String>> {
        let all = self.states.get_or_init(|| {
            self.envs
                .iter()
                .map(|(name, e)| {
                    let mut names = BTreeSet::new();
                    for files in &e.files {
                        for f in files {
                            if let Some(name) = sls_name_of(f) {
                                names.insert(name);
                            }
                        }
                    }
                    (name.clone(), Arc::new(names.into_iter().collect::<Vec<_>>()))
                })
                .collect()
        });
        all.get(env).cloned().unwrap_or_default()
    }

    /// Find a relative path in an environment: the first root that has it.
    pub fn find_file(&self, env: &str, rel: &str) -> Option<PathBuf> {
        let e = self.envs.get(env)?;
        e.files.iter().zip(&e.roots).find(|(files, _)| files.contains(rel)).map(|(_, root)| root.join(rel))
    }

    /// `Client.get_state(name, env)`: `salt://PATH.sls`, then `salt://PATH/init.sls`, each URL
    /// served as [`served_path`] reads it, so `/formulas/x` loads `formulas/x.sls` and `pkg.`
    /// (what `include: [.]` names from `pkg/x.sls`) loads `pkg/init.sls`. The URL is kept as
    /// Salt keeps it (`salt:///formulas/x.sls`): it decides what a relative include climbs from.
    pub fn get_state(&self, env: &str, sls: &str) -> Option<StateFile> {
        let path = sls.replace('.', "/");
        for url_path in [format!("{path}.sls"), format!("{path}/init.sls")] {
            let Some(rel) = served_path(&url_path) else { continue };
            if let Some(p) = self.find_file(env, &rel) {
                return Some(StateFile { source: format!("salt://{url_path}"), path: p, env: env.to_string() });
            }
        }
        None
    }

    /// The environment and relative path of an absolute file under some root (first env wins).
    pub fn locate(&self, path: &Path) -> Option<(String, String)> {
        for (env, e) in &self.envs {
            for root in &e.roots {
                if let Ok(rel) = path.strip_prefix(root) {
                    return Some((env.clone(), rel.to_string_lossy().replace('\\', "/")));
                }
            }
        }
        None
    }

    /// Every `(env, relative path, absolute path)` of `.sls` files that a name can load,
    /// i.e. the files no earlier root shadows.
    pub fn sls_files(&self) -> Vec<(String, String, PathBuf)> {
        let mut out = Vec::new();
        for (env, e) in &self.envs {
            let mut seen = BTreeSet::new();
            for (files, root) in e.files.iter().zip(&e.roots) {
                for f in files {
                    if f.ends_with(".sls") && seen.insert(f.clone()) {
                        out.push((env.clone(), f.clone(), root.join(f)));
                    }
                }
            }
        }
        out
    }
}

/// The custom module files of kind `dir` (`_states`, `_modules`) of every environment's file
/// roots, as `saltutil.sync_*` copies them (`salt/utils/extmods.py` `sync`): the first root of
/// an environment that has a file serves it, and a later environment's file of the same name
/// overwrites an earlier one's. By file name, sorted; reads go through `fs`.
pub fn synced_files(fs: &dyn Vfs, roots: &FileRoots, dir: &str) -> std::collections::BTreeMap<String, PathBuf> {
    let mut files = std::collections::BTreeMap::new();
    for env in roots.envs.values() {
        let mut this_env: std::collections::BTreeMap<String, PathBuf> = std::collections::BTreeMap::new();
        for root in &env.roots {
            let dir = root.join(dir);
            for rel in fs.walk(&dir) {
                if rel.contains('/') || !rel.ends_with(".py") || rel == "__init__.py" {
                    continue;
                }
                this_env.entry(rel.clone()).or_insert_with(|| dir.join(&rel));
            }
        }
        files.extend(this_env);
    }
    files
}

/// `salt/state.py` `BaseHighState._get_envs`, given the environments the file server reports.
pub fn get_envs(opts: &Opts, client_envs: &[String]) -> Vec<String> {
    let mut envs = vec!["base".to_string()];
    for env in opts.file_roots.keys() {
        if !envs.contains(env) {
            envs.push(env.clone());
        }
    }
    let mut env_order: Vec<String> = Vec::new();
    for e in &opts.env_order {
        if !env_order.contains(e) {
            env_order.push(e.clone());
        }
    }
    if !env_order.is_empty() {
        if !client_envs.is_empty() {
            return env_order.into_iter().filter(|e| client_envs.contains(e)).collect();
        }
        return env_order;
    }
    for e in client_envs {
        if !envs.contains(e) {
            envs.push(e.clone());
        }
    }
    envs
}

/// The file a `salt://PATH` URL serves, relative to the roots (Salt 3008): `salt.utils.url.parse`
/// strips every leading `/` (an empty authority, `salt:///x`, is `salt://x`), the file server
/// drops a `?query`, refuses a path with `../` and normalises the rest (`os.path.normpath`), so
/// `pkg//init.sls` is `pkg/init.sls`.
pub fn served_path(url_path: &str) -> Option<String> {
    let path = url_path.trim_start_matches('/');
    let path = path.split_once('?').map_or(path, |(p, _)| p);
    if path.contains("../") {
        return None;
    }
    let rel = crate::py::path::normpath(path);
    (rel != "." && !rel.starts_with("..") && !rel.starts_with('/')).then_some(rel)
}

/// The SLS name a relative `.sls` path lists as (`a/init.sls` is `a`, `a.b/c.sls` is `a.b.c`).
pub fn sls_name_of(rel: &str) -> Option<String> {
    let stem = rel.strip_suffix(".sls")?;
    let stem = stem.strip_suffix("/init").unwrap_or(stem);
    Some(stem.replace('/', "."))
}

/// Why a relative path can never be loaded by its listed name, if it cannot: a dot in a file or
/// directory name besides the `.sls` suffix turns into a `/` when Salt resolves the name.
pub fn dotted_component(rel: &str) -> Option<&str> {
    let stem = rel.strip_suffix(".sls")?;
    stem.split('/').find(|c| c.contains('.'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_dots() {
        assert_eq!(sls_name_of("a/b/init.sls").as_deref(), Some("a.b"));
        assert_eq!(sls_name_of("init.sls").as_deref(), Some("init"));
        assert_eq!(sls_name_of("a.b/c.sls").as_deref(), Some("a.b.c"));
        assert_eq!(dotted_component("webserver_1.0.sls"), Some("webserver_1.0"));
        assert_eq!(dotted_component("repo.d/x.sls"), Some("repo.d"));
        assert_eq!(dotted_component("a/b.sls"), None);
    }

    #[test]
    fn served_paths_as_salt_3008() {
        assert_eq!(served_path("/formulas/x.sls").as_deref(), Some("formulas/x.sls"));
        assert_eq!(served_path("///formulas/x/init.sls").as_deref(), Some("formulas/x/init.sls"));
        assert_eq!(served_path("pkg//init.sls").as_deref(), Some("pkg/init.sls"));
        assert_eq!(served_path("pkg/.sls").as_deref(), Some("pkg/.sls"));
        assert_eq!(served_path("./ß/ℝ/💣.sls").as_deref(), Some("ß/ℝ/💣.sls"));
        assert_eq!(served_path("a/../b.sls"), None);
        assert_eq!(served_path("x.sls?saltenv=dev").as_deref(), Some("x.sls"));
    }

    #[test]
    fn get_state_leading_slash_and_trailing_dot() {
        let mut roots = FileRoots::default();
        let files = ["formulas/x.sls", "pkg/init.sls", "pkg/sub.sls"].map(String::from).into_iter().collect();
        roots.envs.insert("base".into(), EnvRoots { roots: vec![PathBuf::from("/srv")], files: vec![files] });
        let x = roots.get_state("base", "/formulas/x").unwrap();
        assert_eq!((x.source.as_str(), x.path.to_str()), ("salt:///formulas/x.sls", Some("/srv/formulas/x.sls")));
        let pkg = roots.get_state("base", "pkg.").unwrap();
        assert_eq!((pkg.source.as_str(), pkg.is_init()), ("salt://pkg//init.sls", true));
        assert!(roots.get_state("base", "/nope").is_none());
    }
}
