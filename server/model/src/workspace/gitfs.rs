//! Salt's gitfs fileserver backend as the options configure it: `fileserver_backend`'s order,
//! `gitfs_remotes` with their per-remote options over the global `gitfs_*` ones, and which
//! branch, tag or commit (and which `root` and `mountpoint`) each remote serves for each
//! saltenv. Pure: the refs of each remote's local copy are handed in, and the trees are
//! mounted by the `salt-gitfs` crate, which puts their paths into [`Opts::gitfs_roots`](crate::workspace::config::Opts).

use indexmap::IndexMap;
use serde_json::Value;

use crate::py::builtins::{str_of as py_str, truthy};

/// One saltenv's overrides (`saltenv: [{dev: [{ref: develop}, {mountpoint: x}]}]`), per remote
/// or global (`gitfs_saltenv`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EnvConf {
    pub r#ref: Option<String>,
    pub root: Option<String>,
    pub mountpoint: Option<String>,
}

/// One entry of `gitfs_remotes` with the global options filled in (`GitProvider.__init__`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Remote {
    /// The remote as written (its URL for gitfs; `BRANCH URL` for git_pillar).
    pub id: String,
    pub url: String,
    /// git_pillar's branch (`__env__` maps the pillarenv).
    pub branch: Option<String>,
    /// The per-remote `name`, which names the master's cache directory.
    pub name: Option<String>,
    /// git_pillar's `env` (per-remote, else `git_pillar_env`): the pillar environment the
    /// remote's tree is for, whatever its branch.
    pub env: Option<String>,
    pub base: String,
    pub root: String,
    pub mountpoint: String,
    pub ref_types: Vec<String>,
    pub saltenv_whitelist: Vec<String>,
    pub saltenv_blacklist: Vec<String>,
    pub disable_saltenv_mapping: bool,
    pub all_saltenvs: Option<String>,
    pub fallback: String,
    pub saltenv: IndexMap<String, EnvConf>,
    pub global_saltenv: IndexMap<String, EnvConf>,
    /// Ref to the saltenvs mapped to it (`saltenv_revmap`, built as `init_remotes` builds it).
    pub revmap: IndexMap<String, Vec<String>>,
}

/// What a remote's local copy holds, as `envs()` reads it.
#[derive(Debug, Clone, Default)]
pub struct RemoteRefs {
    pub branches: Vec<String>,
    pub tags: Vec<String>,
}

/// What a remote serves for one saltenv: the ref (`kind` is `branch`, `tag` or `sha`, the
/// first of `ref_types` that has it), and where its files appear.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Served {
    pub kind: &'static str,
    pub r#ref: String,
    pub root: String,
    pub mountpoint: String,
}

/// A configuration problem Salt logs as critical and stops the backend for.
pub type ConfigProblem = String;

/// The backends `fileserver_backend` lists, lower-cased, in order (Salt's default: `roots`).
/// `git` is gitfs's alias.
pub fn fileserver_backend(raw: &Value) -> Vec<String> {
    let list = match raw.get("fileserver_backend") {
        Some(Value::Array(a)) => a.iter().map(py_str).collect(),
        Some(Value::String(s)) => s.split(',').map(|x| x.trim().to_string()).collect(),
        _ => vec!["roots".to_string()],
    };
    list.into_iter()
        .map(|b| {
            let b = b.to_lowercase();
            let b = b.strip_suffix("fs").filter(|s| *s == "git").map(|_| "gitfs".to_string()).unwrap_or(b);
            if b == "git" {
                "gitfs".to_string()
            } else {
                b
            }
        })
        .collect()
}

