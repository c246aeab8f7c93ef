//! Zero configuration: where a repository without `salt-analyzer.yaml` or `-c` keeps its
//! states and its pillar, found as a user lays them out. A Salt configuration in the
//! repository (`master`, `minion`, `master.d/*.conf`, a `*.conf` naming `file_roots` or
//! `pillar_roots`) wins for what it names,
//! its absolute paths mapped into the repository; else the shallowest `top.sls` outside a
//! pillar directory is `base`'s root (one root per environment when the environments sit side
//! by side: `salt/base`, `salt/dev`), and the shallowest one inside a directory named
//! `*pillar*` is the pillar's. What was found is said in one line, with how to override it.

use std::path::{Path, PathBuf};

use indexmap::IndexMap;

use crate::value::{Dict, Val, V};
use crate::workspace::config::{merge_into, opts_from_dict, roots_of, Opts};
use crate::workspace::vfs::Vfs;

/// How deep below the workspace root a `top.sls` or a configuration file is looked for
/// (`srv/salt/states/top.sls` is three directories down).
pub const DEPTH: usize = 3;

/// Roots per environment.
pub type Roots = IndexMap<String, Vec<PathBuf>>;

/// What zero configuration found.
#[derive(Debug, Clone, Default)]
pub struct Discovery {
    /// The state file roots (empty: nothing found, and the workspace root serves `base`).
    pub file_roots: Roots,
    /// The pillar roots (empty: no pillar).
    pub pillar_roots: Roots,
    /// The Salt configuration in the repository whose options were used, and what it set
    /// besides the roots (nodegroups, merging strategy, ext_pillar, ...).
    pub config: Option<(Vec<PathBuf>, Dict)>,
    /// The top files the roots were chosen by (state, then pillar).
    pub tops: Vec<PathBuf>,
    /// Directories a configuration named that do not exist in the repository.
    pub unmapped: Vec<String>,
    /// Directories named `*pillar*` holding SLS files that no pillar root found covers (a
    /// formula's `test/salt/pillar/`, kitchen's pillar data): pillar, never checked as states.
    pub pillar_data: Vec<PathBuf>,
    /// SLS files named as top files (`state_top.sls`, `top_dev.sls`) and shaped as one, besides
    /// the roots' `top.sls`: a `state_top` some configuration names, never checked as states.
    pub other_tops: Vec<PathBuf>,
}

impl Discovery {
    /// Whether anything was found.
    pub fn found(&self) -> bool {
        !self.file_roots.is_empty()
    }

    /// The options: the configuration's when one was found (with `overrides`, the workspace
    /// file's own, over it), with the roots found (`root` itself serving `base` when no state
    /// root was).
    pub fn opts(&self, root: &Path, overrides: &Dict) -> Opts {
        let mut merged = self.config.as_ref().map(|(_, d)| d.clone()).unwrap_or_default();
        merge_into(&mut merged, overrides.clone());
        let mut opts = opts_from_dict(&merged);
        opts.sources = self.config.as_ref().map(|(s, _)| s.clone()).unwrap_or_default();
        opts.file_roots = if self.file_roots.is_empty() { IndexMap::from([("base".to_string(), vec![root.to_path_buf()])]) } else { self.file_roots.clone() };
        opts.pillar_roots = self.pillar_roots.clone();
        opts
    }

