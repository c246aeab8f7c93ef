//! Git repositories as Salt's gitfs and git_pillar read them, and as `diff` reads a work tree at
//! another ref: a repository opened read-only ([`Repo`]), a ref or revision resolved to a tree
//! ([`Repo::tree`]), a tree listed and read ([`Tree`]), and trees mounted at paths behind the
//! model's [`Vfs`] ([`MountedFs`]). Objects are read with gitoxide; no `git` process is run and
//! nothing is fetched.

use std::collections::BTreeMap;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};

use gix::bstr::ByteSlice;
use model::workspace::vfs::Vfs;

pub mod serve;

/// A repository that could not be opened, or a revision that does not resolve.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GitError(pub String);

impl std::fmt::Display for GitError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for GitError {}

/// What a ref names: Salt maps branches and tags to saltenvs differently.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum RefKind {
    Branch,
    Tag,
}

/// A branch or a tag, by its short name (`main`, `feature/x`, `v1.0`), and the commit it names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GitRef {
    pub kind: RefKind,
    pub name: String,
    /// The full ref (`refs/heads/main`, `refs/remotes/origin/main`, `refs/tags/v1.0`).
    pub full: String,
}

/// A git repository, bare or with a work tree, opened for reading. Cheap to share between
/// threads (gitoxide's thread-safe handle).
#[derive(Clone)]
pub struct Repo {
    inner: gix::ThreadSafeRepository,
}

impl std::fmt::Debug for Repo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Repo({})", self.git_dir().display())
    }
}

impl Repo {
    /// Opens the repository at `path`: a work tree (its `.git` is used) or a bare repository.
    /// The user's and system's git configuration are not read.
    pub fn open(path: &Path) -> Result<Repo, GitError> {
        let opts = gix::open::Options::isolated();
        gix::ThreadSafeRepository::open_opts(path, opts)
            .map(|inner| Repo { inner })
            .map_err(|e| GitError(format!("{}: not a git repository ({e})", path.display())))
    }

    /// The repository that contains `path` (a file or directory inside a work tree), as `git`
    /// finds it from a current directory.
    pub fn discover(path: &Path) -> Result<Repo, GitError> {
        gix::ThreadSafeRepository::discover(path)
            .map(|inner| Repo { inner })
            .map_err(|e| GitError(format!("{}: not inside a git repository ({e})", path.display())))
    }

    /// The work tree's directory, `None` for a bare repository.
    pub fn work_dir(&self) -> Option<&Path> {
        self.inner.work_dir()
    }

    /// The `.git` directory, or the bare repository itself.
    pub fn git_dir(&self) -> &Path {
        self.inner.git_dir()
    }

    /// Branches and tags, sorted by kind and name. `remote: None` lists the local branches
    /// (`refs/heads/*`, what a `file://` remote serves); `Some("origin")` lists
    /// `refs/remotes/origin/*` instead, as a clone the master fetched into its gitfs cache holds
    /// them (`origin/HEAD` left out).
    pub fn refs(&self, remote: Option<&str>) -> Result<Vec<GitRef>, GitError> {
        let repo = self.inner.to_thread_local();
        let platform = repo.references().map_err(|e| GitError(format!("{}: cannot read refs ({e})", self.git_dir().display())))?;
        let all = platform.all().map_err(|e| GitError(format!("{}: cannot read refs ({e})", self.git_dir().display())))?;
        let branch_prefix = match remote {
            Some(r) => format!("refs/remotes/{r}/"),
            None => "refs/heads/".to_string(),
        };
        let mut out = Vec::new();
        for r in all.flatten() {
            let full = r.name().as_bstr().to_str_lossy().into_owned();
            if let Some(name) = full.strip_prefix(&branch_prefix) {
                if name != "HEAD" {
                    out.push(GitRef { kind: RefKind::Branch, name: name.to_string(), full: full.clone() });
                }
            } else if let Some(name) = full.strip_prefix("refs/tags/") {
                out.push(GitRef { kind: RefKind::Tag, name: name.to_string(), full: full.clone() });
            }
        }
        out.sort_by(|a, b| (a.kind, &a.name).cmp(&(b.kind, &b.name)));
        Ok(out)
    }

