//! The base the editor's impact lens and report compare against: the repository's `HEAD`,
//! read through `salt-gitfs` and mounted over the disk at the work tree.

use std::path::Path;
use std::sync::Arc;

use ide::ImpactBase;
use model::workspace::vfs::RealFs;

/// `HEAD` of the repository holding `root`, or `None` outside a repository (or before a first
/// commit).
pub(crate) fn head(root: &Path) -> Option<ImpactBase> {
    let repo = salt_gitfs::Repo::discover(root).ok()?;
    // The work tree as the workspace's paths spell it (the root may be reached through a
    // symlink): the root less as many components as it lies below the real work tree.
    let real = std::fs::canonicalize(repo.work_dir()?).ok()?;
    let depth = std::fs::canonicalize(root).ok()?.strip_prefix(&real).ok()?.components().count();
    let work_dir = root.ancestors().nth(depth)?.to_path_buf();
    let id = repo.commit_id("HEAD").ok()?;
    let tree = repo.tree(&id).ok()?;
    let fs = salt_gitfs::MountedFs::with_mounts(RealFs, vec![salt_gitfs::Mount::new(work_dir, tree)]);
    Some(ImpactBase { id, label: "HEAD".into(), fs: Arc::new(fs) })
}
