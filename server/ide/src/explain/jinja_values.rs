//! What a Jinja block of a file evaluates to for the selected minion, for hovers and go to
//! definition: the file is rendered through the pipeline with the block instrumented
//! (`model::render::probe`).

use std::path::Path;

use model::pipeline::Scope;
use model::render::probe::Probe;

use crate::snapshot::Snapshot;

/// A probed block and what it gave, or why nothing could be rendered.
pub(crate) struct Probed {
    pub(crate) probe: Probe,
    pub(crate) outcome: Result<Seen, String>,
}

/// What rendering the file for a minion showed of the block.
pub(crate) struct Seen {
    pub(crate) minion: String,
    /// The values seen, by the index of the probed name.
    pub(crate) values: Vec<(usize, String)>,
    /// Why the file did not render, when it did not.
    pub(crate) failure: Option<String>,
}

/// Renders `path` for the selected minion with the Jinja block at `offset` instrumented;
/// `None` when there is no such block (not a template, not an expression or binding there).
pub(crate) fn probe(snap: &Snapshot, path: &Path, offset: usize) -> Option<Probed> {
    let text = snap.text(path)?;
    if !model::render::is_templated(&text) {
        return None;
    }
    let (probe, _) = model::render::probe::instrument(&text, offset)?;
    let compiled = snap.compile(Scope::Render { path: path.to_path_buf(), probe: Some(model::pipeline::ProbeAt::Block(offset)) });
    let outcome = match (&compiled.minion, &compiled.rendered) {
        (Err(e), _) => Err(format!("The minion profile could not be read: {e}")),
        (Ok(m), Some(r)) => {
            let seen = r.probed.as_ref().map(|(_, s)| s.clone()).unwrap_or_default();
            let failure = r.text.as_ref().err().map(|e| e.message.clone());
            Ok(Seen { minion: m.id.clone(), values: seen, failure })
        }
        (Ok(_), None) => return None,
    };
    Some(Probed { probe, outcome })
}

/// The distinct values name `i` took, in the order first seen.
pub(crate) fn distinct(seen: &[(usize, String)], i: usize) -> Vec<&str> {
    let mut out: Vec<&str> = Vec::new();
    for (_, v) in seen.iter().filter(|(j, _)| *j == i) {
        if !out.contains(&v.as_str()) {
            out.push(v);
        }
    }
    out
}
