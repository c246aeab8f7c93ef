//! What is at a position, and what it resolves to: include items and top-file entries to SLS
//! files (the right one of `x.sls` / `x/init.sls`, in the right environment), requisites and
//! extend keys to the declarations they name, `salt://` URLs and template paths to files; the
//! other way, what names a declaration or an SLS; and a name as written (its quotes) and
//! written back. Shared by every feature, which never uses another.

use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use model::check::summary::{ExcludeItem, ExtendKey, IncludeItem, RequisiteRef, SaltUrl, SlsSummary, StateDecl, StateFunction, TopEnv, TopSls, TopTarget};
use model::py::fnmatch;
use model::workspace::roots::StateFile;

use crate::inputs::summaries::FileSummary;
use crate::snapshot::Snapshot;
use crate::types::{Cancellable, FileRange};

/// The item under the cursor.
#[derive(Debug, Clone)]
pub(crate) enum Item {
    Include(IncludeItem),
    Exclude(ExcludeItem),
    Requisite(RequisiteRef),
    Extend(ExtendKey),
    Url(SaltUrl),
    Id(StateDecl),
    Function(StateDecl, StateFunction),
    /// An argument key under a state function (`- source: ...`), with its span.
    Argument(StateFunction, String, Range<usize>),
    TopEnv(TopEnv),
    TopTarget(TopEnv, TopTarget),
    TopSls(TopEnv, TopSls),
}

impl Item {
    pub(crate) fn range(&self) -> Range<usize> {
        match self {
            Item::Include(i) => i.span.clone(),
            Item::Exclude(e) => e.span.clone(),
            Item::Requisite(r) => r.span.clone(),
            Item::Extend(e) => e.span.clone(),
            Item::Url(u) => u.span.clone(),
            Item::Id(d) => d.span.clone(),
            Item::Function(_, f) => f.span.clone(),
            Item::Argument(_, _, span) => span.clone(),
            Item::TopEnv(e) => e.span.clone(),
            Item::TopTarget(_, t) => t.span.clone(),
            Item::TopSls(_, s) => s.span.clone(),
        }
    }
}

/// Whether `offset` is on `span` (its end counts, so a cursor just after a word is on it).
fn on(span: &Range<usize>, offset: usize) -> bool {
    span.start <= offset && offset <= span.end && span.start < span.end
}

/// The item at `offset` in a file.
pub(crate) fn item_at(snap: &Snapshot, path: &Path, offset: usize) -> Option<Item> {
    let summary = snap.summary(path)?;
    match &*summary {
        FileSummary::Sls(s) => sls_item_at(s, offset),
        FileSummary::Top(t) => {
            for env in &t.envs {
                if on(&env.span, offset) {
                    return Some(Item::TopEnv(env.clone()));
                }
                for target in &env.targets {
                    if on(&target.span, offset) {
                        return Some(Item::TopTarget(env.clone(), target.clone()));
                    }
                    for sls in &target.sls {
                        if on(&sls.span, offset) {
                            return Some(Item::TopSls(env.clone(), sls.clone()));
                        }
                    }
                }
            }
            None
        }
    }
}

fn sls_item_at(s: &SlsSummary, offset: usize) -> Option<Item> {
    if let Some(i) = s.includes.iter().find(|i| on(&i.span, offset)) {
        return Some(Item::Include(i.clone()));
    }
    if let Some(e) = s.excludes.iter().find(|e| on(&e.span, offset)) {
        return Some(Item::Exclude(e.clone()));
    }
    if let Some(r) = s.requisites.iter().find(|r| on(&r.span, offset) || on(&r.key_span, offset)) {
        return Some(Item::Requisite(r.clone()));
    }
    if let Some(u) = s.urls.iter().find(|u| on(&u.span, offset)) {
        return Some(Item::Url(u.clone()));
    }
    if let Some(e) = s.extends.iter().find(|e| on(&e.span, offset)) {
        return Some(Item::Extend(e.clone()));
    }
    for d in &s.ids {
        if on(&d.span, offset) {
            return Some(Item::Id(d.clone()));
        }
        if let Some(f) = d.functions.iter().find(|f| on(&f.span, offset) || f.function_span.as_ref().is_some_and(|s| on(s, offset))) {
            return Some(Item::Function(d.clone(), f.clone()));
        }
        for f in &d.functions {
            if let Some((name, span)) = f.args.iter().find(|(_, span)| on(span, offset)) {
                return Some(Item::Argument(f.clone(), name.clone(), span.clone()));
            }
        }
    }
    None
}

