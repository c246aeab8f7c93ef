//! From the ide's plain types to the protocol: paths to URIs, byte ranges to positions in the
//! negotiated encoding (through `syntax::line_index`), results to lsp-types values, and what
//! the server offers (its capabilities and commands).

use std::ops::Range;
use std::path::Path;

use ide::{
    Analysis, CodeAction, CodeActionKind, CompletionItem, CompletionKind, Diagnostic, DocumentLink, DocumentSymbol, FileRange, Fold, FoldKind, Highlight,
    HoverResult, LinkTarget, NavTarget, SemanticToken, Severity, SignatureHelp, SymbolKind, TokenModifiers, TokenType, WorkspaceSymbol,
};

use syntax::line_index::{LineIndex, PositionEncoding};
use tower_lsp::lsp_types as lsp;

use super::state::ClientFlags;

/// The commands `workspace/executeCommand` accepts.
pub const COMMANDS: &[&str] = &[
    "salt-analyzer.listMinions",
    "salt-analyzer.selectMinion",
    "salt-analyzer.topExplain",
    "salt-analyzer.refreshPillar",
    "salt-analyzer.impactReport",
    "salt-analyzer.checkFleet",
    "salt-analyzer.workspaceInfo",
];

/// The client-side command an impact code lens runs: the VS Code extension and the Neovim
/// plugin open the report (`salt-analyzer.impactReport`) in a preview or a scratch buffer.
pub const SHOW_IMPACT: &str = "salt-analyzer.showImpact";

pub fn url(path: &Path) -> lsp::Url {
    lsp::Url::from_file_path(path).unwrap_or_else(|_| lsp::Url::parse("file:///").expect("a valid URL"))
}

pub fn position(index: &LineIndex, enc: PositionEncoding, offset: usize) -> lsp::Position {
    let w = index.wide_line_col(enc, offset);
    lsp::Position { line: w.line, character: w.col }
}

pub fn range(index: &LineIndex, enc: PositionEncoding, range: Range<usize>) -> lsp::Range {
    lsp::Range { start: position(index, enc, range.start), end: position(index, enc, range.end) }
}

pub fn encoding(enc: PositionEncoding) -> lsp::PositionEncodingKind {
    match enc {
        PositionEncoding::Utf8 => lsp::PositionEncodingKind::UTF8,
        PositionEncoding::Utf16 => lsp::PositionEncodingKind::UTF16,
        // Never negotiated (see `encoding` above), but it has a name in the protocol.
        PositionEncoding::Utf32 => lsp::PositionEncodingKind::UTF32,
    }
}

/// A range in any file, converted with that file's current text.
pub fn location(analysis: &Analysis, enc: PositionEncoding, fr: &FileRange) -> lsp::Location {
    let r = match analysis.line_index(&fr.path) {
        Some(li) => range(&li, enc, fr.range.clone()),
        None => lsp::Range::default(),
    };
    lsp::Location { uri: url(&fr.path), range: r }
}

pub fn diagnostic(analysis: &Analysis, enc: PositionEncoding, index: &LineIndex, d: &Diagnostic) -> lsp::Diagnostic {
    let related = d
        .related
        .iter()
        .map(|(fr, message)| lsp::DiagnosticRelatedInformation { location: location(analysis, enc, fr), message: message.clone() })
        .collect::<Vec<_>>();
    lsp::Diagnostic {
        range: range(index, enc, d.range.clone()),
        severity: Some(match d.severity {
            Severity::Error => lsp::DiagnosticSeverity::ERROR,
            Severity::Warning => lsp::DiagnosticSeverity::WARNING,
            Severity::Hint => lsp::DiagnosticSeverity::HINT,
        }),
        code: Some(lsp::NumberOrString::String(d.code.clone())),
        source: Some("salt-analyzer".to_string()),
        message: d.message.clone(),
        related_information: (!related.is_empty()).then_some(related),
        ..Default::default()
    }
}

pub fn diagnostics(analysis: &Analysis, enc: PositionEncoding, path: &Path, ds: &[Diagnostic]) -> Vec<lsp::Diagnostic> {
    let Some(index) = analysis.line_index(path) else { return Vec::new() };
    ds.iter().map(|d| diagnostic(analysis, enc, &index, d)).collect()
}