    /// One line: what was found, relative to `root`, and how to override it.
    pub fn summary(&self, root: &Path) -> String {
        let show = |p: &Path| match p.strip_prefix(root) {
            Ok(r) if r.as_os_str().is_empty() => ".".to_string(),
            Ok(r) => format!("{}/", r.display()),
            Err(_) => p.display().to_string(),
        };
        let roots = |r: &Roots| {
            r.iter().map(|(env, dirs)| format!("{env}: {}", dirs.iter().map(|d| show(d)).collect::<Vec<_>>().join(" "))).collect::<Vec<_>>().join(", ")
        };
        let how = "set file_roots/pillar_roots in salt-analyzer.yaml, or give -c DIR, to override";
        let data = if self.pillar_data.is_empty() {
            String::new()
        } else {
            // A file as it is, a directory with its `/`; a long list shortened.
            let shown: Vec<String> = self
                .pillar_data
                .iter()
                .take(3)
                .map(|d| if d.extension().is_some_and(|e| e == "sls") { show(d).trim_end_matches('/').to_string() } else { show(d) })
                .collect();
            let more = self.pillar_data.len().saturating_sub(3);
            let more = if more > 0 { format!(" and {more} more") } else { String::new() };
            format!("; pillar data, not checked as states: {}{more}", shown.join(" "))
        };
        let data = if self.other_tops.is_empty() {
            data
        } else {
            let shown: Vec<String> = self.other_tops.iter().take(3).map(|d| show(d).trim_end_matches('/').to_string()).collect();
            let more = self.other_tops.len().saturating_sub(3);
            let more = if more > 0 { format!(" and {more} more") } else { String::new() };
            format!("{data}; top files, not checked as states: {}{more}", shown.join(" "))
        };
        if !self.found() {
            return format!(
                "no salt-analyzer.yaml, no Salt configuration and no top.sls within {DEPTH} directories of {}: it is base's only file root{data} ({how})",
                root.display()
            );
        }
        let mut said = format!("no salt-analyzer.yaml: states from {}", roots(&self.file_roots));
        if self.pillar_roots.is_empty() {
            said.push_str(", no pillar found");
        } else {
            said.push_str(&format!(", pillar from {}", roots(&self.pillar_roots)));
        }
        let by: Vec<String> =
            self.config.iter().flat_map(|(sources, _)| sources).chain(&self.tops).map(|s| show(s).trim_end_matches('/').to_string()).collect();
        if !by.is_empty() {
            said.push_str(&format!(" (found {})", by.join(", ")));
        }
        if !self.unmapped.is_empty() {
            said.push_str(&format!("; not in the repository: {}", self.unmapped.join(", ")));
        }
        format!("{said}{data}; {how}")
    }
}

/// Find the roots of the repository at `root`.
pub fn discover(fs: &dyn Vfs, root: &Path) -> Discovery {
    let files = fs.walk_shallow(root, DEPTH + 1);
    let mut found = Discovery::default();
    if let Some((sources, d)) = configuration(fs, root, &files) {
        let mut unmapped = Vec::new();
        let mut map_roots = |key: &str| -> Roots {
            let Some(raw) = d.get(key).and_then(|v| roots_of(v, |p: &str| PathBuf::from(p))) else { return Roots::new() };
            let config_dir = sources.first().and_then(|s| s.parent()).unwrap_or(root).to_path_buf();
            raw.into_iter()
                .map(|(env, dirs)| {
                    let mapped = dirs
                        .iter()
                        .filter_map(|d| {
                            let m = map_dir(&files, root, &config_dir, d);
                            if m.is_none() {
                                unmapped.push(d.display().to_string());
                            }
                            m
                        })
                        .collect();
                    (env, mapped)
                })
                .filter(|(_, dirs): &(String, Vec<PathBuf>)| !dirs.is_empty())
                .collect()
        };
        let file_roots = map_roots("file_roots");
        let pillar_roots = map_roots("pillar_roots");
        if !file_roots.is_empty() || !pillar_roots.is_empty() {
            found.file_roots = file_roots;
            found.pillar_roots = pillar_roots;
            found.unmapped = unmapped;
            found.config = Some((sources, d));
        }
    }
    let tops = top_dirs(&files);
    if found.file_roots.is_empty() {
        if let Some((roots, top)) = layout(fs, root, &files, &tops, false) {
            found.file_roots = roots.into_iter().map(|(env, dirs)| (env, dirs.into_iter().map(|d| join(root, &d)).collect())).collect();
            found.tops.push(join(root, &top));
        }
    }
    if found.pillar_roots.is_empty() {
        if let Some((roots, top)) = layout(fs, root, &files, &tops, true) {
            found.pillar_roots = roots.into_iter().map(|(env, dirs)| (env, dirs.into_iter().map(|d| join(root, &d)).collect())).collect();
            found.tops.push(join(root, &top));
        }
    }
    // Pillar data sits deeper than roots do (`test/salt/default/pillar/nginx.sls`).
    let deep = fs.walk_shallow(root, DEPTH + 3);
    found.pillar_data = pillar_data(root, &deep, &found.pillar_roots);
    found.other_tops = other_tops(fs, root, &deep, &found);
    found
}

