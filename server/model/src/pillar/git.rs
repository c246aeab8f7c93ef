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
/// compile, which arrive in the data; they are added to `errors` as carried ones.
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
        errors.extend(p.errors.into_iter().map(|e| PillarError { carried: true, ..e }));
        // `salt.utils.dictupdate.merge(ret, ..., strategy, merge_lists=...)`: the renderer is
        // the default `yaml`.
        if let Ok(merged) = dictupdate::merge(&mut ret, &p.pillar, &g.o.strategy, "yaml", g.o.merge_lists) {
            ret = merged;
        }
    }
    Ok(ret)
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use expect_test::{expect, Expect};

    use super::*;
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
        let who = PillarMinion { id: &minion.id, grains: &minion.grains, nodegroups: &minion.nodegroups };
        let mut files = FileTable::default();
        let p = super::super::compile(&fs, &roots, &mut files, &ws.opts, &who, None, &jinja, None);
        let mut out = format!("{}\n", p.pillar);
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
                _errors of a remote at Some("/ws/trees/a/dev/top.sls:1"): Specified SLS 'missing' in environment 'dev' is not available on the salt master: the pillar top assigns it without `ignore_missing`, and no pillar root of `dev` has it
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
                _errors at None: the ext_pillar `git` failed: Failed to load git_pillar
            "#]],
        );
    }
}
