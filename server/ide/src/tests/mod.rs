//! In-process tests of every query, on `#- path` fixtures with `$0` cursors.

mod actions;
mod completion;
mod diagnostics;
mod gitfs;
mod highstate;
mod hover;
mod links;
mod mapstack;
mod navigation;
mod pillar;
mod structure;
mod symbols;
mod tokens;

use std::path::{Path, PathBuf};

use crate::fixture::at;
use crate::Analysis;

pub(crate) fn ws(rel: &str) -> PathBuf {
    Path::new("/ws").join(rel)
}

/// Every diagnostic of every workspace file (syntax and semantic), one per line.
pub(crate) fn all_diagnostics(analysis: &Analysis) -> String {
    let mut files = analysis.workspace_files();
    for p in analysis.open_documents() {
        if !files.contains(&p) {
            files.push(p);
        }
    }
    files.sort();
    let mut out = String::new();
    for f in files {
        let mut ds = analysis.syntax_diagnostics(&f);
        ds.extend(analysis.diagnostics(&f).expect("not cancelled"));
        for d in ds {
            let first = d.message.lines().next().unwrap_or("");
            out.push_str(&format!("{} {}: {first}\n", at(analysis, &f, d.range.clone()), d.code));
        }
    }
    out
}