pub fn goto(analysis: &Analysis, enc: PositionEncoding, targets: Vec<NavTarget>) -> Option<lsp::GotoDefinitionResponse> {
    if targets.is_empty() {
        return None;
    }
    let locations = targets.into_iter().map(|t| location(analysis, enc, &FileRange { path: t.path, range: t.focus_range })).collect();
    Some(lsp::GotoDefinitionResponse::Array(locations))
}

fn symbol_kind(kind: SymbolKind) -> lsp::SymbolKind {
    match kind {
        SymbolKind::StateId => lsp::SymbolKind::STRUCT,
        SymbolKind::Function => lsp::SymbolKind::METHOD,
        SymbolKind::Section => lsp::SymbolKind::NAMESPACE,
        SymbolKind::Sls => lsp::SymbolKind::MODULE,
        SymbolKind::Environment => lsp::SymbolKind::PACKAGE,
        SymbolKind::Target => lsp::SymbolKind::KEY,
    }
}

#[allow(deprecated)]
fn document_symbol(index: &LineIndex, enc: PositionEncoding, s: DocumentSymbol) -> lsp::DocumentSymbol {
    lsp::DocumentSymbol {
        name: if s.name.is_empty() { " ".to_string() } else { s.name },
        detail: s.detail,
        kind: symbol_kind(s.kind),
        tags: None,
        deprecated: None,
        range: range(index, enc, s.full_range.start.min(s.focus_range.start)..s.full_range.end.max(s.focus_range.end)),
        selection_range: range(index, enc, s.focus_range),
        children: Some(s.children.into_iter().map(|c| document_symbol(index, enc, c)).collect()),
    }
}

#[allow(deprecated)]
pub fn document_symbols(analysis: &Analysis, flags: &ClientFlags, path: &Path, syms: Vec<DocumentSymbol>) -> lsp::DocumentSymbolResponse {
    let Some(index) = analysis.line_index(path) else { return lsp::DocumentSymbolResponse::Nested(Vec::new()) };
    let enc = flags.encoding;
    if flags.hierarchical_symbols {
        return lsp::DocumentSymbolResponse::Nested(syms.into_iter().map(|s| document_symbol(&index, enc, s)).collect());
    }
    // A client without nested symbols gets the tree flattened, with containers named.
    let mut flat = Vec::new();
    fn walk(index: &LineIndex, enc: PositionEncoding, path: &Path, syms: Vec<DocumentSymbol>, container: Option<&str>, out: &mut Vec<lsp::SymbolInformation>) {
        for s in syms {
            out.push(lsp::SymbolInformation {
                name: s.name.clone(),
                kind: symbol_kind(s.kind),
                tags: None,
                deprecated: None,
                location: lsp::Location { uri: url(path), range: range(index, enc, s.focus_range.clone()) },
                container_name: container.map(str::to_string),
            });
            walk(index, enc, path, s.children, Some(&s.name), out);
        }
    }
    walk(&index, enc, path, syms, None, &mut flat);
    lsp::DocumentSymbolResponse::Flat(flat)
}

#[allow(deprecated)]
pub fn workspace_symbols(analysis: &Analysis, enc: PositionEncoding, syms: Vec<WorkspaceSymbol>) -> Vec<lsp::SymbolInformation> {
    syms.into_iter()
        .map(|s| lsp::SymbolInformation {
            name: s.name,
            kind: symbol_kind(s.kind),
            tags: None,
            deprecated: None,
            location: location(analysis, enc, &FileRange { path: s.path, range: s.range }),
            container_name: Some(s.container),
        })
        .collect()
}

pub fn hover(index: &LineIndex, enc: PositionEncoding, h: HoverResult) -> lsp::Hover {
    lsp::Hover {
        contents: lsp::HoverContents::Markup(lsp::MarkupContent { kind: lsp::MarkupKind::Markdown, value: h.markdown }),
        range: Some(range(index, enc, h.range)),
    }
}