/// The environment a file's references are resolved in (its first).
pub(crate) fn file_env(snap: &Snapshot, path: &Path) -> String {
    snap.world().locate(path).map_or_else(|| "base".to_string(), |(env, _)| env)
}

/// An SLS name resolved in an environment: every file it loads (several for a glob).
pub(crate) fn resolve_sls(snap: &Snapshot, env: &str, name: &str, glob_env: &str) -> Vec<StateFile> {
    let roots = &snap.world().ctx.roots;
    if fnmatch::has_magic(name) {
        // Include globs expand against the including file's environment (`BaseHighState.render_state`).
        let avail = roots.list_states_shared(glob_env);
        let pattern = fnmatch::Pattern::new(name);
        return avail.iter().filter(|n| pattern.matches(n)).filter_map(|n| roots.get_state(env, n)).collect();
    }
    roots.get_state(env, name).into_iter().collect()
}

/// The environment and absolute name an include item asks for.
pub(crate) fn include_target(snap: &Snapshot, path: &Path, item: &IncludeItem) -> Option<(String, String)> {
    let env = item.env.clone().unwrap_or_else(|| file_env(snap, path));
    Some((env, item.resolved.clone()?))
}

/// One state declaration found somewhere.
#[derive(Debug, Clone)]
pub(crate) struct Decl {
    pub(crate) path: PathBuf,
    pub(crate) decl: StateDecl,
}

/// Every declaration of the files sharing an include closure with `path`.
pub(crate) fn neighbour_decls(snap: &Snapshot, path: &Path) -> Cancellable<Vec<(PathBuf, Arc<FileSummary>)>> {
    let files = snap.with_index(|idx| idx.neighbourhood(path))?;
    Ok(files.into_iter().filter_map(|f| snap.summary(&f).map(|s| (f, s))).collect())
}

/// Whether a requisite reference (`key: value`) names a declaration, as Salt's
/// `DependencyGraph` looks it up: by ID or name, of the module given (any for `id`).
pub(crate) fn ref_matches(key: &str, value: &str, decl: &StateDecl) -> bool {
    if key == "sls" {
        return false;
    }
    let module_ok = key == "id" || decl.functions.iter().any(|f| f.module == key);
    if !module_ok {
        return false;
    }
    if fnmatch::has_magic(value) {
        let p = fnmatch::Pattern::new(value);
        return p.matches(&decl.id) || decl.names.iter().any(|n| p.matches(n));
    }
    decl.id == value || decl.names.iter().any(|n| n == value)
}

/// The declarations a requisite reference in `path` names, across its include closures.
pub(crate) fn requisite_targets(snap: &Snapshot, path: &Path, r: &RequisiteRef) -> Cancellable<Vec<Decl>> {
    let mut out = Vec::new();
    for (file, summary) in neighbour_decls(snap, path)? {
        let Some(s) = summary.sls() else { continue };
        for d in &s.ids {
            if ref_matches(&r.key, &r.value, d) {
                out.push(Decl { path: file.clone(), decl: d.clone() });
            }
        }
    }
    Ok(out)
}

/// The declarations an extend key names.
pub(crate) fn extend_targets(snap: &Snapshot, path: &Path, e: &ExtendKey) -> Cancellable<Vec<Decl>> {
    let mut out = Vec::new();
    for (file, summary) in neighbour_decls(snap, path)? {
        let Some(s) = summary.sls() else { continue };
        out.extend(s.ids.iter().filter(|d| d.id == e.id).map(|d| Decl { path: file.clone(), decl: d.clone() }));
    }
    Ok(out)
}

/// The file a `salt://` URL names.
pub(crate) fn url_target(snap: &Snapshot, path: &Path, u: &SaltUrl) -> Option<PathBuf> {
    let env = u.env.clone().unwrap_or_else(|| file_env(snap, path));
    snap.world().ctx.roots.find_file(&env, u.path.trim_start_matches('/'))
}

/// A template path a template names as a literal: `{% import "x" %}`, `{% from "x" import y %}`,
/// `{% include "x" %}`, `{% import_yaml "x" %}` (and `import_json`, `import_text`).
pub(crate) struct TemplateRef {
    /// The string's range inside its quotes.
    pub(crate) inner: Range<usize>,
    /// The path as written.
    pub(crate) written: String,
    /// The file-roots path it loads.
    pub(crate) rel: String,
}