    /// The commit (as hex) a revision names: anything `git rev-parse` takes (`HEAD`, a branch,
    /// `refs/remotes/origin/main`, a tag, a full or abbreviated SHA, `HEAD~1`).
    pub fn commit_id(&self, rev: &str) -> Result<String, GitError> {
        let repo = self.inner.to_thread_local();
        let id = repo.rev_parse_single(rev).map_err(|e| GitError(format!("{}: no revision `{rev}` ({e})", self.git_dir().display())))?;
        let commit = id.object().and_then(|o| o.peel_to_commit());
        match commit {
            Ok(c) => Ok(c.id.to_string()),
            Err(e) => Err(GitError(format!("{}: `{rev}` is not a commit ({e})", self.git_dir().display()))),
        }
    }

    /// The best common ancestor (as hex) of two revisions' commits, as `git merge-base A B`
    /// finds it (what `git diff A...B` compares `B` with).
    pub fn merge_base(&self, a: &str, b: &str) -> Result<String, GitError> {
        let (one, two) = (self.commit_id(a)?, self.commit_id(b)?);
        let repo = self.inner.to_thread_local();
        let id = |hex: &str| gix::ObjectId::from_hex(hex.as_bytes()).map_err(|e| GitError(format!("{hex}: {e}")));
        match repo.merge_base(id(&one)?, id(&two)?) {
            Ok(Some(base)) => Ok(base.to_string()),
            Ok(None) => Err(GitError(format!("`{a}` and `{b}` have no common ancestor"))),
            Err(e) => Err(GitError(format!("{}: cannot find the merge base of `{a}` and `{b}` ({e})", self.git_dir().display()))),
        }
    }

    /// The tree a revision names (a commit's tree, a tag peeled to its commit's tree), with the
    /// path of every file in it listed once, here.
    pub fn tree(&self, rev: &str) -> Result<Tree, GitError> {
        let repo = self.inner.to_thread_local();
        let err = |e: &dyn std::fmt::Display| GitError(format!("{}: no revision `{rev}` ({e})", self.git_dir().display()));
        let id = repo.rev_parse_single(rev).map_err(|e| err(&e))?;
        let tree = id.object().map_err(|e| err(&e))?.peel_to_tree().map_err(|e| err(&e))?;
        let mut recorder = gix::traverse::tree::Recorder::default();
        tree.traverse().breadthfirst(&mut recorder).map_err(|e| GitError(format!("{}: cannot read the tree of `{rev}` ({e})", self.git_dir().display())))?;
        let mut entries = BTreeMap::new();
        for e in recorder.records {
            if e.mode.is_blob() || e.mode.is_link() {
                entries.insert(e.filepath.to_str_lossy().into_owned(), Entry { oid: e.oid, link: e.mode.is_link() });
            }
        }
        Ok(Tree { repo: self.inner.clone(), id: tree.id, rev: rev.to_string(), entries: Arc::new(entries) })
    }
}

impl Repo {
    /// The work tree as it is at `rev`: the ref's tree mounted at the work tree's own directory,
    /// so paths into the work tree read the ref's files and every other path the base's (what
    /// `diff` reads for a side that is not the work tree). A bare repository has no work tree.
    pub fn work_tree_at(&self, rev: &str) -> Result<Mount, GitError> {
        let dir = self.work_dir().ok_or_else(|| GitError(format!("{}: a bare repository has no work tree", self.git_dir().display())))?;
        Ok(Mount::new(dir, self.tree(rev)?))
    }
}

#[derive(Debug, Clone, Copy)]
struct Entry {
    oid: gix::ObjectId,
    link: bool,
}

/// The files of one tree: paths relative to the tree's top with `/`, symlinks listed as files
/// (as Salt's gitfs lists them) and followed when read.
#[derive(Clone)]
pub struct Tree {
    repo: gix::ThreadSafeRepository,
    id: gix::ObjectId,
    rev: String,
    entries: Arc<BTreeMap<String, Entry>>,
}

impl std::fmt::Debug for Tree {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Tree({} {} files)", self.rev, self.entries.len())
    }
}

impl Tree {
    /// The tree object's id, as hex: two trees with the same id hold the same files.
    pub fn id(&self) -> String {
        self.id.to_string()
    }

    /// The revision this tree was resolved from, as given.
    pub fn rev(&self) -> &str {
        &self.rev
    }

    /// Every file below the directory `under` (`""` for the whole tree), relative to it, sorted.
    pub fn files(&self, under: &str) -> Vec<String> {
        let under = under.trim_matches('/');
        if under.is_empty() {
            return self.entries.keys().cloned().collect();
        }
        let prefix = format!("{under}/");
        self.entries.range(prefix.clone()..).take_while(|(k, _)| k.starts_with(&prefix)).map(|(k, _)| k[prefix.len()..].to_string()).collect()
    }