/// The remotes of a role (`gitfs`, or `git_pillar` with `remotes` taken from an ext_pillar
/// entry), each with the global options and per-remote overrides applied. Entries Salt
/// refuses (an unknown per-remote option, a bad ref type) are problems, and the entry is
/// left out.
pub fn remotes(raw: &Value, role: &str, list: &[Value]) -> (Vec<Remote>, Vec<ConfigProblem>) {
    const OVERRIDES: &[&str] = &[
        "base",
        "fallback",
        "mountpoint",
        "root",
        "ssl_verify",
        "saltenv_whitelist",
        "saltenv_blacklist",
        "refspecs",
        "disable_saltenv_mapping",
        "ref_types",
        "update_interval",
        "proxy",
        "depth",
    ];
    // `salt/pillar/git_pillar.py` `PER_REMOTE_OVERRIDES`, `PER_REMOTE_ONLY`.
    const PILLAR_OVERRIDES: &[&str] = &["base", "env", "root", "ssl_verify", "refspecs", "fallback", "proxy", "ref_types", "disable_saltenv_mapping", "depth"];
    const AUTH: &[&str] = &["user", "password", "pubkey", "privkey", "passphrase", "insecure_auth"];
    const ONLY: &[&str] = &["all_saltenvs", "name", "saltenv"];
    const PILLAR_ONLY: &[&str] = &["name", "mountpoint", "all_saltenvs"];
    let (overrides, only) = if role == "gitfs" { (OVERRIDES, ONLY) } else { (PILLAR_OVERRIDES, PILLAR_ONLY) };
    let global = |key: &str| raw.get(format!("{role}_{key}"));
    let gstr = |key: &str, dflt: &str| global(key).map(py_str).unwrap_or_else(|| dflt.to_string());
    let global_saltenv = env_confs(global("saltenv"), true);
    let mut out = Vec::new();
    let mut problems = Vec::new();
    for entry in list {
        let (id, per) = match entry {
            Value::Object(o) if o.len() == 1 => {
                let (k, v) = o.iter().next().map(|(k, v)| (k.clone(), v.clone())).unwrap_or_default();
                (k, Some(v))
            }
            Value::String(s) => (s.clone(), None),
            Value::Number(_) | Value::Bool(_) => (py_str(entry), None),
            _ => {
                problems.push(format!("{role}: invalid remote {entry}"));
                continue;
            }
        };
        let mut r = Remote {
            id: id.clone(),
            url: id.clone(),
            base: gstr("base", "master"),
            root: gstr("root", ""),
            mountpoint: gstr("mountpoint", ""),
            ref_types: global("ref_types").map(stringlist).unwrap_or_else(|| vec!["branch".into(), "tag".into(), "sha".into()]),
            saltenv_whitelist: global("saltenv_whitelist").map(stringlist).unwrap_or_default(),
            saltenv_blacklist: global("saltenv_blacklist").map(stringlist).unwrap_or_default(),
            disable_saltenv_mapping: global("disable_saltenv_mapping").is_some_and(truthy),
            fallback: gstr("fallback", ""),
            global_saltenv: global_saltenv.clone(),
            ..Remote::default()
        };
        if role != "gitfs" {
            let mut parts = id.splitn(2, char::is_whitespace);
            match (parts.next(), parts.next()) {
                (Some(b), Some(u)) => {
                    r.branch = Some(b.to_string());
                    r.url = u.trim().to_string();
                }
                _ => r.branch = Some(gstr("branch", "master")),
            }
        }
        if role != "gitfs" {
            r.env = Some(gstr("env", "")).filter(|e| !e.is_empty());
        }
        if let Some(per) = per {
            let Some(conf) = dictlist(&per) else {
                problems.push(format!("Invalid per-remote configuration for {role} remote '{id}'. If no per-remote parameters are being specified, there may be a trailing colon after the URL, which should be removed. Check the master configuration file."));
                continue;
            };
            if role == "git_pillar" && r.branch.as_deref() != Some("__env__") && conf.contains_key("base") {
                problems.push(format!(
                    "Invalid per-remote configuration for {role} remote '{id}'. base can only be specified if __env__ is specified as the branch name."
                ));
                continue;
            }
            let mut bad = Vec::new();
            for (k, v) in &conf {
                match k.as_str() {
                    "base" => r.base = py_str(v),
                    "root" => r.root = py_str(v),
                    "mountpoint" => r.mountpoint = py_str(v),
                    "env" if role != "gitfs" => r.env = Some(py_str(v)).filter(|e| !e.is_empty()),
                    "fallback" => r.fallback = py_str(v),
                    "ref_types" => r.ref_types = stringlist(v),
                    "saltenv_whitelist" if role == "gitfs" => r.saltenv_whitelist = stringlist(v),
                    "saltenv_blacklist" if role == "gitfs" => r.saltenv_blacklist = stringlist(v),
                    "disable_saltenv_mapping" => r.disable_saltenv_mapping = truthy(v),
                    "name" => r.name = Some(py_str(v)),
                    "all_saltenvs" => r.all_saltenvs = Some(py_str(v)),
                    "saltenv" if role == "gitfs" => r.saltenv = env_confs(Some(v), false),
                    k if overrides.contains(&k) || AUTH.contains(&k) || only.contains(&k) => {}
                    k => bad.push(k.to_string()),
                }
            }
            if !bad.is_empty() {
                for k in bad {
                    let mut valid: Vec<&str> = overrides.to_vec();
                    valid.extend(only);
                    problems.push(format!("Invalid {role} configuration parameter '{k}' in remote '{id}'. Valid parameters are: {}.", valid.join(", ")));
                }
                continue;
            }
        }
        r.mountpoint = strip_proto(&r.mountpoint).trim_matches('/').to_string();
        r.ref_types = r.ref_types.iter().map(|t| t.to_lowercase()).collect();
        let invalid: Vec<&String> = r.ref_types.iter().filter(|t| !["branch", "tag", "sha"].contains(&t.as_str())).collect();
        if !invalid.is_empty() {
            problems.push(format!(
                "The following ref_types for {role} remote '{id}' are invalid: {}. The supported values are: branch, tag, sha",
                invalid.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(", ")
            ));
            continue;
        }
        // `init_remotes`: the reverse map, `base` rewritten by a per-remote `base` saltenv.
        for (env, conf) in r.saltenv.iter_mut() {
            if let Some(rf) = conf.r#ref.clone() {
                r.revmap.entry(rf.clone()).or_default().push(env.clone());
                if env == "base" {
                    conf.r#ref = None;
                    r.base = rf;
                }
            }
        }
        let mapped: Vec<String> = r.revmap.values().flatten().cloned().collect();
        for (env, conf) in &r.global_saltenv {
            if let Some(rf) = &conf.r#ref {
                if !mapped.contains(env) {
                    r.revmap.entry(rf.clone()).or_default().push(env.clone());
                }
            }
        }
        out.push(r);
    }
    (out, problems)
}

