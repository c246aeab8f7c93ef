//! The fleet's tops: which of the workspace's fleet minions (`fleet:`) each top-file target
//! matches and which get each SLS file from the top, from every fleet minion's top compiled
//! through the one pipeline (in parallel), kept per revision; the fleet code lenses
//! (`features::fleet`) and the target hover read it.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use model::pipeline::Scope;

use crate::snapshot::Snapshot;
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

pub(crate) fn tops(snap: &Snapshot) -> Cancellable<Arc<FleetTops>> {
    if let Some((rev, t)) = snap.shared.cache::<FleetCache>().0.lock().ok().and_then(|c| c.clone()) {
        if rev == snap.revision {
            return Ok(t);
        }
    }
    if snap.is_stale() {
        return Err(Cancelled);
    }
    let ids: Vec<String> = snap.world().fleet.minions.iter().map(|m| m.id.clone()).collect();
    let mut all = FleetTops { total: ids.len(), ..FleetTops::default() };
    // Each minion's top is folded on the thread that compiled it; results come in the fleet's
    // order. Minions that answer the top's targets the same share a compile (this snapshot's).
    let memo = model::pipeline::Memo::sharing();
    model::pipeline::each_in_parallel(
        &ids,
        model::pipeline::parallelism(),
        |id| {
            let mut one = FleetTops::default();
            fold(&mut one, snap, id, &memo);
            one
        },
        |_, part| {
            for (k, (at, ms)) in part.targets {
                all.targets.entry(k).or_insert((at, Vec::new())).1.extend(ms);
            }
            for (k, ms) in part.sls {
                all.sls.entry(k).or_default().extend(ms);
            }
        },
    );
    let all = Arc::new(all);
    if let Ok(mut c) = snap.shared.cache::<FleetCache>().0.lock() {
        *c = Some((snap.revision, all.clone()));
    }
    Ok(all)
}

/// One minion's top, folded into `acc`.
fn fold(acc: &mut FleetTops, snap: &Snapshot, id: &str, memo: &model::pipeline::Memo) {
    let compiled = snap.compile_in(Some(id), snap.files.fork(), Scope::Top, memo);
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

/// What a top-file target's hover adds: the fleet minions it matches.
pub(crate) fn target_hover(snap: &Snapshot, path: &Path, section: &str, target: &str) -> Option<String> {
    if snap.world().fleet.minions.is_empty() {
        return None;
    }
    let tops = tops(snap).ok()?;
    let (_, ms) = tops.targets.get(&(path.to_path_buf(), section.to_string(), target.to_string()))?;
    Some(match ms.len() {
        0 => format!("\nFleet: matches none of its {} minions\n", tops.total),
        n => format!("\nFleet: matches {n} of {} minions: {}\n", tops.total, names(ms)),
    })
}
