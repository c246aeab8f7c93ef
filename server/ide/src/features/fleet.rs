//! The fleet in the editor: the code lenses on top-file targets and SLS files (how many fleet
//! minions each matches or gets it, from [`crate::explain::fleet_tops`]'s tops) and the "Check Fleet"
//! command (every fleet minion's highstate checked).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::explain::fleet_tops::{names, tops};
use crate::snapshot::Snapshot;
use crate::types::Cancellable;

/// The fleet code lenses of a file: on each target of a top file, how many fleet minions it
/// matches; at the top of an SLS file, how many get it from the top (directly, not through an
/// include). Byte offsets and titles.
pub(crate) fn lenses(snap: &Snapshot, path: &Path) -> Cancellable<Vec<(usize, String)>> {
    let world = snap.world();
    if world.fleet.minions.is_empty() {
        return Ok(Vec::new());
    }
    let tops = tops(snap)?;
    let total = tops.total;
    if world.is_top(path) {
        let mut out: Vec<(usize, String)> =
            tops.targets.iter().filter(|((file, _, _), _)| file == path).map(|(_, (at, ms))| (*at, format!("{} of {total} fleet minions", ms.len()))).collect();
        out.sort();
        return Ok(out);
    }
    let Some((env, sls, _)) = world.sls_of(path) else { return Ok(Vec::new()) };
    let got = tops.sls.get(&(env, sls)).map_or(&[][..], Vec::as_slice);
    let title = match got.len() {
        0 => format!("no fleet minion of {total} gets this from the top file"),
        n => format!("{n} of {total} fleet minions get this from the top file: {}", names(got).replace('`', "")),
    };
    Ok(vec![(0, title)])
}

/// What checking every fleet minion's highstate found (`check --fleet` in the editor).
pub struct FleetCheck {
    pub minions: usize,
    /// Each finding once, at its file, with the minions that share it in its message.
    pub by_file: std::collections::BTreeMap<PathBuf, Vec<crate::types::Diagnostic>>,
    /// Why some of the fleet could not be read or compiled.
    pub problems: Vec<String>,
}

/// Every fleet minion's highstate, checked as `check --fleet` checks it (suppression comments
/// and `rules:` included); what the editor's own diagnostics already say at the same place is
/// not repeated.
pub(crate) fn check(snap: &Snapshot) -> Cancellable<FleetCheck> {
    use model::pipeline::Who;
    let world = snap.world();
    let who: Vec<Who> = world.fleet.minions.iter().map(|m| world.who(Some(&m.id))).collect();
    let fs: Arc<dyn model::workspace::vfs::Vfs> = Arc::new(snap.files.fork());
    let mut problems: Vec<String> = world.fleet.problems.iter().map(ToString::to_string).collect();
    // Minions alike share their compiles, within this one run over this snapshot.
    let ctx = model::check::CheckContext { memo: world.ctx.memo.with_sharing(), ..world.ctx.clone() };
    let found = match model::check::highstate::check_minions(&fs, &world.ws, &ctx, &who, &mut Vec::new()) {
        Ok(found) => found,
        Err(e) => {
            problems.push(e.to_string());
            Vec::new()
        }
    };
    let mut by_file: std::collections::BTreeMap<PathBuf, Vec<crate::types::Diagnostic>> = Default::default();
    for m in &found {
        let d = &m.diagnostic;
        let own = snap.with_index(|idx| idx.diagnostics(&d.file))?;
        if own.iter().any(|k| k.span.start == d.span.start && k.code == d.code) {
            continue;
        }
        let text = snap.text(&d.file).unwrap_or_default();
        let prefix = model::check::highstate::minion_prefix(&m.minions, m.alone.as_deref());
        by_file.entry(d.file.clone()).or_default().push(crate::findings::from_model(&text, d, prefix));
    }
    // Suppression comments and `rules:` apply as they do to the file's own diagnostics.
    for (file, found) in &mut by_file {
        let text = snap.text(file).unwrap_or_default();
        crate::findings::apply_policy(snap, file, &text, found, false);
    }
    by_file.retain(|_, found| !found.is_empty());
    Ok(FleetCheck { minions: who.len(), by_file, problems })
}
