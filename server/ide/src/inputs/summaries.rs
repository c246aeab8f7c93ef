//! Per-file summaries (IDs, includes, requisites, top-file entries) cached by file text:
//! a file is summarised once per distinct text, whichever snapshot asks first.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use model::check::summary::{summarize_sls, summarize_top, SlsSummary, TopSummary};

use crate::inputs::files::Files;
use crate::inputs::world::World;

/// What a file says, read as an SLS file or as a top file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum FileSummary {
    Sls(SlsSummary),
    Top(TopSummary),
}

impl FileSummary {
    pub(crate) fn sls(&self) -> Option<&SlsSummary> {
        match self {
            FileSummary::Sls(s) => Some(s),
            FileSummary::Top(_) => None,
        }
    }
    pub(crate) fn top(&self) -> Option<&TopSummary> {
        match self {
            FileSummary::Top(t) => Some(t),
            FileSummary::Sls(_) => None,
        }
    }
}

/// The cache. Cleared when the configuration changes (SLS names, hence relative includes,
/// depend on the file roots).
#[derive(Default)]
pub(crate) struct Summaries {
    /// Per file: the text summarised and its summary.
    map: Mutex<HashMap<PathBuf, Entry>>,
    /// Summaries answered from the cache and summaries computed: a cheap count that lets
    /// tests tell reuse from recomputation.
    pub(crate) hits: AtomicUsize,
    pub(crate) misses: AtomicUsize,
}

type Entry = (Arc<str>, Arc<FileSummary>);

impl Summaries {
    pub(crate) fn clear(&self) {
        if let Ok(mut m) = self.map.lock() {
            m.clear();
        }
    }

    /// The summary of `path` as `files` has it; `None` when the file cannot be read.
    pub(crate) fn get(&self, world: &World, files: &Files, path: &Path) -> Option<Arc<FileSummary>> {
        let text = files.text(path)?;
        if let Some((t, s)) = self.map.lock().ok().and_then(|m| m.get(path).cloned()) {
            if Arc::ptr_eq(&t, &text) || *t == *text {
                self.hits.fetch_add(1, Ordering::Relaxed);
                return Some(s);
            }
        }
        self.misses.fetch_add(1, Ordering::Relaxed);
        let summary = Arc::new(if world.is_top(path) {
            FileSummary::Top(summarize_top(&text))
        } else {
            let (sls, is_init) = match world.sls_of(path) {
                Some((_, name, init)) => (Some(name), init),
                None => (None, false),
            };
            FileSummary::Sls(summarize_sls(&text, sls.as_deref(), is_init))
        });
        if let Ok(mut m) = self.map.lock() {
            m.insert(path.to_path_buf(), (text, summary.clone()));
        }
        Some(summary)
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::Ordering;
    use std::sync::Arc;

    use crate::fixture::ws;
    use crate::fixture::Fixture;

    /// `(hits, misses)` of the host's summary cache so far.
    fn counts(f: &Fixture) -> (usize, usize) {
        let a = f.analysis();
        let s = &a.snap.shared.summaries;
        (s.hits.load(Ordering::Relaxed), s.misses.load(Ordering::Relaxed))
    }

    #[test]
    fn a_file_is_summarised_once_per_text() {
        let mut f = Fixture::new("#- a.sls\na: test.nop\n#- b.sls\nb: test.nop\n");
        let (hits, misses) = counts(&f);
        let a = f.analysis();
        let first = a.snap.summary(&ws("a.sls")).expect("summary");
        let again = a.snap.summary(&ws("a.sls")).expect("summary");
        assert!(Arc::ptr_eq(&first, &again));
        a.snap.summary(&ws("b.sls")).expect("summary");
        assert_eq!(counts(&f), (hits + 1, misses + 2));
        // Opening a file with its disk text is the same text: still the same summary.
        f.open("a.sls");
        assert!(Arc::ptr_eq(&first, &f.analysis().snap.summary(&ws("a.sls")).expect("summary")));
        assert_eq!(counts(&f), (hits + 2, misses + 2));
        // An edit summarises the edited file again, and only it.
        f.host.change(&ws("a.sls"), vec![(Some(0..1), "a2".into())], 2);
        let a = f.analysis();
        let edited = a.snap.summary(&ws("a.sls")).expect("summary");
        assert_eq!(edited.sls().expect("an SLS file").ids[0].id, "a2");
        a.snap.summary(&ws("b.sls")).expect("summary");
        assert_eq!(counts(&f), (hits + 3, misses + 3));
    }
}