/// A state of the requisite graph; `data` carries what finds it again (the ID's byte range).
pub fn hierarchy_item(analysis: &Analysis, enc: PositionEncoding, it: &ide::HierarchyItem) -> Option<lsp::CallHierarchyItem> {
    let li = analysis.line_index(&it.path)?;
    Some(lsp::CallHierarchyItem {
        name: it.id.clone(),
        kind: lsp::SymbolKind::FUNCTION,
        tags: None,
        detail: Some(it.detail.clone()),
        uri: url(&it.path),
        range: range(&li, enc, it.range.clone()),
        selection_range: range(&li, enc, it.selection.clone()),
        data: Some(serde_json::json!({"selection": [it.selection.start, it.selection.end], "range": [it.range.start, it.range.end], "detail": it.detail})),
    })
}

/// A rendered value shown inline, just after its Jinja block.
pub fn inlay_hint(index: &LineIndex, enc: PositionEncoding, h: ide::InlayHint) -> lsp::InlayHint {
    lsp::InlayHint {
        position: position(index, enc, h.offset),
        label: lsp::InlayHintLabel::String(h.label),
        kind: None,
        text_edits: None,
        tooltip: Some(lsp::InlayHintTooltip::MarkupContent(lsp::MarkupContent { kind: lsp::MarkupKind::Markdown, value: h.tooltip })),
        padding_left: Some(true),
        padding_right: None,
        data: None,
    }
}

pub fn completions(index: &LineIndex, enc: PositionEncoding, items: Vec<CompletionItem>) -> lsp::CompletionResponse {
    let items = items
        .into_iter()
        .map(|i| lsp::CompletionItem {
            label: i.label,
            kind: Some(match i.kind {
                CompletionKind::Module => lsp::CompletionItemKind::MODULE,
                CompletionKind::Function => lsp::CompletionItemKind::FUNCTION,
                CompletionKind::Argument => lsp::CompletionItemKind::PROPERTY,
                CompletionKind::Keyword => lsp::CompletionItemKind::KEYWORD,
                CompletionKind::Reference => lsp::CompletionItemKind::REFERENCE,
                CompletionKind::Sls | CompletionKind::File => lsp::CompletionItemKind::FILE,
                CompletionKind::Key => lsp::CompletionItemKind::FIELD,
                CompletionKind::Environment => lsp::CompletionItemKind::FOLDER,
            }),
            detail: i.detail,
            sort_text: Some(i.sort),
            filter_text: None,
            text_edit: Some(lsp::CompletionTextEdit::Edit(lsp::TextEdit { range: range(index, enc, i.edit), new_text: i.insert })),
            ..Default::default()
        })
        .collect();
    // Incomplete: the lists are cut at a limit, and what a context offers changes as the
    // word grows (`pkg` → `pkg.`).
    lsp::CompletionResponse::List(lsp::CompletionList { is_incomplete: true, items })
}

pub fn code_actions(analysis: &Analysis, flags: &ClientFlags, actions: Vec<CodeAction>) -> Vec<lsp::CodeActionOrCommand> {
    let mut out = Vec::new();
    for a in actions {
        if (!a.edit.create_files.is_empty() && !flags.resource_create) || (!a.rename_files.is_empty() && !flags.resource_rename) {
            // The client cannot create or move files from an edit: offering the action would
            // do nothing.
            continue;
        }
        let mut edit = workspace_edit(analysis, flags, &a.edit);
        if !a.rename_files.is_empty() {
            edit = with_renames(edit, &a.rename_files);
        }
        out.push(lsp::CodeActionOrCommand::CodeAction(lsp::CodeAction {
            title: a.title,
            kind: Some(match a.kind {
                CodeActionKind::QuickFix => lsp::CodeActionKind::QUICKFIX,
                CodeActionKind::RefactorRewrite => lsp::CodeActionKind::REFACTOR_REWRITE,
            }),
            is_preferred: a.preferred.then_some(true),
            edit: Some(edit),
            ..Default::default()
        }));
    }
    out
}