/// SLS files named as a top file (`top` a word of the name: `state_top.sls`, `top-dev.sls`,
/// not `laptop.sls`), other than the roots' `top.sls` and the pillar's, whose data is a top
/// file's: environments mapping targets to lists. Loaded as an SLS file such a file is
/// malformed (a target reads as a state with too many functions); Salt reads it only as the
/// `state_top` a configuration names.
fn other_tops(fs: &dyn Vfs, root: &Path, files: &[String], found: &Discovery) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for f in files.iter().filter(|f| f.ends_with(".sls")) {
        let stem = f.rsplit('/').next().unwrap_or(f).trim_end_matches(".sls");
        if stem == "top" || !stem.split(['_', '-', '.']).any(|w| w.eq_ignore_ascii_case("top")) {
            continue;
        }
        let path = root.join(f);
        if found.pillar_data.iter().chain(found.pillar_roots.values().flatten()).any(|p| path.starts_with(p)) {
            continue;
        }
        if fs.read(&path).is_ok_and(|text| top_shaped(&text)) {
            out.push(path);
        }
    }
    out.sort();
    out
}

/// Whether a file's data is a top file's: every key maps to a non-empty mapping of targets to
/// lists of SLS names (and `match:`-style options), each naming one at least, read as plain
/// YAML (a templated one is left a state). A state's `pkg.installed: []` is no target.
fn top_shaped(text: &str) -> bool {
    let Ok(node) = syntax::yaml::load(text) else { return false };
    let data = Val::from_node(&node, 0);
    let Some(envs) = data.as_dict() else { return false };
    let entries = |sls: &Val| {
        sls.as_list().is_some_and(|items| {
            items.iter().any(|i| i.as_str().is_some()) && items.iter().all(|i| i.as_str().is_some() || i.as_dict().is_some_and(|d| d.len() == 1))
        })
    };
    !envs.0.is_empty()
        && envs
            .0
            .iter()
            .all(|(env, targets)| env.as_str().is_some() && targets.as_dict().is_some_and(|t| !t.0.is_empty() && t.0.iter().all(|(_, sls)| entries(sls))))
}

/// The shallowest directories named `*pillar*` with SLS files under them, and SLS files named
/// `*pillar*` (a test suite's `pillar.sls`), but those a pillar root covers.
fn pillar_data(root: &Path, files: &[String], pillar_roots: &Roots) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = Vec::new();
    for f in files.iter().filter(|f| f.ends_with(".sls")) {
        let parts: Vec<&str> = f.split('/').collect();
        let Some(at) = parts.iter().position(|c| is_pillar_dir(c)) else { continue };
        let dir = root.join(parts[..=at].join("/"));
        if pillar_roots.values().flatten().any(|p| dir.starts_with(p) || p.starts_with(&dir)) || out.contains(&dir) {
            continue;
        }
        out.push(dir);
    }
    out.sort();
    out
}

fn join(root: &Path, rel: &str) -> PathBuf {
    if rel.is_empty() {
        root.to_path_buf()
    } else {
        root.join(rel)
    }
}

/// Whether a relative directory is a pillar tree by its name.
fn is_pillar_dir(dir: &str) -> bool {
    dir.split('/').any(|c| c.to_ascii_lowercase().contains("pillar"))
}

/// The directories (relative, `""` for the root) holding a `top.sls`, shallowest first.
fn top_dirs(files: &[String]) -> Vec<String> {
    let mut dirs: Vec<String> = files
        .iter()
        .filter_map(|f| match f.rsplit_once('/') {
            Some((dir, "top.sls")) => Some(dir.to_string()),
            None if f == "top.sls" => Some(String::new()),
            _ => None,
        })
        .collect();
    dirs.sort_by_key(|d| (if d.is_empty() { 0 } else { d.split('/').count() }, d.clone()));
    dirs
}

