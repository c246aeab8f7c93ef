//! What the uncommitted changes do to every minion: each minion's highstate at a base (the
//! repository's `HEAD`, which the binary reads and hands in as a file system) against the
//! snapshot's files, the editor's unsaved buffers included, through `model::impact`. Kept per
//! revision and base, so a code lens on every changed file costs one comparison. With a
//! target Salt release, the snapshot's side compiles on that release: the change and an
//! upgrade at once (the base's side keeps each minion's own release).

use std::path::Path;
use std::sync::{Arc, Mutex};

use model::impact::{self, report, Group, MinionDiff, Tree};
use model::pipeline::Who;
use model::version::{self, SaltVersion, VersionSource};
use model::workspace::roots::FileRoots;
use model::workspace::vfs::Vfs;
use model::workspace::Workspace;

use crate::snapshot::Snapshot;
use crate::types::Cancellable;

/// The side a change is compared against: a file system and a name for it that changes when
/// its content does (a commit id).
#[derive(Clone)]
pub struct ImpactBase {
    pub id: String,
    /// How reports name it (`HEAD`).
    pub label: String,
    pub fs: Arc<dyn Vfs>,
}

/// Every minion's diff between the base and the snapshot, grouped.
pub struct ImpactReport {
    pub diffs: Vec<(String, MinionDiff)>,
    pub groups: Vec<Group>,
    /// The `check` findings the changes introduce and resolve, each with its minions.
    pub findings: impact::FindingChanges,
    /// How the report names the base (`HEAD`, `HEAD on Salt 3006`).
    pub label: String,
    /// How it names the snapshot's side.
    pub to_label: String,
}

impl ImpactReport {
    /// How many minions changed, stayed, now fail, and fail at both sides.
    pub fn counts(&self) -> report::Counts {
        report::counts(&self.groups, self.diffs.len())
    }

    /// The report as Markdown (pillar values hidden).
    pub fn markdown(&self) -> String {
        let summary = report::Summary { from: &self.label, to: &self.to_label, minions: self.diffs.len(), notes: &[], findings: &self.findings };
        report::markdown(&summary, &self.groups, false)
    }
}

/// What a report was made for: the snapshot's revision, the base's id, the target release.
type ImpactKey = (u64, String, Option<SaltVersion>);

/// The last report, by what it was made for.
#[derive(Default)]
pub(crate) struct ImpactCache(Mutex<Option<(ImpactKey, Arc<ImpactReport>)>>);

/// The report for `base` at this snapshot, the snapshot compiled on release `to` if given.
pub(crate) fn report(snap: &Snapshot, base: &ImpactBase, to: Option<SaltVersion>) -> Cancellable<Arc<ImpactReport>> {
    let key: ImpactKey = (snap.revision, base.id.clone(), to);
    if let Some((made_for, r)) = snap.shared.cache::<ImpactCache>().0.lock().ok().and_then(|c| c.clone()) {
        if made_for == key {
            return Ok(r);
        }
    }
    if snap.is_stale() {
        return Err(crate::types::Cancelled);
    }
    let world = snap.world();
    let mut ws = match Workspace::load(&*base.fs, &world.root, world.config_dir.as_deref()) {
        Ok(ws) => ws,
        // The base's configuration does not load: every minion compiles from the current one's.
        Err(_) => world.ws.clone(),
    };
    ws.sql = world.ws.sql.clone();
    // The base's gitfs remotes, as its configuration names them, mounted over it.
    let served = salt_gitfs::serve::serve_gitfs(&mut ws);
    let fs: Arc<dyn Vfs> = Arc::new(salt_gitfs::MountedFs::with_mounts(base.fs.clone(), served.mounts));
    let before = Tree::new(fs.clone(), ws.clone(), Arc::new(FileRoots::scan(&*fs, &ws.opts.served_roots())));
    let mut after_ws = world.ws.clone();
    let mut labels = (base.label.clone(), "unsaved and uncommitted changes".to_string());
    if let Some(v) = to {
        after_ws.opts.version = v;
        after_ws.opts.version_source = VersionSource::ImpactTarget;
        labels = (version::side_label(&labels.0, ws.opts.version, &ws.opts.version_source), version::side_label(&labels.1, v, &after_ws.opts.version_source));
    }
    let after = Tree::new(Arc::new(snap.files.fork()), after_ws, world.ctx.roots.clone());
    let who: Vec<Who> = if world.ws.profiles.is_empty() { vec![Who::Default] } else { world.ws.profiles.keys().map(|p| Who::Profile(p.clone())).collect() };
    let rel = |p: &Path| world.rel(p);
    let diffs = impact::compare(&before, &after, &who, &rel);
    let groups = impact::group(&diffs);
    let findings = impact::finding_groups(&diffs);
    let r = Arc::new(ImpactReport { diffs, groups, findings, label: labels.0, to_label: labels.1 });
    if let Ok(mut c) = snap.shared.cache::<ImpactCache>().0.lock() {
        *c = Some((key, r.clone()));
    }
    Ok(r)
}

/// The code lens of a file: `None` when the file is as the base has it.
pub(crate) fn lens(snap: &Snapshot, path: &Path, base: &ImpactBase, to: Option<SaltVersion>) -> Cancellable<Option<String>> {
    let files = &snap.files;
    if base.fs.fingerprint(path) == files.fingerprint(path) {
        return Ok(None);
    }
    let r = report(snap, base, to)?;
    let report::Counts { changed, now_failing: failing, still_failing, .. } = r.counts();
    let total = r.diffs.len();
    let against = match to {
        Some(v) => format!("{}, on Salt {v}", base.label),
        None => base.label.clone(),
    };
    let mut text = match changed {
        0 => format!("changes vs {against}: no minion's highstate changes ({total} compared)"),
        _ => format!("changes vs {against}: {changed} of {total} minions' highstates change"),
    };
    if failing > 0 {
        text.push_str(&format!(", {failing} now fail"));
    }
    if still_failing > 0 {
        text.push_str(&format!(", {still_failing} still fail"));
    }
    Ok(Some(text))
}
