//! The gitfs backend of a workspace served from local copies: each remote's copy found
//! (`gitfs_clones`, a `file://` path, or the master's gitfs cache), its refs handed to
//! `model::workspace::gitfs::plan`, and each saltenv's tree mounted at a path of its own, which
//! becomes that saltenv's root in `Opts::gitfs_roots`.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use base64::Engine;
use indexmap::IndexMap;
use model::diagnostic::{Code, Diagnostic, Severity};
use model::workspace::gitfs::{self as rules, Remote, RemoteRefs};
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

/// Serves the gitfs backend of `ws` when `fileserver_backend` lists it: sets
/// `ws.opts.gitfs_roots` and returns the mounts for a [`crate::MountedFs`].
pub fn serve_gitfs(ws: &mut Workspace) -> Served {
    let mut served = Served::default();
    ws.opts.gitfs_roots = IndexMap::new();
    if !ws.opts.fileserver_backend.iter().any(|b| b == "gitfs") {
        return served;
    }
    let (remotes, problems) = rules::gitfs_remotes(&ws.opts.raw);
    served.problems.extend(problems.into_iter().map(|message| Problem { remote: String::new(), message }));
    let cache_root = cachedir(ws).join("gitfs");
    let copies: Vec<Option<Copy>> = remotes
        .iter()
        .map(|r| match local_copy(r, &ws.gitfs_clones, &cache_root) {
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
            let rev = match s.kind {
                "branch" => match copy.remote {
                    Some(origin) => format!("refs/remotes/{origin}/{}", s.r#ref),
                    None => format!("refs/heads/{}", s.r#ref),
                },
                "tag" => format!("refs/tags/{}", s.r#ref),
                _ => s.r#ref.clone(),
            };
            let tree = match copy.repo.tree(&rev) {
                Ok(t) => t,
                Err(e) => {
                    served.problems.push(Problem { remote: remotes[i].id.clone(), message: e.0 });
                    continue;
                }
            };
            let mut at = PathBuf::from(format!("{}@{}", copy.path.display(), env.replace('/', "%2F")));
            if !used.insert(at.clone()) {
                at = PathBuf::from(format!("{}#{i}", at.display()));
                used.insert(at.clone());
            }
            ws.opts.gitfs_roots.entry(env.clone()).or_default().push(at.clone());
            served.mounts.push(Mount { at, tree, root: s.root, mountpoint: s.mountpoint });
        }
    }
    served
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

fn local_copy(r: &Remote, clones: &IndexMap<String, PathBuf>, cache_root: &Path) -> Result<Copy, String> {
    let open = |path: &Path| -> Result<Copy, String> {
        let repo = Repo::open(path).map_err(|e| format!("gitfs remote '{}': {e}", r.url))?;
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
    for dir in [cache_root.join(&hash).join("_"), cache_root.join(&hash)] {
        if dir.join(".git").is_dir() || dir.join("HEAD").is_file() {
            return open(&dir);
        }
    }
    Err(format!(
        "gitfs remote '{}' has no local copy: nothing is fetched; map it to a clone with `gitfs_clones: {{{}: PATH}}` in salt-analyzer.yaml (the master's cache {} was not found)",
        r.url,
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
            let hit = texts
                .iter()
                .find_map(|(path, t)| (!p.remote.is_empty()).then(|| t.find(&p.remote)).flatten().map(|at| (path.clone(), at..at + p.remote.len())));
            let (file, span) = hit.unwrap_or_else(|| (ws.opts.sources.first().cloned().or_else(|| ws.file.clone()).unwrap_or_default(), 0..0));
            Diagnostic { file, span, severity: Severity::Warning, code: Code::GitfsRemote, message: p.message.clone(), related: Vec::new() }
        })
        .collect()
}
