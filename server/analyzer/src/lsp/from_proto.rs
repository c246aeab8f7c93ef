//! From the protocol to the ide's plain types: URIs to paths, positions (in the negotiated
//! encoding) to byte offsets through `syntax::line_index`, and what `initialize` and the
//! configuration say to [`ClientFlags`] and [`Settings`].

use std::ops::Range;
use std::path::PathBuf;

use syntax::line_index::{LineIndex, PositionEncoding, WideLineCol};
use tower_lsp::lsp_types as lsp;

use super::state::{ClientFlags, SaltCall, Settings};

pub fn path(uri: &lsp::Url) -> Option<PathBuf> {
    uri.to_file_path().ok()
}

/// The byte offset of a position; a line past the end is the end of the text.
pub fn offset(index: &LineIndex, enc: PositionEncoding, pos: lsp::Position) -> usize {
    index.offset_of_wide(enc, WideLineCol { line: pos.line, col: pos.character }).unwrap_or_else(|| index.len())
}

pub fn range(index: &LineIndex, enc: PositionEncoding, range: lsp::Range) -> Range<usize> {
    let start = offset(index, enc, range.start);
    let end = offset(index, enc, range.end).max(start);
    start..end
}

pub fn encoding(caps: &lsp::ClientCapabilities) -> PositionEncoding {
    let offered = caps.general.as_ref().and_then(|g| g.position_encodings.as_ref());
    if offered.is_some_and(|encs| encs.contains(&lsp::PositionEncodingKind::UTF8)) {
        PositionEncoding::Utf8
    } else {
        PositionEncoding::Utf16
    }
}

/// Whether the client applies `kind` of file operation in a workspace edit's document changes.
fn resource_operation(caps: &lsp::ClientCapabilities, kind: lsp::ResourceOperationKind) -> bool {
    caps.workspace
        .as_ref()
        .and_then(|w| w.workspace_edit.as_ref())
        .is_some_and(|e| e.document_changes == Some(true) && e.resource_operations.as_ref().is_some_and(|r| r.contains(&kind)))
}

pub fn client_flags(params: &lsp::InitializeParams) -> ClientFlags {
    let caps = &params.capabilities;
    let opts = params.initialization_options.as_ref();
    let opt_bool = |k: &str| opts.and_then(|o| o.get(k)).and_then(|v| v.as_bool()).unwrap_or(false);
    ClientFlags {
        encoding: encoding(caps),
        work_done_progress: caps.window.as_ref().and_then(|w| w.work_done_progress).unwrap_or(false),
        dynamic_watchers: caps.workspace.as_ref().and_then(|w| w.did_change_watched_files.as_ref()).and_then(|d| d.dynamic_registration).unwrap_or(false),
        resource_create: resource_operation(caps, lsp::ResourceOperationKind::Create),
        resource_rename: resource_operation(caps, lsp::ResourceOperationKind::Rename),
        status_notification: opt_bool("statusNotification"),
        first_run_message: opts.and_then(|o| o.get("firstRunMessage")).and_then(|v| v.as_bool()).unwrap_or(true),
        pull_diagnostics: opt_bool("pullDiagnostics"),
        inlay_refresh: caps.workspace.as_ref().and_then(|w| w.inlay_hint.as_ref()).and_then(|h| h.refresh_support).unwrap_or(false),
        hierarchical_symbols: caps
            .text_document
            .as_ref()
            .and_then(|t| t.document_symbol.as_ref())
            .and_then(|d| d.hierarchical_document_symbol_support)
            .unwrap_or(false),
    }
}

/// A call hierarchy item the server gave out, back to the ide's.
pub fn hierarchy_item(item: &lsp::CallHierarchyItem) -> Option<ide::HierarchyItem> {
    let data = item.data.as_ref()?;
    let pair = |k: &str| -> Option<std::ops::Range<usize>> {
        let v = data.get(k)?.as_array()?;
        Some(v.first()?.as_u64()? as usize..v.get(1)?.as_u64()? as usize)
    };
    Some(ide::HierarchyItem {
        path: path(&item.uri)?,
        id: item.name.clone(),
        detail: data.get("detail").and_then(|d| d.as_str()).unwrap_or_default().to_string(),
        range: pair("range")?,
        selection: pair("selection")?,
    })
}

/// The workspace root: the first workspace folder, else `rootUri`, else `rootPath`.
pub fn root(params: &lsp::InitializeParams) -> Option<PathBuf> {
    if let Some(f) = params.workspace_folders.as_ref().and_then(|f| f.first()) {
        return path(&f.uri);
    }
    if let Some(uri) = &params.root_uri {
        return path(uri);
    }
    #[allow(deprecated)]
    params.root_path.as_ref().map(PathBuf::from)
}

/// `{"minion": ..., "saltConfig": ...}` from initialization options or the
/// `salt-analyzer` configuration section.
pub fn settings(value: Option<&serde_json::Value>) -> Settings {
    let section = value.and_then(|v| v.get("salt-analyzer")).or(value);
    let s = |k: &str| section.and_then(|v| v.get(k)).and_then(|v| v.as_str()).filter(|v| !v.is_empty()).map(str::to_string);
    let salt_call = match section.and_then(|v| v.get("saltCall")) {
        Some(serde_json::Value::Bool(false)) => SaltCall::Off,
        Some(serde_json::Value::String(p)) if !p.is_empty() => SaltCall::At(PathBuf::from(p)),
        _ => SaltCall::OnPath,
    };
    let mut problems = Vec::new();
    let impact_to = match section.and_then(|v| v.get("impact")).and_then(|v| v.get("toSaltVersion")) {
        Some(serde_json::Value::String(v)) if !v.trim().is_empty() => {
            let parsed = model::version::SaltVersion::parse(v.trim());
            if parsed.is_none() {
                problems.push(format!("impact.toSaltVersion: `{v}` is not a supported Salt release (3006, 3007 or 3008)"));
            }
            parsed
        }
        _ => None,
    };
    let hints = section.and_then(|v| v.get("inlayHints"));
    let mut shown = |k: &str| match hints.and_then(|h| h.get(k)) {
        None | Some(serde_json::Value::Null) => true,
        Some(serde_json::Value::Bool(b)) => *b,
        Some(other) => {
            problems.push(format!("inlayHints.{k}: `{other}` is not true or false"));
            true
        }
    };
    let inlay = ide::InlayConfig { values: shown("values"), conditions: shown("conditions"), loops: shown("loops"), sets: shown("sets") };
    Settings { minion: s("minion"), salt_config: s("saltConfig").map(PathBuf::from), salt_call, impact_to, inlay, problems }
}
