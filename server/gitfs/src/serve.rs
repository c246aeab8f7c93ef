//! The gitfs backend and git_pillar of a workspace served from local copies: each remote's copy
//! found (`gitfs_clones`, a `file://` path, or the master's `gitfs`/`git_pillar` cache), its
//! refs handed to `model::workspace::gitfs` (`plan` for gitfs, `Remote::checkout_target` and
//! `checkout` for git_pillar), and each tree mounted at a path of its own: a gitfs saltenv's
//! becomes that saltenv's root in `Opts::gitfs_roots`, a git_pillar remote's is recorded in
//! `Opts::git_pillar` for the pillar compile.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use base64::Engine;
use indexmap::IndexMap;
use model::diagnostic::{Code, Diagnostic, Severity};
use model::workspace::gitfs::{self as rules, PillarEntry, PillarRemote, Remote, RemoteRefs};
use model::workspace::Workspace;
use sha2::Digest;

use crate::{Mount, RefKind, Repo};

/// A remote that is not served, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// The remote as the configuration writes it (empty for a problem of no one remote).
    pub remote: String,
    pub message: String,
}

/// The trees to mount and the remotes left out.
#[derive(Debug, Default)]
pub struct Served {
    pub mounts: Vec<Mount>,
    pub problems: Vec<Problem>,
}

/// A remote's local copy: the repository and where its branches are (`None`: `refs/heads`, a
/// `file://` repository or a mirror; `Some("origin")`: a clone's `refs/remotes/origin`).
struct Copy {
    repo: Repo,
    remote: Option<&'static str>,
    path: PathBuf,
}