/// A source change as the client applies it: file creations and one versioned edit per
/// document when it takes document changes, else a map of edits by URI. The edits of one
/// document are all against its current text.
pub fn workspace_edit(analysis: &Analysis, flags: &ClientFlags, change: &ide::SourceChange) -> lsp::WorkspaceEdit {
    let enc = flags.encoding;
    let mut ops: Vec<lsp::DocumentChangeOperation> = Vec::new();
    for f in &change.create_files {
        ops.push(lsp::DocumentChangeOperation::Op(lsp::ResourceOp::Create(lsp::CreateFile {
            uri: url(f),
            options: Some(lsp::CreateFileOptions { overwrite: Some(false), ignore_if_exists: Some(true) }),
            annotation_id: None,
        })));
    }
    // The edits by document, documents in the order first edited.
    let mut by_doc: Vec<(std::path::PathBuf, Vec<lsp::TextEdit>)> = Vec::new();
    for e in &change.text_edits {
        let r = analysis.line_index(&e.path).map(|li| range(&li, enc, e.range.clone())).unwrap_or_default();
        let edit = lsp::TextEdit { range: r, new_text: e.new_text.clone() };
        match by_doc.iter_mut().find(|(p, _)| *p == e.path) {
            Some((_, edits)) => edits.push(edit),
            None => by_doc.push((e.path.clone(), vec![edit])),
        }
    }
    if flags.resource_create {
        for (path, edits) in by_doc {
            ops.push(lsp::DocumentChangeOperation::Edit(lsp::TextDocumentEdit {
                text_document: lsp::OptionalVersionedTextDocumentIdentifier { uri: url(&path), version: analysis.document_version(&path) },
                edits: edits.into_iter().map(lsp::OneOf::Left).collect(),
            }));
        }
        lsp::WorkspaceEdit { document_changes: Some(lsp::DocumentChanges::Operations(ops)), ..Default::default() }
    } else {
        lsp::WorkspaceEdit { changes: Some(by_doc.into_iter().map(|(p, edits)| (url(&p), edits)).collect()), ..Default::default() }
    }
}

/// `edit` with file renames after its creations and before its text edits, as document
/// changes (a client that takes renames takes them; text edits given by URI become unversioned
/// document edits).
fn with_renames(edit: lsp::WorkspaceEdit, renames: &[(std::path::PathBuf, std::path::PathBuf)]) -> lsp::WorkspaceEdit {
    let mut ops: Vec<lsp::DocumentChangeOperation> = match edit.document_changes {
        Some(lsp::DocumentChanges::Operations(ops)) => ops,
        Some(lsp::DocumentChanges::Edits(edits)) => edits.into_iter().map(lsp::DocumentChangeOperation::Edit).collect(),
        None => Vec::new(),
    };
    for (uri, edits) in edit.changes.into_iter().flatten() {
        ops.push(lsp::DocumentChangeOperation::Edit(lsp::TextDocumentEdit {
            text_document: lsp::OptionalVersionedTextDocumentIdentifier { uri, version: None },
            edits: edits.into_iter().map(lsp::OneOf::Left).collect(),
        }));
    }
    let at = ops.iter().position(|o| !matches!(o, lsp::DocumentChangeOperation::Op(lsp::ResourceOp::Create(_)))).unwrap_or(ops.len());
    let moves = renames.iter().map(|(from, to)| {
        lsp::DocumentChangeOperation::Op(lsp::ResourceOp::Rename(lsp::RenameFile {
            old_uri: url(from),
            new_uri: url(to),
            options: Some(lsp::RenameFileOptions { overwrite: Some(false), ignore_if_exists: Some(false) }),
            annotation_id: None,
        }))
    });
    ops.splice(at..at, moves);
    lsp::WorkspaceEdit { document_changes: Some(lsp::DocumentChanges::Operations(ops)), ..Default::default() }
}

/// The impact lens: at the top of the file, running the client's report command.
pub fn impact_lens(title: String) -> lsp::CodeLens {
    let start = lsp::Position { line: 0, character: 0 };
    lsp::CodeLens {
        range: lsp::Range { start, end: start },
        command: Some(lsp::Command { title, command: SHOW_IMPACT.to_string(), arguments: None }),
        data: None,
    }
}

/// A fleet count at a top-file target or the top of an SLS file: a title, nothing to run
/// (the hover on the target names the minions).
pub fn fleet_lens(index: &LineIndex, enc: PositionEncoding, at: usize, title: String) -> lsp::CodeLens {
    let start = position(index, enc, at);
    lsp::CodeLens { range: lsp::Range { start, end: start }, command: Some(lsp::Command { title, command: String::new(), arguments: None }), data: None }
}

