//! git_pillar, the `- git:` ext_pillar entries, as Salt 3008 computes them
//! (`salt/pillar/git_pillar.py` `ext_pillar`, `salt/utils/gitfs.py` `GitPillar.checkout`,
//! `GitProvider.get_checkout_target`): each remote's tree at its checkout target (mounted by the
//! `salt-gitfs` crate into the file system, [`PillarEntry`]) is the `pillar_roots` of its pillar
//! environment, compiled as a pillar of its own (top file and SLS, no ext_pillar), and the
//! remotes' pillars are merged in order. Rules: docs/salt/git-pillar.md.

use std::path::PathBuf;
use std::sync::Arc;

use indexmap::IndexMap;
use serde_json::{Map, Value};

use super::{compile_once, Ext, PillarError, PillarMinion, PillarOptions};
use crate::py::builtins::{str_of as py_str, truthy};
use crate::py::dictupdate;
use crate::render::jinja::JinjaSetup;
use crate::workspace::gitfs::PillarEntry;
use crate::workspace::roots::FileRoots;
use crate::workspace::vfs::{FileTable, Vfs};

/// What the compile that runs the ext_pillar entries hands git_pillar.
pub(super) struct GitCompile<'a> {
    pub fs: &'a Arc<dyn Vfs>,
    pub o: &'a PillarOptions,
    pub who: &'a PillarMinion<'a>,
    /// The configuration (`git_pillar_includes`, `git_pillar_base`).
    pub raw: &'a Value,
    /// `opts["pillar"]`: the pillar each remote's compile starts from, as the outer one does.
    pub opts_pillar: Option<&'a Value>,
    pub saltenv: Option<&'a str>,
    pub jinja: &'a JinjaSetup,
}

/// `git_pillar.ext_pillar(minion_id, pillar, *repos)`: the merged pillar of the entry's
/// remotes, or what it raised. The errors of each remote's compile are Salt's `_errors` of that
/// compile, which arrive in the data; they are added to `errors` as findings only.
pub(super) fn ext_pillar(g: &GitCompile, entry: &PillarEntry, files: &mut FileTable, errors: &mut Vec<PillarError>) -> Result<Value, String> {
    if entry.failed.is_some() {
        // `failhard(role)`.
        return Err("Failed to load git_pillar".into());
    }
    let pillarenv = g.o.pillarenv.as_deref().filter(|e| !e.is_empty());
    let saltenv = g.saltenv.filter(|e| !e.is_empty());
    // `GitPillar.checkout`: `pillar_dirs`, each remote's directory and environment, and which
    // of them are mountpoint links.
    let mut dirs: IndexMap<PathBuf, String> = IndexMap::new();
    let mut linked: Vec<PathBuf> = Vec::new();
    for r in &entry.remotes {
        let target = r.remote.checkout_target(pillarenv, saltenv);
        let Some(dir) = r.trees.get(&target) else { continue };
        dirs.insert(dir.clone(), r.remote.pillar_env(pillarenv, saltenv));
        if !r.remote.mountpoint.is_empty() {
            linked.push(dir.clone());
        }
    }
    let includes = g.raw.get("git_pillar_includes").is_none_or(truthy);
    let base = g.raw.get("git_pillar_base").map(py_str).unwrap_or_else(|| "master".into());
    let mut ret = Value::Object(Map::new());
    for (dir, env) in &dirs {
        let env = match env.as_str() {
            "__env__" => pillarenv.or(saltenv).map(str::to_string).unwrap_or_else(|| base.clone()),
            _ => env.clone(),
        };
        if pillarenv.is_some_and(|p| p != env) || linked.contains(dir) {
            continue;
        }
        let mut roots = vec![dir.clone()];
        if includes {
            // The unmapped environment is compared, as Salt compares it.
            roots.extend(dirs.iter().filter(|(d, e)| **e == env && *d != dir).map(|(d, _)| d.clone()));
        }
        let pillar_roots = IndexMap::from([(env.clone(), roots)]);
        let froots = Arc::new(FileRoots::scan(&**g.fs, &pillar_roots));
        let mut jinja = g.jinja.clone();
        jinja.read = {
            let (fs, roots) = (g.fs.clone(), froots.clone());
            Arc::new(move |env: &str, rel: &str| fs.read(&roots.find_file(env, rel)?).ok())
        };
        let p = compile_once(&**g.fs, &froots, files, g.o, g.who, g.opts_pillar.cloned(), &jinja, Some(env), &Ext::none());
        errors.extend(p.errors.into_iter().map(|e| PillarError { salt: None, diag: e.diag }));
        // `salt.utils.dictupdate.merge(ret, ..., strategy, merge_lists=...)`: the renderer is
        // the default `yaml`.
        if let Ok(merged) = dictupdate::merge(&mut ret, &p.pillar, &g.o.strategy, "yaml", g.o.merge_lists) {
            ret = merged;
        }
    }
    Ok(ret)
}