/// The roots a set of top files lays out: the shallowest `top.sls` of the kind (pillar or
/// state). When its directory is named after an environment (`base`, or a section of that top
/// file), each sibling directory holding `.sls` files and named after an environment is that
/// environment's root (`salt/base/top.sls` beside `salt/dev/`).
fn layout(fs: &dyn Vfs, root: &Path, files: &[String], tops: &[String], pillar: bool) -> Option<(IndexMap<String, Vec<String>>, String)> {
    let dir = tops.iter().find(|d| is_pillar_dir(d) == pillar)?;
    let top = if dir.is_empty() { "top.sls".to_string() } else { format!("{dir}/top.sls") };
    let mut roots: IndexMap<String, Vec<String>> = IndexMap::new();
    let (parent, name) = match dir.rsplit_once('/') {
        Some((p, n)) => (p, n),
        None => ("", dir.as_str()),
    };
    // The environments the top names: its sections, keys at the start of a line.
    let text = fs.read(&root.join(&top)).unwrap_or_default();
    let mut envs: Vec<String> = ["base", "dev", "prod", "qa", "test", "staging", "production", "development"].map(String::from).to_vec();
    envs.extend(
        text.lines()
            .filter_map(|l| l.strip_suffix(':').filter(|k| !k.is_empty() && k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')))
            .map(str::to_string),
    );
    if !dir.is_empty() && envs.iter().any(|e| e == name) {
        let prefix = if parent.is_empty() { String::new() } else { format!("{parent}/") };
        let mut siblings: Vec<&str> = files
            .iter()
            .filter(|f| f.ends_with(".sls"))
            .filter_map(|f| f.strip_prefix(&prefix)?.split_once('/').map(|(d, _)| d))
            .filter(|d| envs.iter().any(|e| e == d))
            .collect();
        siblings.sort();
        siblings.dedup();
        roots.insert(name.to_string(), vec![dir.clone()]);
        for s in siblings {
            roots.entry(s.to_string()).or_insert_with(|| vec![format!("{prefix}{s}")]);
        }
        return Some((roots, top));
    }
    roots.insert("base".to_string(), vec![dir.clone()]);
    Some((roots, top))
}

/// A Salt configuration in the repository that names `file_roots` or `pillar_roots`: a directory with a
/// `master` or `minion` file (and its `.d` directory), a lone `master.d`/`minion.d`, or
/// another `*.conf` file. The shallowest wins.
fn configuration(fs: &dyn Vfs, root: &Path, files: &[String]) -> Option<(Vec<PathBuf>, Dict)> {
    let mut candidates: Vec<(usize, Vec<String>)> = Vec::new();
    let depth = |f: &str| f.matches('/').count();
    for f in files {
        let (dir, name) = f.rsplit_once('/').unwrap_or(("", f.as_str()));
        if name == "master" || name == "minion" {
            let conf_d = if dir.is_empty() { format!("{name}.d/") } else { format!("{dir}/{name}.d/") };
            let mut group = vec![f.clone()];
            let mut extra: Vec<String> =
                files.iter().filter(|x| x.strip_prefix(&conf_d).is_some_and(|r| r.ends_with(".conf") && !r.contains('/'))).cloned().collect();
            extra.sort();
            group.extend(extra);
            candidates.push((depth(f), group));
        } else if name.ends_with(".conf") {
            let in_d = dir.rsplit('/').next().is_some_and(|d| d == "master.d" || d == "minion.d");
            if in_d {
                let main = format!("{}/{}", dir.rsplit_once('/').map_or("", |(p, _)| p), dir.rsplit('/').next().unwrap_or("").trim_end_matches(".d"));
                let main = main.trim_start_matches('/').to_string();
                if files.contains(&main) || candidates.iter().any(|(_, g)| g.contains(f)) {
                    continue;
                }
                let mut group: Vec<String> =
                    files.iter().filter(|x| x.rsplit_once('/').is_some_and(|(d, n)| d == dir && n.ends_with(".conf"))).cloned().collect();
                group.sort();
                candidates.push((depth(f), group));
            } else {
                candidates.push((depth(f), vec![f.clone()]));
            }
        }
    }
    candidates.sort_by_key(|(d, g)| (*d, g.clone()));
    candidates.dedup();
    for (_, group) in candidates {
        let mut merged = Dict::new();
        for f in &group {
            let Ok(text) = fs.read(&root.join(f)) else { continue };
            let Ok(node) = syntax::yaml::load(&text) else { continue };
            if let V::Dict(d) = Val::from_node(&node, 0).v {
                merge_into(&mut merged, d);
            }
        }
        if merged.get("file_roots").is_some() || merged.get("pillar_roots").is_some() {
            return Some((group.iter().map(|f| root.join(f)).collect(), merged));
        }
    }
    None
}

/// A directory a configuration names, in the repository: relative to the configuration's
/// directory, else the longest tail of an absolute path that is a directory of the repository
/// (`/srv/salt/states` is `srv/salt/states`, `salt/states` or `states`).
fn map_dir(files: &[String], root: &Path, config_dir: &Path, dir: &Path) -> Option<PathBuf> {
    let is_dir = |rel: &str| {
        let prefix = format!("{}/", rel.trim_end_matches('/'));
        rel.is_empty() || files.iter().any(|f| f.starts_with(&prefix))
    };
    let rel_of = |p: &Path| p.strip_prefix(root).ok().map(|r| r.to_string_lossy().replace('\\', "/"));
    if dir.is_relative() {
        let joined = config_dir.join(dir);
        let normal = crate::py::path::normpath(&joined.to_string_lossy());
        let rel = rel_of(Path::new(&normal))?;
        return is_dir(&rel).then(|| join(root, &rel));
    }
    let parts: Vec<String> = dir.components().filter_map(|c| c.as_os_str().to_str()).filter(|c| *c != "/").map(str::to_string).collect();
    (0..parts.len()).map(|skip| parts[skip..].join("/")).find(|rel| is_dir(rel)).map(|rel| join(root, &rel))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workspace::vfs::MemFs;
    use expect_test::{expect, Expect};

    fn check(fixture: &str, expect: Expect) {
        let fs = MemFs::from_fixture(fixture);
        let found = discover(&fs, Path::new("/repo"));
        expect.assert_eq(&found.summary(Path::new("/repo")));
    }

    #[test]
    fn states_in_salt_and_pillar_beside_them() {
        check(
            "#- /repo/README.md\nhi\n#- /repo/salt/top.sls\nbase: {'*': [web]}\n#- /repo/salt/web.sls\nw: test.nop\n#- /repo/pillar/top.sls\nbase: {'*': [p]}\n#- /repo/pillar/p.sls\na: 1\n",
            expect![["no salt-analyzer.yaml: states from base: salt/, pillar from base: pillar/ (found salt/top.sls, pillar/top.sls); set file_roots/pillar_roots in salt-analyzer.yaml, or give -c DIR, to override"]],
        );
    }

    #[test]
    fn top_at_the_root_with_a_pillar_tree_inside() {
        check(
            "#- /repo/top.sls\nbase: {'*': [ß]}\n#- /repo/ß.sls\nw: test.nop\n#- /repo/Documentation/example-pillar/top.sls\nbase: {'*': [p]}\n",
            expect![["no salt-analyzer.yaml: states from base: ., pillar from base: Documentation/example-pillar/ (found top.sls, Documentation/example-pillar/top.sls); set file_roots/pillar_roots in salt-analyzer.yaml, or give -c DIR, to override"]],
        );
    }

    #[test]
    fn a_formula_checkout_keeps_its_test_pillars_out_of_the_states() {
        // No top.sls: the checkout serves base; kitchen's pillar data (a `pillar/` directory,
        // however deep, and a suite's `pillar.sls`) is pillar, not states.
        check(
            "#- /repo/nginx/init.sls\nn: test.nop\n#- /repo/test/salt/default/pillar/nginx.sls\nnginx: {lookup: {}}\n#- /repo/test/salt/ß/pillar.sls\nnginx: {}\n#- /repo/pillar.example\nnginx: {}\n",
            expect![["no salt-analyzer.yaml, no Salt configuration and no top.sls within 3 directories of /repo: it is base's only file root; pillar data, not checked as states: test/salt/default/pillar/ test/salt/ß/pillar.sls (set file_roots/pillar_roots in salt-analyzer.yaml, or give -c DIR, to override)"]],
        );
    }

    #[test]
    fn other_top_files_are_not_states() {
        // `dev/state_top.sls` (salt-formula's) is a top file by name and shape; `laptop.sls`
        // and `top_ids.sls`, shaped as states, are states.
        check(
            "#- /repo/salt/init.sls\nn: test.nop\n#- /repo/dev/state_top.sls\nbase:\n  'salt':\n    - salt.master\n    - salt.ℝ\n#- /repo/dev/pillar_top.sls\nbase: {'*': [p]}\n#- /repo/laptop.sls\nlaptop:\n  pkg:\n    - installed\n#- /repo/top_ids.sls\na:\n  pkg.installed: []\n",
            expect![["no salt-analyzer.yaml, no Salt configuration and no top.sls within 3 directories of /repo: it is base's only file root; pillar data, not checked as states: dev/pillar_top.sls; top files, not checked as states: dev/state_top.sls (set file_roots/pillar_roots in salt-analyzer.yaml, or give -c DIR, to override)"]],
        );
    }

    #[test]
    fn environments_side_by_side() {
        check(
            "#- /repo/srv/salt/base/top.sls\nbase:\n  '*': [a]\nlab:\n  '*': [b]\n#- /repo/srv/salt/lab/b.sls\nb: test.nop\n#- /repo/srv/salt/other/c.sls\nc: test.nop\n",
            expect![["no salt-analyzer.yaml: states from base: srv/salt/base/, lab: srv/salt/lab/, no pillar found (found srv/salt/base/top.sls); set file_roots/pillar_roots in salt-analyzer.yaml, or give -c DIR, to override"]],
        );
    }

    #[test]
    fn a_master_file_in_the_repository_wins_and_its_paths_are_mapped() {
        let fixture = "#- /repo/top.sls\nbase: {}\n#- /repo/salt-config/master\nfile_roots:\n  base: [/home/vagrant/deploy/salt, /srv/formulas/💣]\npillar_roots:\n  base: [../pillar]\nnodegroups: {web: 'web*'}\n#- /repo/salt/top.sls\nbase: {'*': [a]}\n#- /repo/pillar/top.sls\nbase: {}\n";
        check(
            fixture,
            expect![["no salt-analyzer.yaml: states from base: salt/, pillar from base: pillar/ (found salt-config/master); not in the repository: /srv/formulas/💣; set file_roots/pillar_roots in salt-analyzer.yaml, or give -c DIR, to override"]],
        );
        let found = discover(&MemFs::from_fixture(fixture), Path::new("/repo"));
        assert_eq!(found.opts(Path::new("/repo"), &Dict::new()).raw["nodegroups"]["web"], "web*");
    }

    #[test]
    fn a_configuration_with_pillar_roots_only() {
        check(
            "#- /repo/conf/vagrant/master.conf\npillar_roots:\n  base: [/srv/pillar/dev, /srv/pillar/base]\n#- /repo/salt/top.sls\nbase: {}\n#- /repo/pillar/dev/top.sls\nbase: {}\n#- /repo/pillar/prod/top.sls\nbase: {}\n#- /repo/pillar/base/x.sls\nx: 1\n",
            expect!["no salt-analyzer.yaml: states from base: salt/, pillar from base: pillar/dev/ pillar/base/ (found conf/vagrant/master.conf, salt/top.sls); set file_roots/pillar_roots in salt-analyzer.yaml, or give -c DIR, to override"],
        );
    }

    #[test]
    fn master_d_alone() {
        check(
            "#- /repo/master.d/roots.conf\nfile_roots: {base: [/srv/salt/states]}\n#- /repo/master.d/other.conf\nstate_top: top.sls\n#- /repo/states/top.sls\nbase: {}\n",
            expect![["no salt-analyzer.yaml: states from base: states/, no pillar found (found master.d/other.conf, master.d/roots.conf); set file_roots/pillar_roots in salt-analyzer.yaml, or give -c DIR, to override"]],
        );
    }

    #[test]
    fn nothing_found_is_one_line() {
        check(
            "#- /repo/a/b/c/d/top.sls\nbase: {}\n#- /repo/x.sls\nx: test.nop\n",
            expect![["no salt-analyzer.yaml, no Salt configuration and no top.sls within 3 directories of /repo: it is base's only file root (set file_roots/pillar_roots in salt-analyzer.yaml, or give -c DIR, to override)"]],
        );
    }
}