    /// Whether `rel` is a file (or a symlink) of the tree.
    pub fn contains(&self, rel: &str) -> bool {
        self.entries.contains_key(rel.trim_start_matches('/'))
    }

    /// Whether `rel` is a directory of the tree (some file lies below it).
    pub fn is_dir(&self, rel: &str) -> bool {
        let rel = rel.trim_matches('/');
        rel.is_empty() || self.entries.range(format!("{rel}/")..).next().is_some_and(|(k, _)| k.starts_with(&format!("{rel}/")))
    }

    /// The bytes of the file at `rel`, following symlinks inside the tree (at most 16 hops).
    pub fn read(&self, rel: &str) -> io::Result<Vec<u8>> {
        let mut rel = rel.trim_start_matches('/').to_string();
        for _ in 0..16 {
            let Some(entry) = self.entries.get(&rel) else {
                return Err(io::Error::new(io::ErrorKind::NotFound, format!("{rel}: no such file at `{}`", self.rev)));
            };
            let repo = self.repo.to_thread_local();
            let blob = repo.find_blob(entry.oid).map_err(|e| io::Error::other(format!("{rel}: cannot read the blob at `{}` ({e})", self.rev)))?;
            if !entry.link {
                return Ok(blob.data.clone());
            }
            let target = String::from_utf8_lossy(&blob.data).into_owned();
            rel = resolve_link(&rel, &target)
                .ok_or_else(|| io::Error::new(io::ErrorKind::NotFound, format!("{rel}: a symlink out of the repository ({target})")))?;
        }
        Err(io::Error::new(io::ErrorKind::InvalidData, format!("{rel}: too many levels of symbolic links")))
    }

    /// [`Tree::read`] as UTF-8 text.
    pub fn read_string(&self, rel: &str) -> io::Result<String> {
        let bytes = self.read(rel)?;
        String::from_utf8(bytes).map_err(|e| io::Error::new(io::ErrorKind::InvalidData, format!("not valid UTF-8 (byte {})", e.utf8_error().valid_up_to())))
    }
}

/// A symlink's target, relative to the tree's top, when it stays inside the tree.
fn resolve_link(link: &str, target: &str) -> Option<String> {
    if target.starts_with('/') {
        return None;
    }
    let mut parts: Vec<&str> = link.split('/').collect();
    parts.pop();
    for part in target.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            p => parts.push(p),
        }
    }
    Some(parts.join("/"))
}

/// One tree shown at a path: the tree's file `ROOT/x` is the file `AT/MOUNTPOINT/x`. gitfs's
/// `root` and `mountpoint` options are exactly these; `diff` mounts a whole tree (both empty)
/// at the work tree's directory.
#[derive(Debug, Clone)]
pub struct Mount {
    pub at: PathBuf,
    pub tree: Tree,
    /// The tree's subdirectory shown (`""`: all of it).
    pub root: String,
    /// Where below `at` it is shown (`""`: at `at` itself).
    pub mountpoint: String,
}

impl Mount {
    pub fn new(at: impl Into<PathBuf>, tree: Tree) -> Mount {
        Mount { at: at.into(), tree, root: String::new(), mountpoint: String::new() }
    }

    /// The path inside the tree of `rel` (relative to `at`), if the mount shows it.
    fn tree_path(&self, rel: &str) -> Option<String> {
        let mp = self.mountpoint.trim_matches('/');
        let below = if mp.is_empty() {
            rel
        } else if rel == mp {
            ""
        } else {
            rel.strip_prefix(mp)?.strip_prefix('/')?
        };
        let root = self.root.trim_matches('/');
        Some(match (root.is_empty(), below.is_empty()) {
            (true, _) => below.to_string(),
            (false, true) => root.to_string(),
            (false, false) => format!("{root}/{below}"),
        })
    }

    /// Every file the mount shows, relative to `at`.
    fn listing(&self) -> Vec<String> {
        let mp = self.mountpoint.trim_matches('/');
        self.tree.files(&self.root).into_iter().map(|f| if mp.is_empty() { f } else { format!("{mp}/{f}") }).collect()
    }
}

/// A file system of mounted trees over another one (the disk, or the editor's overlay): below a
/// mount's path only the tree's files exist (a file the tree lacks is missing even when the
/// disk has it); everywhere else the base answers. The mount table can be replaced while the
/// file system is shared (a configuration reload remounts).
pub struct MountedFs<F: Vfs> {
    base: F,
    mounts: RwLock<Arc<Vec<Mount>>>,
}

