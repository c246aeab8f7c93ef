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

use super::error::PillarError;
use super::{Layer, Pillar, PillarOptions};
use crate::mapstack::origin::Origins;
use crate::py::builtins::{str_of as py_str, truthy};
use crate::py::dictupdate;
use crate::render::context::JinjaSetup;
use crate::workspace::gitfs::PillarEntry;
use crate::workspace::roots::FileRoots;
use crate::workspace::vfs::{FileTable, Vfs};

/// What the compile that runs the ext_pillar entries hands git_pillar.
pub(super) struct GitCompile<'a> {
    pub fs: &'a Arc<dyn Vfs>,
    pub o: &'a PillarOptions,
    /// The configuration (`git_pillar_includes`, `git_pillar_base`).
    pub raw: &'a Value,
    pub saltenv: Option<&'a str>,
    pub jinja: &'a JinjaSetup,
    /// `Pillar(...).compile_pillar(ext=False)` over one remote's tree (its roots, the file
    /// table, its Jinja setup, its environment): the compile's own, starting from `opts["pillar"]`
    /// as the outer one does.
    pub compile: &'a dyn Fn(&FileRoots, &mut FileTable, &JinjaSetup, String) -> Pillar,
}

/// One `- git:` entry's result: its data, and who set each value: `origins` counts layer 0 as
/// the pillar the compile started from and layer `k` as `layers[k - 1]`, the remotes' files.
#[derive(Debug, Clone)]
pub(super) struct GitPillar {
    pub data: Value,
    pub origins: Origins,
    pub layers: Vec<Layer>,
}

impl GitPillar {
    /// Gives the values of `merged` (the pillar after the ext_pillar entries, whose changes
    /// `origins` gives to `ext_layer`) that this entry set, and that still hold what it set, to
    /// the remote's file that set them; its layers are appended to `layers`. A value of the
    /// pillar the compile started from (layer 0) counts too: `salt-call`'s second compile
    /// starts from the first one's result, which holds what the remotes set.
    pub fn adopt_into(self, origins: &mut Origins, merged: &Value, ext_layer: usize, layers: &mut Vec<Layer>) {
        let offset = layers.len();
        let map = |l: usize| if l == 0 { 0 } else { offset + l - 1 };
        fn walk(cur: &mut Origins, now: &Value, ours: &Value, src: &Origins, ext_layer: usize, map: &dyn Fn(usize) -> usize) {
            let same_leaf = !now.is_object() && now == ours;
            if (cur.origin.layer == ext_layer || cur.origin.layer == 0) && (same_leaf || (now.is_object() && ours.is_object())) && map(src.origin.layer) != 0 {
                cur.origin.layer = map(src.origin.layer);
                cur.origin.at = src.origin.at.clone();
                for l in src.origin.overrode.iter().map(|l| map(*l)) {
                    if !cur.origin.overrode.contains(&l) && l != 0 {
                        cur.origin.overrode.push(l);
                    }
                }
            }
            if let (Value::Object(n), Value::Object(w)) = (now, ours) {
                for (k, c) in cur.children.iter_mut() {
                    if let (Some(nv), Some(wv), Some(s)) = (n.get(k), w.get(k), src.child(k)) {
                        walk(c, nv, wv, s, ext_layer, map);
                    }
                }
            }
        }
        walk(origins, merged, &self.data, &self.origins, ext_layer, &map);
        layers.extend(self.layers);
    }
}

/// `git_pillar.ext_pillar(minion_id, pillar, *repos)`: the merged pillar of the entry's
/// remotes, or what it raised. The errors of each remote's compile are Salt's `_errors` of that
/// compile, which arrive in the data; they are added to `errors` as carried ones.
pub(super) fn ext_pillar(g: &GitCompile, entry: &PillarEntry, files: &mut FileTable, errors: &mut Vec<PillarError>) -> Result<GitPillar, String> {
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
    let mut ret_origins = Origins::of(&ret, 0, None, None);
    let mut layers: Vec<Layer> = Vec::new();
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
        let p = (g.compile)(&froots, files, &jinja, env);
        errors.extend(p.errors.into_iter().map(|e| PillarError { carried: true, ..e }));
        // This compile's layers after those before; its layer 0 is the pillar it started from.
        let offset = layers.len();
        let mut own = p.origins;
        relayer(&mut own, &|l| if l == 0 { 0 } else { offset + l });
        layers.extend(p.layers.into_iter().skip(1));
        // `salt.utils.dictupdate.merge(ret, ..., strategy, merge_lists=...)`: the renderer is
        // the default `yaml`.
        if let Ok(merged) = dictupdate::merge(&mut ret, &p.pillar, &g.o.strategy, "yaml", g.o.merge_lists) {
            // What the remote's own files set: the compile also hands back the pillar it started from.
            if let Some(written) = own_part(&p.pillar, &own) {
                ret_origins = Origins::overlay(Some(&ret_origins), &merged, Some(&written), &own);
            }
            ret = merged;
        }
    }
    Ok(GitPillar { data: ret, origins: ret_origins, layers })
}

