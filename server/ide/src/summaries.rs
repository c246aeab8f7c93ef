//! Per-file summaries (IDs, includes, requisites, top-file entries) cached by file text:
//! a file is summarised once per distinct text, whichever snapshot asks first.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use model::check::summary::{summarize_sls, summarize_top, SlsSummary, TopSummary};

use crate::files::Files;
use crate::world::World;

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
                return Some(s);
            }
        }
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