impl<F: Vfs> MountedFs<F> {
    pub fn new(base: F) -> MountedFs<F> {
        MountedFs { base, mounts: RwLock::new(Arc::new(Vec::new())) }
    }

    pub fn with_mounts(base: F, mounts: Vec<Mount>) -> MountedFs<F> {
        let fs = MountedFs::new(base);
        fs.set_mounts(mounts);
        fs
    }

    /// Replaces every mount. A later mount at the same path replaces an earlier one; a mount
    /// inside another shadows it below its own path.
    pub fn set_mounts(&self, mounts: Vec<Mount>) {
        // A later mount at the same path wins; then deepest first, so the first mount that
        // holds a path is the innermost.
        let mut kept: Vec<Mount> = Vec::new();
        for m in mounts.into_iter().rev() {
            if !kept.iter().any(|k| k.at == m.at) {
                kept.push(m);
            }
        }
        kept.reverse();
        let mut mounts = kept;
        mounts.sort_by_key(|m| std::cmp::Reverse(m.at.components().count()));
        if let Ok(mut m) = self.mounts.write() {
            *m = Arc::new(mounts);
        }
    }

    pub fn mounts(&self) -> Arc<Vec<Mount>> {
        self.mounts.read().map(|m| m.clone()).unwrap_or_default()
    }

    pub fn base(&self) -> &F {
        &self.base
    }

    /// The innermost mount holding `path`, and `path` relative to it.
    /// `..` and `.` are resolved first, as the disk would: `WORK/../grains/x.json` (a
    /// profile's `grains_file: ../grains/x.json`) lies outside a mount at `WORK`.
    fn find(&self, path: &Path) -> Option<(Mount, String)> {
        let mounts = self.mounts();
        let path = lexical(path);
        mounts.iter().find_map(|m| path.strip_prefix(&m.at).ok().map(|rel| (m.clone(), rel.to_string_lossy().replace('\\', "/"))))
    }
}

/// `path` with `.` dropped and each `..` taking away the component before it (lexically: a
/// mount is a path, not a directory on the disk).
pub fn lexical(path: &Path) -> PathBuf {
    use std::path::Component;
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir if matches!(out.components().next_back(), Some(Component::Normal(_))) => {
                out.pop();
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

impl<F: Vfs> Vfs for MountedFs<F> {
    fn read(&self, path: &Path) -> io::Result<String> {
        match self.find(path) {
            Some((m, rel)) => match m.tree_path(&rel) {
                Some(p) => m.tree.read_string(&p),
                None => Err(io::Error::new(io::ErrorKind::NotFound, format!("{}: not in the mounted tree", path.display()))),
            },
            None => self.base.read(path),
        }
    }

    fn is_file(&self, path: &Path) -> bool {
        match self.find(path) {
            Some((m, rel)) => m.tree_path(&rel).is_some_and(|p| m.tree.contains(&p)),
            None => self.base.is_file(path),
        }
    }

    fn walk(&self, root: &Path) -> Vec<String> {
        if let Some((m, rel)) = self.find(root) {
            let prefix = if rel.is_empty() { String::new() } else { format!("{rel}/") };
            return m.listing().into_iter().filter_map(|f| f.strip_prefix(&prefix).map(str::to_string)).collect();
        }
        // Mounts below `root` replace what the base has there.
        let mounts = self.mounts();
        let inside: Vec<(&Mount, String)> =
            mounts.iter().filter_map(|m| m.at.strip_prefix(root).ok().map(|rel| (m, rel.to_string_lossy().replace('\\', "/")))).collect();
        let mut files = self.base.walk(root);
        if inside.is_empty() {
            return files;
        }
        files.retain(|f| !inside.iter().any(|(_, rel)| f.starts_with(&format!("{rel}/"))));
        for (m, rel) in &inside {
            // An inner mount shadows an outer one below its own path.
            let shadowed = |f: &str| inside.iter().any(|(o, orel)| o.at.starts_with(&m.at) && o.at != m.at && f.starts_with(&format!("{orel}/")));
            for f in m.listing() {
                let full = format!("{rel}/{f}");
                if !shadowed(&full) {
                    files.push(full);
                }
            }
        }
        files.sort();
        files.dedup();
        files
    }

    fn log(&self) -> Option<&model::workspace::reads::ReadLog> {
        self.base.log()
    }
}

#[cfg(test)]
mod tests;