/// The part of `v` whose origin is not layer 0.
fn own_part(v: &Value, o: &Origins) -> Option<Value> {
    match v {
        Value::Object(m) if !o.children.is_empty() => {
            let kept: Map<String, Value> = m.iter().filter_map(|(k, x)| Some((k.clone(), own_part(x, o.child(k)?)?))).collect();
            (!kept.is_empty()).then_some(Value::Object(kept))
        }
        _ => (o.origin.layer != 0).then(|| v.clone()),
    }
}

/// Renumbers the layers of `o`.
fn relayer(o: &mut Origins, map: &dyn Fn(usize) -> usize) {
    o.origin.layer = map(o.origin.layer);
    o.origin.overrode = o.origin.overrode.iter().map(|l| map(*l)).collect();
    for (_, c) in &mut o.children {
        relayer(c, map);
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use expect_test::{expect, Expect};

    use super::*;
    use crate::pillar::PillarMinion;
    use crate::workspace::gitfs::{git_pillar_entries, PillarRemote};
    use crate::workspace::vfs::MemFs;
    use crate::workspace::Workspace;

    /// The pillar of the minion `/ws/etc` describes, its git_pillar remotes served from
    /// `/ws/trees/REPO/TARGET` (what `salt-gitfs` mounts: the tree's `root` there, below the
    /// remote's `mountpoint`), then the findings.
    fn check(fixture: &str, expect: Expect) {
        let mem = MemFs::from_fixture(fixture);
        let mut ws = Workspace::load(&mem, Path::new("/ws"), Some(Path::new("/ws/etc"))).expect("workspace");
        let served = git_pillar_entries(&ws.opts.raw)
            .into_iter()
            .map(|(remotes, problems)| PillarEntry {
                failed: (!problems.is_empty()).then(|| problems.join("\n")),
                remotes: remotes
                    .into_iter()
                    .map(|remote| {
                        let repo = remote.url.rsplit('/').next().unwrap_or_default().to_string();
                        let trees = ["master", "dev", "qa", "v1"]
                            .iter()
                            .map(|t| (t.to_string(), PathBuf::from(format!("/ws/trees/{repo}/{t}"))))
                            .filter(|(_, d)| !mem.walk(d).is_empty())
                            .collect();
                        PillarRemote { remote, trees }
                    })
                    .collect(),
            })
            .collect();
        ws.opts.git_pillar = Some(served);
        let minion = crate::workspace::minion::from_config(&ws);
        let fs: Arc<dyn Vfs> = Arc::new(mem);
        let roots = FileRoots::scan(&*fs, &ws.opts.pillar_roots);
        let jinja = JinjaSetup::new(&minion, &ws.opts, |_, _| None);
        let who = PillarMinion { id: &minion.id, grains: &minion.grains, nodegroups: &minion.nodegroups, facts: None };
        let mut files = FileTable::default();
        let p = super::super::compile(&fs, &roots, &mut files, &ws.opts, &who, None, &jinja, None);
        let mut out = format!("{}\n", p.pillar);
        for (path, o) in p.origins.leaves() {
            let l = &p.layers[o.layer];
            let at = o.at.as_ref().map(|at| format!("{}:{}", files.path(at.file).display(), files.human(at.file, at.span.start).0));
            let over: Vec<String> = o.overrode.iter().map(|i| p.layers[*i].sls.clone()).collect();
            out.push_str(&format!("{} <- [{}] {} {} over {over:?}\n", path.join("."), l.env, l.sls, at.unwrap_or_default()));
        }
        for e in &p.errors {
            let at = e.diag.loc.as_ref().map(|at| format!("{}:{}", files.path(at.file).display(), files.human(at.file, at.span.start).0));
            let kind = match (&e.salt, e.carried) {
                (None, _) => "finding",
                (Some(_), false) => "_errors",
                (Some(_), true) => "_errors of a remote",
            };
            out.push_str(&format!("{kind} at {at:?}: {}\n", e.diag.message));
        }
        expect.assert_eq(&out);
    }

    #[test]
    fn remotes_are_compiled_per_environment_and_merged_in_order() {
        // Salt 3008.4 `salt-call --local pillar.items` printed the same (GitPython provider):
        // `dev` is its own environment, whose top file names `dev`; the `__env__` remote checks
        // out the `base` branch (`master`) as `base`; `mounted` is only reachable through an
        // include, from a remote of the same environment.
        check(
            r#"
#- etc/minion
id: web01
pillar_roots: {}
grains: {os_family: Debian}
ext_pillar:
  - git:
    - master file:///srv/a
    - dev file:///srv/a
    - __env__ file:///srv/b:
      - mountpoint: salt://mounted
    - __env__ file:///srv/c
#- trees/a/master/top.sls
{{ saltenv }}:
  '*': [common, inc]
#- trees/a/master/common.sls
common: {from: a-master, list: [a]}
#- trees/a/master/inc.sls
include: [mounted.extra]
inc: {{ saltenv }}
#- trees/a/dev/top.sls
dev:
  'os_family:Debian':
    - match: grain
    - common
#- trees/a/dev/common.sls
common: {dev: true}
#- trees/b/master/mounted/top.sls
base:
  '*': [nothing]
#- trees/b/master/mounted/extra.sls
extra: from b
#- trees/c/master/top.sls
base:
  '*': [c]
#- trees/c/master/c.sls
common: {from: c}
"#,
            expect![[r#"
                {"common":{"from":"c","list":["a"],"dev":true},"extra":"from b","inc":"base"}
                common.from <- [base] c /ws/trees/c/master/c.sls:1 over ["common"]
                common.list <- [base] common /ws/trees/a/master/common.sls:1 over []
                common.dev <- [dev] common /ws/trees/a/dev/common.sls:1 over []
                extra <- [base] mounted.extra /ws/trees/b/master/mounted/extra.sls:1 over []
                inc <- [base] inc  over []
            "#]],
        );
    }

    #[test]
    fn pillarenv_selects_the_remotes_and_maps_env() {
        // Salt 3008.4 printed {"x": "dev", "_errors": [...], "y": "dev"}.
        // With `pillarenv: dev`, only remotes whose environment is `dev` are compiled: the
        // `__env__` remote checks out `dev`, the `env: dev` remote is `dev` whatever its branch,
        // `master` is `base` and left out; a missing branch gives nothing.
        check(
            r#"
#- etc/minion
id: web01
pillar_roots: {}
pillarenv: dev
ext_pillar:
  - git:
    - master file:///srv/a
    - __env__ file:///srv/a
    - qa file:///srv/b:
      - env: dev
    - nope file:///srv/b
#- trees/a/master/top.sls
base: {'*': [x]}
#- trees/a/master/x.sls
x: master
#- trees/a/dev/top.sls
dev: {'*': [x, missing]}
#- trees/a/dev/x.sls
x: dev
#- trees/b/qa/top.sls
dev: {'*': [y]}
#- trees/b/qa/y.sls
y: {{ saltenv }}
"#,
            expect![[r#"
                {"x":"dev","_errors":["Specified SLS 'missing' in environment 'dev' is not available on the salt master"],"y":"dev"}
                x <- [dev] x /ws/trees/a/dev/x.sls:1 over []
                _errors <- []   over []
                y <- [dev] y  over []
                _errors of a remote at Some("/ws/trees/a/dev/top.sls:1"): Specified SLS 'missing' in environment 'dev' is not available on the salt master: the pillar top assigns it without `ignore_missing`, and no pillar root of `dev` has it
            "#]],
        );
    }

    #[test]
    fn env_follows_the_configured_saltenv_in_both_compiles() {
        // Salt 3008.4 printed {"d": 2}: `pillar.items` passes no saltenv, but `Pillar.__gen_opts`
        // keeps the configuration's, so `__env__` checks out `dev` in both of salt-call's compiles.
        check(
            r#"
#- etc/minion
id: web01
pillar_roots: {}
saltenv: dev
ext_pillar:
  - git:
    - __env__ file:///srv/a
#- trees/a/master/top.sls
base: {'*': [x]}
#- trees/a/master/x.sls
x: master
#- trees/a/dev/top.sls
dev: {'*': [d]}
#- trees/a/dev/d.sls
d: 2
"#,
            expect![[r#"
                {"d":2}
                d <- [dev] d /ws/trees/a/dev/d.sls:1 over []
            "#]],
        );
    }

    #[test]
    fn a_remote_salt_refuses_fails_the_whole_entry() {
        // `base` without `__env__` is `failhard`: Salt 3008.4's `_errors` said
        // "Failed to load ext_pillar git: Failed to load git_pillar", and nothing else.
        check(
            r#"
#- etc/minion
id: web01
pillar_roots: {}
ext_pillar:
  - git:
    - master file:///srv/a:
      - base: dev
#- trees/a/master/top.sls
base: {'*': [x]}
#- trees/a/master/x.sls
x: 1
"#,
            expect![[r#"
                {"_errors":["Failed to load ext_pillar git: Failed to load git_pillar"]}
                _errors <- []   over []
                _errors at None: the ext_pillar `git` failed: Failed to load git_pillar
            "#]],
        );
    }
}