pub fn full_report(items: Vec<lsp::Diagnostic>) -> lsp::DocumentDiagnosticReportResult {
    lsp::DocumentDiagnosticReportResult::Report(lsp::DocumentDiagnosticReport::Full(lsp::RelatedFullDocumentDiagnosticReport {
        related_documents: None,
        full_document_diagnostic_report: lsp::FullDocumentDiagnosticReport { result_id: None, items },
    }))
}

pub fn server_capabilities(flags: &ClientFlags) -> lsp::ServerCapabilities {
    lsp::ServerCapabilities {
        position_encoding: Some(encoding(flags.encoding)),
        text_document_sync: Some(lsp::TextDocumentSyncCapability::Options(lsp::TextDocumentSyncOptions {
            open_close: Some(true),
            change: Some(lsp::TextDocumentSyncKind::INCREMENTAL),
            save: Some(lsp::TextDocumentSyncSaveOptions::Supported(true)),
            ..Default::default()
        })),
        definition_provider: Some(lsp::OneOf::Left(true)),
        references_provider: Some(lsp::OneOf::Left(true)),
        hover_provider: Some(lsp::HoverProviderCapability::Simple(true)),
        inlay_hint_provider: Some(lsp::OneOf::Left(true)),
        call_hierarchy_provider: Some(lsp::CallHierarchyServerCapability::Simple(true)),
        rename_provider: Some(lsp::OneOf::Right(lsp::RenameOptions { prepare_provider: Some(true), work_done_progress_options: Default::default() })),
        completion_provider: Some(lsp::CompletionOptions {
            // `pkg.` functions, `- pkg: ` targets, `G@`/`I@` keys, `salt://a/` paths,
            // `pillar.get('` keys.
            trigger_characters: Some([".", ":", "@", "/", "'", "\"", " "].iter().map(|c| c.to_string()).collect()),
            ..Default::default()
        }),
        document_symbol_provider: Some(lsp::OneOf::Left(true)),
        workspace_symbol_provider: Some(lsp::OneOf::Left(true)),
        code_action_provider: Some(lsp::CodeActionProviderCapability::Options(lsp::CodeActionOptions {
            code_action_kinds: Some(vec![lsp::CodeActionKind::QUICKFIX, lsp::CodeActionKind::REFACTOR_REWRITE]),
            ..Default::default()
        })),
        code_lens_provider: Some(lsp::CodeLensOptions { resolve_provider: Some(false) }),
        semantic_tokens_provider: Some(lsp::SemanticTokensServerCapabilities::SemanticTokensOptions(lsp::SemanticTokensOptions {
            legend: semantic_tokens_legend(),
            range: Some(true),
            full: Some(lsp::SemanticTokensFullOptions::Delta { delta: Some(true) }),
            ..Default::default()
        })),
        document_link_provider: Some(lsp::DocumentLinkOptions { resolve_provider: Some(false), work_done_progress_options: Default::default() }),
        folding_range_provider: Some(lsp::FoldingRangeProviderCapability::Simple(true)),
        selection_range_provider: Some(lsp::SelectionRangeProviderCapability::Simple(true)),
        document_highlight_provider: Some(lsp::OneOf::Left(true)),
        signature_help_provider: Some(lsp::SignatureHelpOptions {
            // `- ` starts an argument; `:` ends its name.
            trigger_characters: Some(vec!["-".into(), " ".into()]),
            retrigger_characters: Some(vec![":".into()]),
            ..Default::default()
        }),
        // Any file or directory: an SLS name, a `salt://` URL or a template path can name it.
        workspace: Some(lsp::WorkspaceServerCapabilities {
            workspace_folders: None,
            file_operations: Some(lsp::WorkspaceFileOperationsServerCapabilities {
                will_rename: Some(lsp::FileOperationRegistrationOptions {
                    filters: vec![lsp::FileOperationFilter {
                        scheme: Some("file".into()),
                        pattern: lsp::FileOperationPattern { glob: "**/*".into(), matches: None, options: None },
                    }],
                }),
                ..Default::default()
            }),
        }),
        execute_command_provider: Some(lsp::ExecuteCommandOptions { commands: COMMANDS.iter().map(|c| c.to_string()).collect(), ..Default::default() }),
        diagnostic_provider: flags.pull_diagnostics.then(|| {
            lsp::DiagnosticServerCapabilities::Options(lsp::DiagnosticOptions {
                identifier: Some("salt-analyzer".to_string()),
                inter_file_dependencies: true,
                workspace_diagnostics: false,
                ..Default::default()
            })
        }),
        ..Default::default()
    }
}