/// Every literal template path `text` (the file at `path`) names, resolved as Salt's loader
/// resolves it.
pub(crate) fn template_refs(snap: &Snapshot, path: &Path, text: &str) -> Vec<TemplateRef> {
    use syntax::jinja::JinjaKind;
    use syntax::jinja_lex::TokenKind;
    let masked = syntax::jinja::mask(text);
    // The directory a relative name starts from: the file's own, under its root.
    let tpldir = snap.world().locate(path).map(|(_, rel)| parent_dir(&rel).to_string()).unwrap_or_default();
    let mut out = Vec::new();
    for block in masked.blocks.iter().filter(|b| b.kind == JinjaKind::Statement) {
        let Some(kw) = block.keyword.as_deref() else { continue };
        if !matches!(kw, "import" | "from" | "include" | "import_yaml" | "import_json" | "import_text") {
            continue;
        }
        let tokens = syntax::jinja_lex::tokens(text, block);
        // `{% from "x" import y %}`: the string right after the statement's word.
        let Some(lit) = tokens.get(2).filter(|t| t.kind == TokenKind::String) else { continue };
        let Some(quoted) = text.get(lit.range.clone()) else { continue };
        if quoted.len() < 2 {
            continue;
        }
        let written = &quoted[1..quoted.len() - 1];
        let Some(rel) = template_path(written, &tpldir) else { continue };
        out.push(TemplateRef { inner: lit.range.start + 1..lit.range.end - 1, written: written.to_string(), rel });
    }
    out
}

/// The directory part of a relative path (`""` at the top).
pub(crate) fn parent_dir(rel: &str) -> &str {
    rel.rsplit_once('/').map_or("", |(d, _)| d)
}

/// The file-roots path a template name loads (`SaltCacheLoader`): `./x` and `../x` relative
/// to the template's directory, anything else from the top of the roots; a URL is a
/// template nobody serves (`TemplateNotFound`).
pub(crate) fn template_path(name: &str, tpldir: &str) -> Option<String> {
    if name.contains("://") {
        return None;
    }
    if name.starts_with("./") || name.starts_with("../") {
        let joined = if tpldir.is_empty() { name.to_string() } else { format!("{tpldir}/{name}") };
        // A name that climbs out of the roots is refused.
        let rel = model::py::path::normpath(&joined);
        return (!rel.starts_with("..")).then_some(rel);
    }
    model::workspace::roots::served_path(name)
}

/// An SLS as a reference target: its environment and name, and the file they load.
pub(crate) struct SlsTarget {
    pub(crate) env: String,
    pub(crate) name: String,
    pub(crate) file: Option<PathBuf>,
}

/// Requisites (direct and `_in`), extends and `exclude: [{id: ...}]` naming a declaration.
/// A state ID declared in one place of the workspace is that state wherever it is named: a
/// highstate (or `state.sls a,b`) brings files together that include neither, so every
/// workspace file is searched then; else the files sharing an include closure with `path`.
pub(crate) fn decl_references(snap: &Snapshot, path: &Path, decl: &StateDecl) -> Cancellable<Vec<FileRange>> {
    let mut out = Vec::new();
    let mut files = neighbour_decls(snap, path)?;
    let everywhere: Vec<(PathBuf, Arc<FileSummary>)> = snap.workspace_files().into_iter().filter_map(|f| snap.summary(&f).map(|s| (f, s))).collect();
    let declared = everywhere.iter().filter_map(|(_, s)| s.sls()).map(|s| s.ids.iter().filter(|d| d.id == decl.id).count()).sum::<usize>();
    if declared == 1 {
        for (f, s) in everywhere {
            if !files.iter().any(|(g, _)| *g == f) {
                files.push((f, s));
            }
        }
    }
    for (file, summary) in files {
        let Some(s) = summary.sls() else { continue };
        for r in &s.requisites {
            if ref_matches(&r.key, &r.value, decl) {
                out.push(FileRange { path: file.clone(), range: r.span.clone() });
            }
        }
        for e in s.extends.iter().filter(|e| e.id == decl.id) {
            out.push(FileRange { path: file.clone(), range: e.span.clone() });
        }
        for e in s.excludes.iter().filter(|e| e.kind == "id" && e.value == decl.id) {
            out.push(FileRange { path: file.clone(), range: e.span.clone() });
        }
    }
    Ok(out)
}