/// gitfs's remotes from the options (`gitfs_remotes`).
pub fn gitfs_remotes(raw: &Value) -> (Vec<Remote>, Vec<ConfigProblem>) {
    match raw.get("gitfs_remotes") {
        Some(Value::Array(list)) => remotes(raw, "gitfs", list),
        _ => (Vec::new(), Vec::new()),
    }
}

impl Remote {
    /// `GitProvider.env_is_exposed`.
    pub fn env_is_exposed(&self, env: &str) -> bool {
        let m = |e: &String| expr_match(env, e);
        let black = self.saltenv_blacklist.iter().any(m);
        let white = self.saltenv_whitelist.iter().any(m);
        match (self.saltenv_blacklist.is_empty(), self.saltenv_whitelist.is_empty()) {
            (false, true) => !black,
            (true, false) => white,
            (false, false) => !black && white,
            (true, true) => true,
        }
    }

    /// `GitProvider.envs()`, plus the reverse map's environments (`GitFS.envs`), exposed ones only.
    pub fn envs(&self, refs: &RemoteRefs) -> Vec<String> {
        let mut ret: Vec<String> = Vec::new();
        let mut add = |e: &str| {
            if !ret.iter().any(|x| x == e) {
                ret.push(e.to_string());
            }
        };
        let check_ref = |name: &str, add: &mut dyn FnMut(&str)| {
            if let Some(envs) = self.revmap.get(name) {
                envs.iter().for_each(|e| add(e));
            } else if name == self.base {
                add("base");
            } else if !self.disable_saltenv_mapping {
                add(name);
            }
        };
        if is_hex(&self.base) {
            add("base");
        }
        if self.ref_types.iter().any(|t| t == "branch") {
            refs.branches.iter().for_each(|b| check_ref(b, &mut add));
        }
        if self.ref_types.iter().any(|t| t == "tag") {
            refs.tags.iter().for_each(|t| check_ref(t, &mut add));
        }
        for envs in self.revmap.values() {
            envs.iter().for_each(|e| add(e));
        }
        ret.retain(|e| self.env_is_exposed(e));
        ret
    }

    fn per_env(&self, env: &str, get: impl Fn(&EnvConf) -> Option<&String>) -> Option<String> {
        self.saltenv.get(env).and_then(&get).or_else(|| self.global_saltenv.get(env).and_then(&get)).cloned()
    }