/// The token types of the legend, in the order their indexes are sent.
pub const TOKEN_TYPES: &[(TokenType, lsp::SemanticTokenType)] = &[
    (TokenType::Namespace, lsp::SemanticTokenType::NAMESPACE),
    (TokenType::Type, lsp::SemanticTokenType::TYPE),
    (TokenType::Function, lsp::SemanticTokenType::FUNCTION),
    (TokenType::Keyword, lsp::SemanticTokenType::KEYWORD),
    (TokenType::Variable, lsp::SemanticTokenType::VARIABLE),
    (TokenType::Property, lsp::SemanticTokenType::PROPERTY),
    (TokenType::Parameter, lsp::SemanticTokenType::PARAMETER),
    (TokenType::String, lsp::SemanticTokenType::STRING),
    (TokenType::Number, lsp::SemanticTokenType::NUMBER),
    (TokenType::Operator, lsp::SemanticTokenType::OPERATOR),
    (TokenType::Macro, lsp::SemanticTokenType::MACRO),
    (TokenType::Comment, lsp::SemanticTokenType::COMMENT),
    (TokenType::Regexp, lsp::SemanticTokenType::REGEXP),
    (TokenType::EnumMember, lsp::SemanticTokenType::ENUM_MEMBER),
];

/// The token modifiers of the legend, bit `i` for entry `i` (the ide's bits are the same).
pub const TOKEN_MODIFIERS: &[(TokenModifiers, lsp::SemanticTokenModifier)] = &[
    (TokenModifiers::DECLARATION, lsp::SemanticTokenModifier::DECLARATION),
    (TokenModifiers::READONLY, lsp::SemanticTokenModifier::READONLY),
    (TokenModifiers::DEFAULT_LIBRARY, lsp::SemanticTokenModifier::DEFAULT_LIBRARY),
];

pub fn semantic_tokens_legend() -> lsp::SemanticTokensLegend {
    lsp::SemanticTokensLegend {
        token_types: TOKEN_TYPES.iter().map(|(_, t)| t.clone()).collect(),
        token_modifiers: TOKEN_MODIFIERS.iter().map(|(_, m)| m.clone()).collect(),
    }
}

/// Tokens in the protocol's relative form, each cut at line ends (clients need not support
/// multi-line tokens), lengths in the negotiated encoding.
pub fn semantic_tokens(index: &LineIndex, enc: PositionEncoding, tokens: &[SemanticToken]) -> Vec<lsp::SemanticToken> {
    let mut out = Vec::with_capacity(tokens.len());
    let (mut prev_line, mut prev_col) = (0u32, 0u32);
    for t in tokens {
        let kind = TOKEN_TYPES.iter().position(|(k, _)| *k == t.kind).unwrap_or(0) as u32;
        let mut bits = 0u32;
        for (i, (m, _)) in TOKEN_MODIFIERS.iter().enumerate() {
            if t.modifiers.contains(*m) {
                bits |= 1 << i;
            }
        }
        let first = index.line_col(t.range.start).line;
        let last = index.line_col(t.range.end).line;
        for line in first..=last {
            let Some(content) = index.line_range(line) else { break };
            let start = t.range.start.max(content.start);
            let end = t.range.end.min(content.end);
            if start >= end {
                continue;
            }
            let s = index.wide_line_col(enc, start);
            let e = index.wide_line_col(enc, end);
            let delta_line = s.line - prev_line;
            let delta_start = if delta_line == 0 { s.col - prev_col } else { s.col };
            out.push(lsp::SemanticToken { delta_line, delta_start, length: e.col - s.col, token_type: kind, token_modifiers_bitset: bits });
            (prev_line, prev_col) = (s.line, s.col);
        }
    }
    out
}