/// Serves the gitfs backend of `ws` when `fileserver_backend` lists it, and its git_pillar
/// remotes: sets `ws.opts.gitfs_roots` and `ws.opts.git_pillar`, and returns the mounts for a
/// [`crate::MountedFs`].
pub fn serve_gitfs(ws: &mut Workspace) -> Served {
    let mut served = Served::default();
    ws.opts.gitfs_roots = IndexMap::new();
    serve_git_pillar(ws, &mut served);
    if !ws.opts.fileserver_backend.iter().any(|b| b == "gitfs") {
        return served;
    }
    let (remotes, problems) = rules::gitfs_remotes(&ws.opts.raw);
    served.problems.extend(problems.into_iter().map(|message| Problem { remote: String::new(), message }));
    let cache_root = cachedir(ws).join("gitfs");
    let copies: Vec<Option<Copy>> = remotes
        .iter()
        .map(|r| match local_copy(r, "gitfs", &ws.gitfs_clones, &cache_root, "_") {
            Ok(c) => Some(c),
            Err(message) => {
                served.problems.push(Problem { remote: r.id.clone(), message });
                None
            }
        })
        .collect();
    let refs: Vec<Option<RemoteRefs>> = copies
        .iter()
        .zip(&remotes)
        .map(|(c, r)| {
            let c = c.as_ref()?;
            match c.repo.refs(c.remote) {
                Ok(list) => Some(RemoteRefs {
                    branches: list.iter().filter(|x| x.kind == RefKind::Branch).map(|x| x.name.clone()).collect(),
                    tags: list.iter().filter(|x| x.kind == RefKind::Tag).map(|x| x.name.clone()).collect(),
                }),
                Err(e) => {
                    served.problems.push(Problem { remote: r.id.clone(), message: e.0 });
                    None
                }
            }
        })
        .collect();
    let has_sha = |i: usize, sha: &str| copies[i].as_ref().is_some_and(|c| c.repo.commit_id(sha).is_ok_and(|id| id.starts_with(&sha.to_lowercase())));
    let plan = rules::plan(&remotes, &refs, &has_sha);
    let mut used = HashSet::new();
    for (env, list) in plan {
        for (i, s) in list {
            let Some(copy) = &copies[i] else { continue };
            let tree = match copy.repo.tree(&rev_of(copy, s.kind, &s.r#ref)) {
                Ok(t) => t,
                Err(e) => {
                    served.problems.push(Problem { remote: remotes[i].id.clone(), message: e.0 });
                    continue;
                }
            };
            let at = mount_path(&mut used, copy, &env.replace('/', "%2F"), i);
            ws.opts.gitfs_roots.entry(env.clone()).or_default().push(at.clone());
            served.mounts.push(Mount { at, tree, root: s.root, mountpoint: s.mountpoint });
        }
    }
    served
}

/// A path of its own for a mounted tree: `REPOSITORY@NAME` (`#N` added when taken).
fn mount_path(used: &mut HashSet<PathBuf>, copy: &Copy, name: &str, i: usize) -> PathBuf {
    let mut at = PathBuf::from(format!("{}@{name}", copy.path.display()));
    if !used.insert(at.clone()) {
        at = PathBuf::from(format!("{}#{i}", at.display()));
        used.insert(at.clone());
    }
    at
}

/// The ref a branch or tag of `kind` is read at in the copy.
fn rev_of(copy: &Copy, kind: &str, name: &str) -> String {
    match kind {
        "branch" => match copy.remote {
            Some(origin) => format!("refs/remotes/{origin}/{name}"),
            None => format!("refs/heads/{name}"),
        },
        "tag" => format!("refs/tags/{name}"),
        _ => name.to_string(),
    }
}

/// git_pillar: for each `- git:` entry of `ext_pillar`, each remote's tree at its checkout
/// target (`__env__` follows the pillarenv, else the configuration's saltenv, which every
/// pillar compile of `salt-call` sees), mounted at `REPOSITORY@pillar:TARGET` with
/// the remote's `root` and `mountpoint`. A remote without a local copy, a target that is no
/// branch or tag, or a `root` the tree lacks is a problem, and the remote is left out, as Salt
/// skips it.
fn serve_git_pillar(ws: &mut Workspace, served: &mut Served) {
    let entries = rules::git_pillar_entries(&ws.opts.raw);
    if entries.is_empty() {
        ws.opts.git_pillar = None;
        return;
    }
    let cache_root = cachedir(ws).join("git_pillar");
    let pillarenv = ws.opts.raw.get("pillarenv").filter(|v| !v.is_null()).map(|v| v.as_str().map(str::to_string).unwrap_or_else(|| v.to_string()));
    let saltenv = ws.opts.saltenv.clone();
    let mut used = HashSet::new();
    let mut out = Vec::new();
    for (remotes, problems) in entries {
        if !problems.is_empty() {
            served.problems.extend(problems.iter().map(|message| Problem { remote: String::new(), message: message.clone() }));
            out.push(PillarEntry { remotes: Vec::new(), failed: Some(problems.join("\n")) });
            continue;
        }
        let mut entry = PillarEntry::default();
        for (i, remote) in remotes.into_iter().enumerate() {
            let targets = vec![remote.checkout_target(pillarenv.as_deref(), saltenv.as_deref())];
            let basename = if remote.id.starts_with("__env__") { targets[0].clone() } else { "_".to_string() };
            let mut pr = PillarRemote { remote, trees: IndexMap::new() };
            let copy = match local_copy(&pr.remote, "git_pillar", &ws.gitfs_clones, &cache_root, &basename) {
                Ok(c) => c,
                Err(message) => {
                    served.problems.push(Problem { remote: pr.remote.id.clone(), message });
                    entry.remotes.push(pr);
                    continue;
                }
            };
            let refs = match copy.repo.refs(copy.remote) {
                Ok(list) => RemoteRefs {
                    branches: list.iter().filter(|x| x.kind == RefKind::Branch).map(|x| x.name.clone()).collect(),
                    tags: list.iter().filter(|x| x.kind == RefKind::Tag).map(|x| x.name.clone()).collect(),
                },
                Err(e) => {
                    served.problems.push(Problem { remote: pr.remote.id.clone(), message: e.0 });
                    entry.remotes.push(pr);
                    continue;
                }
            };
            for target in targets {
                let r = &pr.remote;
                let Some((kind, name)) = r.checkout(&target, &refs) else {
                    served.problems.push(Problem {
                        remote: r.id.clone(),
                        message: format!("git_pillar remote '{}' has no branch or tag '{target}' (Salt: \"Failed to checkout {target} from git_pillar remote '{}': remote ref does not exist\"), so it gives no pillar", r.id, r.id),
                    });
                    continue;
                };
                let tree = match copy.repo.tree(&rev_of(&copy, kind, &name)) {
                    Ok(t) => t,
                    Err(e) => {
                        served.problems.push(Problem { remote: r.id.clone(), message: e.0 });
                        continue;
                    }
                };
                let root = r.root.trim_end_matches('/').to_string();
                if !root.is_empty() && !tree.is_dir(root.trim_matches('/')) {
                    served.problems.push(Problem {
                        remote: r.id.clone(),
                        message: format!("Root path '{root}' not present in git_pillar remote '{}' at '{target}', skipping: it gives no pillar", r.id),
                    });
                    continue;
                }
                let at = mount_path(&mut used, &copy, &format!("pillar:{}", target.replace('/', "%2F")), i);
                served.mounts.push(Mount { at: at.clone(), tree, root, mountpoint: r.mountpoint.clone() });
                pr.trees.insert(target, at);
            }
            entry.remotes.push(pr);
        }
        out.push(entry);
    }
    ws.opts.git_pillar = Some(out);
}

/// The master's (or a masterless minion's) cache directory.
fn cachedir(ws: &Workspace) -> PathBuf {
    if let Some(dir) = ws.opts.raw.get("cachedir").and_then(|v| v.as_str()) {
        return PathBuf::from(dir);
    }
    let master = ws.opts.sources.first().is_some_and(|p| p.file_name().is_some_and(|n| n == "master"));
    PathBuf::from(if master { "/var/cache/salt/master" } else { "/var/cache/salt/minion" })
}

/// `GitProvider`'s cache directory name: the per-remote `name`, else the base64 of the
/// SHA-256 of the remote as written, `/` replaced by `_`.
pub fn cache_basehash(remote: &Remote) -> String {
    if let Some(name) = &remote.name {
        return name.clone();
    }
    let digest = sha2::Sha256::digest(remote.id.as_bytes());
    base64::engine::general_purpose::STANDARD.encode(digest).replace('/', "_")
}

/// A remote's local copy: `gitfs_clones` (by URL, or by the remote as written), a `file://`
/// URL or a path, else the master's cache `CACHE_ROOT/HASH/BASENAME` (`_`, or for a git_pillar
/// `__env__` remote its checkout target).
fn local_copy(r: &Remote, role: &str, clones: &IndexMap<String, PathBuf>, cache_root: &Path, basename: &str) -> Result<Copy, String> {
    let open = |path: &Path| -> Result<Copy, String> {
        let repo = Repo::open(path).map_err(|e| format!("{role} remote '{}': {e}", r.url))?;
        // A clone keeps the remote's branches under refs/remotes/origin; a mirror or the
        // remote itself under refs/heads.
        let remote = repo.refs(Some("origin")).ok().filter(|l| l.iter().any(|x| x.kind == RefKind::Branch)).map(|_| "origin");
        Ok(Copy { repo, remote, path: path.to_path_buf() })
    };
    if let Some(p) = clones.get(&r.url).or_else(|| clones.get(&r.id)) {
        return open(p);
    }
    if let Some(p) = r.url.strip_prefix("file://") {
        return open(Path::new(p));
    }
    if r.url.starts_with('/') {
        return open(Path::new(&r.url));
    }
    let hash = cache_basehash(r);
    for dir in [cache_root.join(&hash).join(basename), cache_root.join(&hash).join("_"), cache_root.join(&hash)] {
        if dir.join(".git").is_dir() || dir.join("HEAD").is_file() {
            return open(&dir);
        }
    }
    Err(format!(
        "{role} remote '{}' has no local copy: nothing is fetched; map it to a clone with `gitfs_clones: {{{}: PATH}}` in salt-analyzer.yaml (the master's cache {} was not found)",
        r.id,
        r.url,
        cache_root.join(&hash).display()
    ))
}

/// The problems as `gitfs-remote` warnings at the remote's line of the configuration file that
/// names it (else its first line).
pub fn diagnostics(ws: &Workspace, problems: &[Problem]) -> Vec<Diagnostic> {
    let texts: Vec<(PathBuf, String)> = ws.opts.sources.iter().filter_map(|p| std::fs::read_to_string(p).ok().map(|t| (p.clone(), t))).collect();
    problems
        .iter()
        .map(|p| {
            // The remote as written, else its URL (a git_pillar `BRANCH URL` spaced otherwise).
            let url = p.remote.split_whitespace().last().unwrap_or_default();
            let hit = [p.remote.as_str(), url]
                .into_iter()
                .filter(|s| !s.is_empty())
                .find_map(|needle| texts.iter().find_map(|(path, t)| t.find(needle).map(|at| (path.clone(), at..at + needle.len()))));
            let (file, span) = hit.unwrap_or_else(|| (ws.opts.sources.first().cloned().or_else(|| ws.file.clone()).unwrap_or_default(), 0..0));
            Diagnostic { file, span, severity: Severity::Warning, code: Code::GitfsRemote, message: p.message.clone(), related: Vec::new(), fix: Vec::new() }
        })
        .collect()
}