    /// The ref a saltenv maps to (`_getconf` for `ref`), `None` when it maps to none.
    pub fn ref_for(&self, env: &str) -> Option<String> {
        let per_env = self.per_env(env, |c| c.r#ref.as_ref());
        if let Some(all) = &self.all_saltenvs {
            return Some(all.clone());
        }
        if env == "base" {
            Some(self.base.clone())
        } else if self.disable_saltenv_mapping {
            per_env
        } else {
            Some(per_env.unwrap_or_else(|| env.to_string()))
        }
    }

    /// `root` for a saltenv (per-remote saltenv, global saltenv, the remote's).
    pub fn root_for(&self, env: &str) -> String {
        self.per_env(env, |c| c.root.as_ref()).unwrap_or_else(|| self.root.clone()).trim_end_matches('/').to_string()
    }

    /// `mountpoint` for a saltenv.
    pub fn mountpoint_for(&self, env: &str) -> String {
        self.per_env(env, |c| c.mountpoint.as_ref()).map(|m| strip_proto(&m)).unwrap_or_else(|| self.mountpoint.clone()).trim_end_matches('/').to_string()
    }

    /// `get_tree(env)`: which ref serves the saltenv, trying `ref_types` in order (then
    /// `fallback`); `has_sha` says whether a hex name is a commit of the repository.
    pub fn serve(&self, env: &str, refs: &RemoteRefs, has_sha: &dyn Fn(&str) -> bool) -> Option<Served> {
        if !self.env_is_exposed(env) {
            return None;
        }
        let wanted = self.ref_for(env)?;
        let find = |name: &str| {
            self.ref_types.iter().find_map(|t| {
                let (hit, kind) = match t.as_str() {
                    "branch" => (refs.branches.iter().any(|b| b == name), "branch"),
                    "tag" => (refs.tags.iter().any(|x| x == name), "tag"),
                    _ => (is_hex(name) && has_sha(name), "sha"),
                };
                hit.then_some(kind)
            })
        };
        let (kind, name) = match find(&wanted) {
            Some(k) => (k, wanted),
            None if !self.fallback.is_empty() => (find(&self.fallback)?, self.fallback.clone()),
            None => return None,
        };
        Some(Served { kind, r#ref: name, root: self.root_for(env), mountpoint: self.mountpoint_for(env) })
    }
}

/// One `- git:` entry of `ext_pillar` as served: its remotes, or why Salt refuses the whole
/// entry (`failhard`: the entry raises `Failed to load git_pillar`).
#[derive(Debug, Clone, Default)]
pub struct PillarEntry {
    pub remotes: Vec<PillarRemote>,
    pub failed: Option<String>,
}

/// A git_pillar remote with the trees its local copy was mounted as: checkout target (what
/// [`Remote::checkout_target`] names) to the directory the tree's `root` appears at (below
/// the remote's `mountpoint` there, when it has one). A target with no tree (no local copy,
/// no such branch or tag, no `root` in it) is left out: Salt skips the remote.
#[derive(Debug, Clone, Default)]
pub struct PillarRemote {
    pub remote: Remote,
    pub trees: IndexMap<String, std::path::PathBuf>,
}

/// `ext_pillar`'s `- git:` entries in order, each with its remotes as Salt reads them
/// (`GitPillar(opts, repos)` with git_pillar's per-remote options); the entries' position
/// among the other ext_pillar entries does not count.
pub fn git_pillar_entries(raw: &Value) -> Vec<(Vec<Remote>, Vec<ConfigProblem>)> {
    let entries = raw.get("ext_pillar").and_then(Value::as_array).into_iter().flatten();
    entries
        .filter_map(|e| e.as_object()?.get("git"))
        .map(|conf| {
            let list = match conf {
                Value::Array(a) => a.clone(),
                other => vec![other.clone()],
            };
            remotes(raw, "git_pillar", &list)
        })
        .collect()
}

/// `opts.get(k) or ...`: a set, non-empty value.
fn set(v: Option<&str>) -> Option<&str> {
    v.filter(|s| !s.is_empty())
}

impl Remote {
    /// `GitProvider.get_checkout_target`: the branch or tag a git_pillar remote checks out,
    /// `__env__` being the pillarenv (else the saltenv, else `base`, which is the `base`
    /// branch) unless `all_saltenvs` names one.
    pub fn checkout_target(&self, pillarenv: Option<&str>, saltenv: Option<&str>) -> String {
        let branch = self.branch.clone().unwrap_or_default();
        if branch != "__env__" {
            return branch;
        }
        if let Some(all) = &self.all_saltenvs {
            return all.clone();
        }
        match set(pillarenv).or(set(saltenv)).unwrap_or("base") {
            "base" => self.base.clone(),
            t => t.to_string(),
        }
    }

    /// `GitPillar.checkout`: the pillar environment the remote's tree is compiled as (`env`
    /// may still be `__env__`, which `ext_pillar` maps).
    pub fn pillar_env(&self, pillarenv: Option<&str>, saltenv: Option<&str>) -> String {
        if self.branch.as_deref() == Some("__env__") && self.all_saltenvs.is_some() {
            return set(pillarenv).or(set(saltenv)).unwrap_or("base").to_string();
        }
        if let Some(env) = &self.env {
            return env.clone();
        }
        if self.branch.as_deref() == Some(self.base.as_str()) {
            return "base".into();
        }
        let target = self.checkout_target(pillarenv, saltenv);
        if target == self.base {
            "base".into()
        } else {
            target
        }
    }

    /// `GitPython.checkout`: the ref a checkout target resolves to, `origin/TARGET` (a
    /// branch) before `tags/TARGET`, then the same for `fallback`.
    pub fn checkout(&self, target: &str, refs: &RemoteRefs) -> Option<(&'static str, String)> {
        let find = |name: &str| {
            if refs.branches.iter().any(|b| b == name) {
                Some(("branch", name.to_string()))
            } else if refs.tags.iter().any(|t| t == name) {
                Some(("tag", name.to_string()))
            } else {
                None
            }
        };
        find(target).or_else(|| Some(self.fallback.as_str()).filter(|f| !f.is_empty()).and_then(find))
    }
}

/// Every saltenv the remotes serve (`GitFS.envs`: sorted), and per saltenv what each remote
/// with a local copy serves, in remote order. `refs[i]` is `None` for a remote with no local copy.
pub fn plan(remotes: &[Remote], refs: &[Option<RemoteRefs>], has_sha: &dyn Fn(usize, &str) -> bool) -> IndexMap<String, Vec<(usize, Served)>> {
    let mut envs: Vec<String> = Vec::new();
    for (r, refs) in remotes.iter().zip(refs) {
        if let Some(refs) = refs {
            envs.extend(r.envs(refs));
        }
    }
    envs.sort();
    envs.dedup();
    envs.into_iter()
        .map(|env| {
            let served = remotes
                .iter()
                .zip(refs)
                .enumerate()
                .filter_map(|(i, (r, refs))| refs.as_ref().and_then(|refs| r.serve(&env, refs, &|s| has_sha(i, s))).map(|s| (i, s)))
                .collect();
            (env, served)
        })
        .collect()
}

/// `salt.utils.stringutils.is_hex`: `int(value, 16)` succeeds.
pub fn is_hex(s: &str) -> bool {
    let t = s.trim();
    let t = t.strip_prefix(['+', '-']).unwrap_or(t);
    let t = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")).unwrap_or(t);
    !t.is_empty() && !t.starts_with('_') && !t.ends_with('_') && !t.contains("__") && t.chars().all(|c| c.is_ascii_hexdigit() || c == '_')
}

/// `salt.utils.url.strip_proto`.
pub fn strip_proto(url: &str) -> String {
    match url.find("://") {
        Some(i) if i > 0 && !url[..i].contains(['/', ':']) => url[i + 3..].to_string(),
        _ => url.to_string(),
    }
}

/// `salt.utils.stringutils.expr_match`: a glob, else a regex matched whole.
fn expr_match(line: &str, expr: &str) -> bool {
    crate::py::fnmatch::fnmatch(line, expr) || crate::py::re::PyRegex::compile(&format!(r"\A{expr}\Z")).and_then(|r| r.re_match(line)).unwrap_or(false)
}

/// `enforce_types`' `stringlist`: a comma-separated string or a list of strings.
fn stringlist(v: &Value) -> Vec<String> {
    match v {
        Value::Array(a) => a.iter().map(py_str).collect(),
        other => py_str(other).split(',').map(|x| x.trim().to_string()).collect(),
    }
}

/// `repack_dictlist`: a list of one-key mappings (or a mapping) as one mapping; `None` when
/// the list holds something else.
fn dictlist(v: &Value) -> Option<IndexMap<String, Value>> {
    match v {
        Value::Object(o) => Some(o.iter().map(|(k, v)| (k.clone(), v.clone())).collect()),
        Value::Array(a) => {
            let mut out = IndexMap::new();
            for e in a {
                match e {
                    Value::Object(o) if o.len() == 1 => {
                        let (k, v) = o.iter().next()?;
                        out.insert(k.clone(), v.clone());
                    }
                    Value::String(_) | Value::Number(_) => {
                        out.insert(py_str(e), Value::Null);
                    }
                    _ => return None,
                }
            }
            (!out.is_empty()).then_some(out)
        }
        _ => None,
    }
}

/// A `saltenv` mapping (per-remote or `gitfs_saltenv`): saltenv to its `ref`, `root`,
/// `mountpoint`.
fn env_confs(v: Option<&Value>, _global: bool) -> IndexMap<String, EnvConf> {
    let Some(envs) = v.and_then(dictlist) else { return IndexMap::new() };
    envs.into_iter()
        .map(|(env, conf)| {
            let c = dictlist(&conf).unwrap_or_default();
            let get = |k: &str| c.get(k).filter(|v| !v.is_null()).map(py_str);
            (env, EnvConf { r#ref: get("ref"), root: get("root"), mountpoint: get("mountpoint") })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg(yaml: &str) -> Value {
        let node = syntax::yaml::load(yaml).unwrap();
        crate::value::Val::from_node(&node, 0).to_json()
    }

    fn refs(branches: &[&str], tags: &[&str]) -> RemoteRefs {
        RemoteRefs { branches: branches.iter().map(|s| s.to_string()).collect(), tags: tags.iter().map(|s| s.to_string()).collect() }
    }

    fn show(p: &IndexMap<String, Vec<(usize, Served)>>) -> String {
        p.iter()
            .map(|(env, s)| {
                let s: Vec<String> = s.iter().map(|(i, s)| format!("{i}:{}:{}[{}|{}]", s.kind, s.r#ref, s.root, s.mountpoint)).collect();
                format!("{env} = {}", s.join(" "))
            })
            .collect::<Vec<_>>()
            .join("\n")
    }

    #[test]
    fn branches_and_tags_become_saltenvs() {
        let raw =
            cfg("fileserver_backend: [roots, git]\ngitfs_remotes:\n  - file:///a\n  - file:///b:\n    - root: states\n    - mountpoint: salt://formulas/b\n");
        assert_eq!(fileserver_backend(&raw), ["roots", "gitfs"]);
        let (rs, problems) = gitfs_remotes(&raw);
        assert!(problems.is_empty(), "{problems:?}");
        let p = plan(&rs, &[Some(refs(&["master", "dev"], &["v1"])), Some(refs(&["master"], &[]))], &|_, _| false);
        expect_test::expect![[r#"
            base = 0:branch:master[|] 1:branch:master[states|formulas/b]
            dev = 0:branch:dev[|]
            v1 = 0:tag:v1[|]"#]]
        .assert_eq(&show(&p));
    }

    #[test]
    fn saltenv_mappings_base_types_and_lists() {
        let raw = cfg("gitfs_base: main\ngitfs_ref_types: [branch]\ngitfs_saltenv:\n  - qa:\n    - ref: develop\n    - mountpoint: salt://qa\ngitfs_saltenv_blacklist: [feat.*]\ngitfs_remotes:\n  - file:///a:\n    - saltenv:\n      - prod:\n        - ref: v2\n      - base:\n        - ref: stable\n    - ref_types: [branch, tag]\n  - file:///b:\n    - disable_saltenv_mapping: True\n    - all_saltenvs: trunk\n");
        let (rs, problems) = gitfs_remotes(&raw);
        assert!(problems.is_empty(), "{problems:?}");
        assert_eq!(rs[0].base, "stable");
        let p = plan(&rs, &[Some(refs(&["main", "stable", "develop", "feature1"], &["v2"])), Some(refs(&["trunk", "x"], &[]))], &|_, _| false);
        expect_test::expect![[r#"
            base = 0:branch:stable[|] 1:branch:trunk[|]
            main = 0:branch:main[|] 1:branch:trunk[|]
            prod = 0:tag:v2[|] 1:branch:trunk[|]
            qa = 0:branch:develop[|qa] 1:branch:trunk[|qa]"#]]
        .assert_eq(&show(&p));
        let (_, problems) = gitfs_remotes(&cfg("gitfs_remotes:\n  - file:///a:\n    - bogus: 1\n  - file:///b:\n    - ref_types: [branch, ref]\n"));
        assert_eq!(problems.len(), 2, "{problems:?}");
        assert!(problems[0].starts_with("Invalid gitfs configuration parameter 'bogus' in remote 'file:///a'"), "{}", problems[0]);
    }

    #[test]
    fn hex_and_proto() {
        assert!(is_hex("deadbeef") && is_hex("0x1f") && !is_hex("master") && !is_hex(""));
        assert_eq!(strip_proto("salt://a/b"), "a/b");
        assert_eq!(strip_proto("a/b"), "a/b");
    }
}