/// The one edit turning `old` into `new`: the tokens between their common start and end.
pub fn semantic_tokens_edits(old: &[lsp::SemanticToken], new: &[lsp::SemanticToken]) -> Vec<lsp::SemanticTokensEdit> {
    let prefix = old.iter().zip(new).take_while(|(a, b)| a == b).count();
    let suffix = old[prefix..].iter().rev().zip(new[prefix..].iter().rev()).take_while(|(a, b)| a == b).count();
    let removed = old.len() - prefix - suffix;
    let added = &new[prefix..new.len() - suffix];
    if removed == 0 && added.is_empty() {
        return Vec::new();
    }
    // Each token is five integers of the array the edit addresses.
    vec![lsp::SemanticTokensEdit { start: (prefix * 5) as u32, delete_count: (removed * 5) as u32, data: Some(added.to_vec()) }]
}

pub fn document_links(index: &LineIndex, enc: PositionEncoding, links: Vec<DocumentLink>) -> Vec<lsp::DocumentLink> {
    links
        .into_iter()
        .filter_map(|l| {
            let target = match l.target {
                LinkTarget::File(p) => url(&p),
                LinkTarget::Url(u) => lsp::Url::parse(&u).ok()?,
            };
            Some(lsp::DocumentLink { range: range(index, enc, l.range), target: Some(target), tooltip: Some(l.tooltip), data: None })
        })
        .collect()
}

pub fn folding_ranges(index: &LineIndex, folds: Vec<Fold>) -> Vec<lsp::FoldingRange> {
    folds
        .into_iter()
        .map(|f| lsp::FoldingRange {
            start_line: index.line_col(f.range.start).line,
            end_line: index.line_col(f.range.end).line,
            kind: Some(match f.kind {
                FoldKind::Region => lsp::FoldingRangeKind::Region,
                FoldKind::Comment => lsp::FoldingRangeKind::Comment,
            }),
            ..Default::default()
        })
        .collect()
}

/// Ranges innermost first to the protocol's chain of parents.
pub fn selection_range(index: &LineIndex, enc: PositionEncoding, ranges: Vec<Range<usize>>) -> lsp::SelectionRange {
    let mut chain: Option<lsp::SelectionRange> = None;
    for r in ranges.into_iter().rev() {
        chain = Some(lsp::SelectionRange { range: range(index, enc, r), parent: chain.map(Box::new) });
    }
    chain.unwrap_or(lsp::SelectionRange { range: lsp::Range::default(), parent: None })
}

pub fn highlights(index: &LineIndex, enc: PositionEncoding, hs: Vec<Highlight>) -> Vec<lsp::DocumentHighlight> {
    hs.into_iter()
        .map(|h| lsp::DocumentHighlight {
            range: range(index, enc, h.range),
            kind: Some(if h.declaration { lsp::DocumentHighlightKind::WRITE } else { lsp::DocumentHighlightKind::READ }),
        })
        .collect()
}

/// The signature, its parameters as offsets into the label in the negotiated encoding.
pub fn signature_help(enc: PositionEncoding, s: SignatureHelp) -> lsp::SignatureHelp {
    let label_index = LineIndex::new(&s.label);
    let at = |o: usize| label_index.wide_line_col(enc, o).col;
    let markdown = |value: String| lsp::Documentation::MarkupContent(lsp::MarkupContent { kind: lsp::MarkupKind::Markdown, value });
    let parameters = s
        .parameters
        .into_iter()
        .map(|(r, what)| lsp::ParameterInformation { label: lsp::ParameterLabel::LabelOffsets([at(r.start), at(r.end)]), documentation: Some(markdown(what)) })
        .collect();
    let active = s.active.map(|i| i as u32);
    lsp::SignatureHelp {
        signatures: vec![lsp::SignatureInformation {
            label: s.label,
            documentation: Some(markdown(s.documentation)),
            parameters: Some(parameters),
            active_parameter: active,
        }],
        active_signature: Some(0),
        active_parameter: active,
    }
}
