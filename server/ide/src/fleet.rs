//! The fleet in the editor: which of the workspace's fleet minions (`fleet:`) each top-file
//! target matches and which get each SLS file from the top, from every fleet minion's top
//! compiled through the one pipeline (in parallel), kept per revision; the code lenses and the
//! target hover read it.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use model::pipeline::Scope;

use crate::analysis::Analysis;
use crate::types::{Cancellable, Cancelled};

/// How many names a lens or a hover lists before it counts the rest.
const NAMED: usize = 20;

/// Every fleet minion's top, folded by target and by SLS.
#[derive(Default)]
pub(crate) struct FleetTops {
    pub(crate) total: usize,
    /// By (top file, section, target): where the target is written and the minions it matched.
    pub(crate) targets: HashMap<(PathBuf, String, String), (usize, Vec<String>)>,
    /// By (saltenv, SLS name): the minions whose top gives them that SLS.
    pub(crate) sls: HashMap<(String, String), Vec<String>>,
}

/// The last [`FleetTops`], by the revision it was made at.
#[derive(Default)]
pub(crate) struct FleetCache(Mutex<Option<(u64, Arc<FleetTops>)>>);

pub(crate) fn tops(analysis: &Analysis) -> Cancellable<Arc<FleetTops>> {
    let snap = &analysis.snap;
    if let Some((rev, t)) = snap.shared.fleet.0.lock().ok().and_then(|c| c.clone()) {
        if rev == snap.revision {
            return Ok(t);
        }
    }
    if analysis.is_stale() {
        return Err(Cancelled);
    }
    let ids: Vec<String> = analysis.world().fleet.minions.iter().map(|m| m.id.clone()).collect();
    let next = std::sync::atomic::AtomicUsize::new(0);
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get()).min(ids.len().max(1));
    let folded: Vec<FleetTops> = std::thread::scope(|s| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                s.spawn(|| {
                    let mut acc = FleetTops::default();
                    loop {
                        let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let Some(id) = ids.get(i) else { break };
                        fold(&mut acc, analysis, id);
                    }
                    acc
                })
            })
            .collect();
        workers.into_iter().filter_map(|w| w.join().ok()).collect()
    });
    let mut all = FleetTops { total: ids.len(), ..FleetTops::default() };
    for part in folded {
        for (k, (at, ms)) in part.targets {
            all.targets.entry(k).or_insert((at, Vec::new())).1.extend(ms);
        }
        for (k, ms) in part.sls {
            all.sls.entry(k).or_default().extend(ms);
        }
    }
    // The fleet's order (sorted by id) whatever thread compiled whom.
    all.targets.values_mut().for_each(|(_, ms)| ms.sort());
    all.sls.values_mut().for_each(|ms| ms.sort());
    let all = Arc::new(all);
    if let Ok(mut c) = snap.shared.fleet.0.lock() {
        *c = Some((snap.revision, all.clone()));
    }
    Ok(all)
}

/// One minion's top, folded into `acc`.
fn fold(acc: &mut FleetTops, analysis: &Analysis, id: &str) {
    let compiled = analysis.compile_for(Some(id), analysis.snap.files.fork(), Scope::Top);
    let Some(top) = &compiled.top else { return };
    for t in &top.targets {
        let (Some(source), Some(loc)) = (&t.source, &t.loc) else { continue };
        let entry = acc.targets.entry((source.clone(), t.section.clone(), t.target.clone())).or_insert((loc.span.start, Vec::new()));
        if t.matched {
            entry.1.push(id.to_string());
        }
    }
    for (env, list) in &top.matches {
        for sls in list {
            acc.sls.entry((env.clone(), sls.clone())).or_default().push(id.to_string());
        }
    }
}

/// `a, b, c and 7 more` (the first [`NAMED`]).
pub(crate) fn names(minions: &[String]) -> String {
    let shown: Vec<String> = minions.iter().take(NAMED).map(|m| format!("`{m}`")).collect();
    match minions.len().saturating_sub(NAMED) {
        0 => shown.join(", "),
        more => format!("{} and {more} more", shown.join(", ")),
    }
}

/// The fleet code lenses of a file: on each target of a top file, how many fleet minions it
/// matches; at the top of an SLS file, how many get it from the top (directly, not through an
/// include). Byte offsets and titles.
pub(crate) fn lenses(analysis: &Analysis, path: &Path) -> Cancellable<Vec<(usize, String)>> {
    let world = analysis.world();
    if world.fleet.minions.is_empty() {
        return Ok(Vec::new());
    }
    let tops = tops(analysis)?;
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

/// What a top-file target's hover adds: the fleet minions it matches.
pub(crate) fn target_hover(analysis: &Analysis, path: &Path, section: &str, target: &str) -> Option<String> {
    if analysis.world().fleet.minions.is_empty() {
        return None;
    }
    let tops = tops(analysis).ok()?;
    let (_, ms) = tops.targets.get(&(path.to_path_buf(), section.to_string(), target.to_string()))?;
    Some(match ms.len() {
        0 => format!("\nFleet: matches none of its {} minions\n", tops.total),
        n => format!("\nFleet: matches {n} of {} minions: {}\n", tops.total, names(ms)),
    })
}

/// What checking every fleet minion's highstate found (`check --fleet` in the editor).
pub struct FleetCheck {
    pub minions: usize,
    /// Each finding once, at its file, with the minions that share it in its message.
    pub by_file: std::collections::BTreeMap<PathBuf, Vec<crate::types::Diagnostic>>,
    /// Why some of the fleet could not be read or compiled.
    pub problems: Vec<String>,
}

/// Every fleet minion's highstate, checked as `check --fleet` checks it; what the editor's
/// own diagnostics already say at the same place is not repeated.
pub(crate) fn check(analysis: &Analysis) -> Cancellable<FleetCheck> {
    use model::pipeline::Who;
    let world = analysis.world();
    let who: Vec<Who> = world.fleet.minions.iter().map(|m| world.who(Some(&m.id))).collect();
    let fs: Arc<dyn model::workspace::vfs::Vfs> = Arc::new(analysis.snap.files.fork());
    let mut problems: Vec<String> = world.fleet.problems.iter().map(ToString::to_string).collect();
    let found = match model::check::highstate::check_minions(&fs, &world.ws, &world.ctx, &who, &[]) {
        Ok(found) => found,
        Err(e) => {
            problems.push(e.to_string());
            Vec::new()
        }
    };
    let mut by_file: std::collections::BTreeMap<PathBuf, Vec<crate::types::Diagnostic>> = Default::default();
    for m in &found {
        let d = &m.diagnostic;
        let own = analysis.with_index(|idx| idx.diagnostics(&d.file))?;
        if own.iter().any(|k| k.span.start == d.span.start && k.code == d.code) {
            continue;
        }
        let text = analysis.text(&d.file).unwrap_or_default();
        let prefix = model::check::highstate::minion_prefix(&m.minions, m.alone.as_deref());
        by_file.entry(d.file.clone()).or_default().push(crate::diagnostics::from_model(&text, d, prefix));
    }
    Ok(FleetCheck { minions: who.len(), by_file, problems })
}
