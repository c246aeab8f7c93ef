//! Document highlight: the places of one file that name what the cursor is on. A state ID
//! (its key, an `extend` key, a requisite naming it): its declaration and every requisite,
//! extend and `exclude: - id:` of the file naming it, by ID or name as Salt matches them; an
//! SLS name (an include, an `sls:` requisite, an exclude, a top entry): the file's other
//! places naming it. Where the file's summary has nothing (a Jinja variable, a state inside
//! `{% if %}`), the words its semantic tokens read alike: a Jinja name's uses with where a
//! `set`, `for`, `macro` or import binds it, an ID with the requisites naming it.

use std::path::Path;

use model::check::summary::{SlsSummary, StateDecl};

use crate::classify::classify;
use crate::inputs::summaries::FileSummary;
use crate::resolve::{item_at, ref_matches, Item};
use crate::snapshot::Snapshot;
use crate::types::*;

pub(crate) fn document_highlight(snap: &Snapshot, path: &Path, offset: usize) -> Vec<Highlight> {
    if snap.too_large(path) {
        return Vec::new();
    }
    let mut out = match item_at(snap, path, offset) {
        Some(item) => match snap.summary(path).as_deref() {
            Some(FileSummary::Sls(s)) => sls_highlights(s, &item),
            Some(FileSummary::Top(t)) => match &item {
                Item::TopSls(_, sls) => t
                    .envs
                    .iter()
                    .flat_map(|e| &e.targets)
                    .flat_map(|t| &t.sls)
                    .filter(|s| s.name == sls.name)
                    .map(|s| Highlight { range: s.span.clone(), declaration: false })
                    .collect(),
                _ => Vec::new(),
            },
            None => Vec::new(),
        },
        None => token_highlights(snap, path, offset),
    };
    out.sort_by_key(|h| (h.range.start, h.range.end));
    out.dedup();
    out
}

fn sls_highlights(s: &SlsSummary, item: &Item) -> Vec<Highlight> {
    let decl_id = match item {
        Item::Id(d) => Some(d.id.clone()),
        Item::Extend(e) => Some(e.id.clone()),
        Item::Exclude(e) if e.kind == "id" => Some(e.value.clone()),
        Item::Requisite(r) if r.key != "sls" => {
            // The declarations of this file it names; none: what names that ID here.
            let named: Vec<&StateDecl> = s.ids.iter().filter(|d| ref_matches(&r.key, &r.value, d)).collect();
            if named.is_empty() {
                return references(s, &stand_in(&r.value), true);
            }
            return named.into_iter().flat_map(|d| decl_highlights(s, d)).collect();
        }
        _ => None,
    };
    if let Some(id) = decl_id {
        let decls: Vec<&StateDecl> = s.ids.iter().filter(|d| d.id == id).collect();
        if decls.is_empty() {
            // An ID declared elsewhere: its extends and requisites here.
            return references(s, &stand_in(&id), true);
        }
        return decls.into_iter().flat_map(|d| decl_highlights(s, d)).collect();
    }
    let sls = match item {
        Item::Include(i) => i.resolved.clone(),
        Item::Requisite(r) => Some(r.value.clone()),
        Item::Exclude(e) => Some(e.value.clone()),
        _ => None,
    };
    let Some(sls) = sls else { return Vec::new() };
    let mut out: Vec<Highlight> = Vec::new();
    out.extend(s.includes.iter().filter(|i| i.resolved.as_deref() == Some(&sls)).map(|i| Highlight { range: i.span.clone(), declaration: false }));
    out.extend(s.requisites.iter().filter(|r| r.key == "sls" && r.value == sls).map(|r| Highlight { range: r.span.clone(), declaration: false }));
    out.extend(s.excludes.iter().filter(|e| e.kind == "sls" && e.value == sls).map(|e| Highlight { range: e.span.clone(), declaration: false }));
    out
}

/// A declaration of `id` in another file, for matching the references to it here.
fn stand_in(id: &str) -> StateDecl {
    StateDecl { id: id.to_string(), span: 0..0, full_span: 0..0, functions: Vec::new(), names: Vec::new() }
}

/// A declaration and the places of the file that name it.
fn decl_highlights(s: &SlsSummary, d: &StateDecl) -> Vec<Highlight> {
    let mut out = vec![Highlight { range: d.span.clone(), declaration: true }];
    out.extend(references(s, d, false));
    out
}

/// The requisites naming `d` (by ID or name, any module for a stand-in without functions),
/// its extends and its `exclude: - id:` items.
fn references(s: &SlsSummary, d: &StateDecl, any_module: bool) -> Vec<Highlight> {
    let mut out = Vec::new();
    for r in &s.requisites {
        let names_it = if any_module { r.key != "sls" && r.value == d.id } else { ref_matches(&r.key, &r.value, d) };
        if names_it {
            out.push(Highlight { range: r.span.clone(), declaration: false });
        }
    }
    out.extend(s.extends.iter().filter(|e| e.id == d.id).map(|e| Highlight { range: e.span.clone(), declaration: false }));
    out.extend(s.excludes.iter().filter(|e| e.kind == "id" && e.value == d.id).map(|e| Highlight { range: e.span.clone(), declaration: false }));
    out
}

/// Where the summary has nothing at `offset` (a Jinja name, or a state written inside
/// `{% if %}` or `{% for %}`, which the summary leaves out as not certain): the words the
/// semantic tokens read the same way, with the same text, on the same side of the template.
fn token_highlights(snap: &Snapshot, path: &Path, offset: usize) -> Vec<Highlight> {
    let Some(text) = snap.text(path) else { return Vec::new() };
    let masked = syntax::jinja::mask(&text);
    let tokens = classify(snap, path, None);
    let names = |t: &SemanticToken| {
        matches!(t.kind, TokenType::Variable | TokenType::Namespace) || (t.kind == TokenType::Function && t.modifiers.contains(TokenModifiers::DECLARATION))
    };
    let Some(cursor) = tokens.iter().find(|t| names(t) && t.range.start <= offset && offset <= t.range.end) else { return Vec::new() };
    let word = &text[cursor.range.clone()];
    let in_jinja = |t: &SemanticToken| masked.block_at(t.range.start).is_some();
    // A macro's name is a function where it is declared and a variable where it is called.
    let class = |t: &SemanticToken| if t.kind == TokenType::Namespace { 1 } else { 0 };
    tokens
        .iter()
        .filter(|t| names(t) && class(t) == class(cursor) && in_jinja(t) == in_jinja(cursor) && &text[t.range.clone()] == word)
        .map(|t| Highlight { declaration: t.modifiers.contains(TokenModifiers::DECLARATION), range: t.range.clone() })
        .collect()
}