/// How a file names an SLS.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SlsRefKind {
    Include,
    Top,
    Requisite,
    Exclude,
}

/// Include items (relative ones resolved), top-file entries, `sls:` requisites and exclude
/// items naming an SLS, in every file of every environment.
pub(crate) fn sls_references(snap: &Snapshot, target: &SlsTarget) -> Vec<(FileRange, SlsRefKind)> {
    let world = snap.world();
    let names_it = |env: &str, name: &str| -> bool {
        if fnmatch::has_magic(name) {
            return env == target.env && fnmatch::fnmatch(&target.name, name);
        }
        match &target.file {
            Some(f) => world.ctx.roots.get_state(env, name).is_some_and(|s| s.path == *f),
            None => env == target.env && name == target.name,
        }
    };
    let mut out = Vec::new();
    let mut paths = snap.workspace_files();
    for (_, p) in world.top_files() {
        if !paths.contains(&p) {
            paths.push(p);
        }
    }
    for file in paths {
        let Some(summary) = snap.summary(&file) else { continue };
        let env = file_env(snap, &file);
        if let Some(s) = summary.sls() {
            for i in &s.includes {
                if let Some((ienv, name)) = include_target(snap, &file, i) {
                    if names_it(&ienv, &name) {
                        out.push((FileRange { path: file.clone(), range: i.span.clone() }, SlsRefKind::Include));
                    }
                }
            }
            for r in s.requisites.iter().filter(|r| r.key == "sls") {
                if names_it(&env, &r.value) {
                    out.push((FileRange { path: file.clone(), range: r.span.clone() }, SlsRefKind::Requisite));
                }
            }
            for e in s.excludes.iter().filter(|e| e.kind == "sls") {
                if names_it(&env, &e.value) {
                    out.push((FileRange { path: file.clone(), range: e.span.clone() }, SlsRefKind::Exclude));
                }
            }
        }
        if let Some(t) = summary.top() {
            for section in &t.envs {
                for target_entry in &section.targets {
                    for sls in &target_entry.sls {
                        if names_it(&section.env, &sls.name) {
                            out.push((FileRange { path: file.clone(), range: sls.span.clone() }, SlsRefKind::Top));
                        }
                    }
                }
            }
        }
    }
    out
}

/// A scalar as written without its quotes (`'it''s'` is `it's`, `"a\"b"` is `a"b`).
pub(crate) fn unquote(written: &str) -> String {
    let w = written.trim();
    if let Some(inner) = w.strip_prefix('\'').and_then(|s| s.strip_suffix('\'')) {
        return inner.replace("''", "'");
    }
    if let Some(inner) = w.strip_prefix('"').and_then(|s| s.strip_suffix('"')) {
        return inner.replace("\\\"", "\"").replace("\\\\", "\\");
    }
    w.to_string()
}

/// The range inside the quotes of the scalar at `range`.
pub(crate) fn unquoted(text: &str, range: Range<usize>) -> Range<usize> {
    let w = &text[range.clone()];
    if w.len() >= 2 && ((w.starts_with('\'') && w.ends_with('\'')) || (w.starts_with('"') && w.ends_with('"'))) {
        range.start + 1..range.end - 1
    } else {
        range
    }
}

/// `new` written as the scalar `old` was: in its quotes, or plain when YAML reads it back as
/// the same string (else single-quoted).
pub(crate) fn requote(old: &str, new: &str) -> String {
    let w = old.trim();
    if w.starts_with('"') {
        return format!("\"{}\"", new.replace('\\', "\\\\").replace('"', "\\\""));
    }
    if w.starts_with('\'') || !plain_safe(new) {
        return format!("'{}'", new.replace('\'', "''"));
    }
    new.to_string()
}

/// Whether `s` reads back as the same string where it is a plain scalar, as a key or in a flow.
fn plain_safe(s: &str) -> bool {
    if s.contains([',', '[', ']', '{', '}', '#', '\'', '"', '\t'])
        || s.contains(": ")
        || s.ends_with(':')
        || s.starts_with([' ', '-', '?', '&', '*', '!', '|', '>', '%', '@', '`'])
        || s.ends_with(' ')
    {
        return false;
    }
    matches!(syntax::yaml::load(&format!("k: {s}")), Ok(n) if n.get("k").and_then(|v| v.as_str()) == Some(s))
}
