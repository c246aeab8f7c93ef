//! How every command prints: paths (relative to the workspace, or absolute), errors as text
//! and JSON, positions (1-based in text, LSP's 0-based UTF-16 in JSON).

use std::path::{Path, PathBuf};

use model::diagnostic::SaltError;
use model::workspace::vfs::FileTable;
use serde_json::json;

use crate::out::outln;

/// An error as JSON entries: one, or for a cycle one per member (each at its own place). `line`
/// is 1-based, as Salt's messages count; `range` is 0-based with UTF-16 columns, as in `check`.
pub(super) fn error_json(e: &SaltError, files: &FileTable) -> Vec<serde_json::Value> {
    let at = |loc: &Option<model::value::Loc>| match loc {
        Some(loc) => {
            let path = files.path(loc.file);
            (json!(rel(path)), json!(files.human(loc.file, loc.span.start).0), files.range_json(loc.file, &loc.span))
        }
        None => (serde_json::Value::Null, serde_json::Value::Null, serde_json::Value::Null),
    };
    if e.code == model::diagnostic::Code::RequisiteCycle && !e.cycle_ids.is_empty() {
        return e
            .cycle_ids
            .iter()
            .map(|(id, loc)| {
                let (file, line, range) = at(loc);
                json!({"code": e.code.as_str(), "message": e.message, "file": file, "line": line, "range": range, "id": id})
            })
            .collect();
    }
    let (file, line, range) = at(&e.loc);
    vec![json!({"code": e.code.as_str(), "message": e.message, "file": file, "line": line, "range": range, "id": e.id})]
}

/// `web01, web02, web03 and 297 more`: a few names, then a count.
pub(super) fn few(minions: &[String]) -> String {
    const NAMED: usize = 3;
    if minions.len() <= NAMED + 1 {
        minions.join(", ")
    } else {
        format!("{} and {} more", minions[..NAMED].join(", "), minions.len() - NAMED)
    }
}

/// An error as text, as the one-minion commands print it.
pub(super) fn error_text(e: &SaltError, files: &FileTable) -> String {
    let severity = e.severity().as_str();
    match &e.loc {
        Some(loc) => {
            let (line, col) = files.human(loc.file, loc.span.start);
            format!("{severity}[{}]: {}\n  --> {}:{line}:{col}", e.code.as_str(), e.message, rel(files.path(loc.file)))
        }
        None => format!("{severity}[{}]: {}", e.code.as_str(), e.message),
    }
}

/// A command's whole result, kept until the process ends instead of being freed piece by
/// piece: the kernel takes the heap back at once (on a 1,000-file highstate the drop was 5% of
/// `lowstate`'s time). Only for values that own nothing but memory.
pub(super) fn leave_to_exit<T>(value: T) {
    std::mem::forget(value);
}

pub(super) fn print_error_text(e: &SaltError, files: &FileTable) {
    outln!("{}", error_text(e, files));
}

/// How every command prints a path, in text and JSON alike: relative to the workspace root
/// (the directory of `salt-analyzer.yaml`, else the current directory; set when the workspace
/// is loaded), or absolute with `--absolute-paths`.
pub(super) static PATH_STYLE: std::sync::OnceLock<(PathBuf, bool)> = std::sync::OnceLock::new();

pub(crate) fn rel(p: &Path) -> String {
    match PATH_STYLE.get() {
        Some((_, true)) => std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf()).display().to_string(),
        Some((root, false)) => p.strip_prefix(root).unwrap_or(p).display().to_string(),
        None => {
            let cwd = std::env::current_dir().unwrap_or_default();
            p.strip_prefix(&cwd).unwrap_or(p).display().to_string()
        }
    }
}

/// 1-based line and character column: every text position.
pub(super) fn text_position(file: &Path, offset: usize, files: &FileTable) -> (usize, usize) {
    files.id(file).map_or((1, 1), |id| files.human(id, offset))
}

/// 0-based lines and UTF-16 columns, as LSP counts them: every JSON position (an empty range at
/// the start for a file the table does not hold).
pub(super) fn range_json(file: &Path, span: &std::ops::Range<usize>, files: &FileTable) -> serde_json::Value {
    match files.id(file) {
        Some(id) => files.range_json(id, span),
        None => json!({"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}}),
    }
}
