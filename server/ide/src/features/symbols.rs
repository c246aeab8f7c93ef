//! Document symbols (the outline of an SLS or top file) and workspace symbols (every state ID
//! and SLS name of every environment).

use std::ops::Range;
use std::path::Path;

use model::check::summary::{SlsSummary, TopSummary};
use model::workspace::roots::sls_name_of;

use crate::inputs::summaries::FileSummary;
use crate::snapshot::Snapshot;
use crate::types::*;

pub(crate) fn document_symbols(snap: &Snapshot, path: &Path) -> Vec<DocumentSymbol> {
    if snap.too_large(path) {
        return Vec::new();
    }
    let Some(summary) = snap.summary(path) else { return Vec::new() };
    match &*summary {
        FileSummary::Sls(s) => sls_symbols(s),
        FileSummary::Top(t) => top_symbols(t),
    }
}

fn leaf(name: &str, detail: Option<String>, kind: SymbolKind, range: Range<usize>) -> DocumentSymbol {
    DocumentSymbol { name: name.to_string(), detail, kind, full_range: range.clone(), focus_range: range, children: Vec::new() }
}

fn hull(children: &[DocumentSymbol]) -> Range<usize> {
    let start = children.iter().map(|c| c.full_range.start).min().unwrap_or(0);
    let end = children.iter().map(|c| c.full_range.end).max().unwrap_or(0);
    start..end
}

fn section(name: &str, children: Vec<DocumentSymbol>) -> DocumentSymbol {
    let range = hull(&children);
    DocumentSymbol { name: name.to_string(), detail: None, kind: SymbolKind::Section, full_range: range.clone(), focus_range: range, children }
}

fn sls_symbols(s: &SlsSummary) -> Vec<DocumentSymbol> {
    let mut out = Vec::new();
    if !s.includes.is_empty() {
        let items = s
            .includes
            .iter()
            .map(|i| {
                let detail = match (&i.env, &i.resolved) {
                    (Some(env), Some(r)) => Some(format!("{env}:{r}")),
                    (None, Some(r)) if *r != i.raw => Some(r.clone()),
                    _ => None,
                };
                leaf(&i.raw, detail, SymbolKind::Sls, i.item_span.clone())
            })
            .collect();
        out.push(section("include", items));
    }
    if !s.excludes.is_empty() {
        let items = s
            .excludes
            .iter()
            .map(|e| leaf(&e.value, Some(e.kind.clone()), if e.kind == "id" { SymbolKind::StateId } else { SymbolKind::Sls }, e.span.clone()))
            .collect();
        out.push(section("exclude", items));
    }
    if !s.extends.is_empty() {
        let items = s
            .extends
            .iter()
            .map(|e| {
                let mut sym = leaf(&e.id, None, SymbolKind::StateId, e.span.clone());
                sym.children =
                    e.functions.iter().map(|f| leaf(&fun_name(&f.module, f.function.as_deref()), None, SymbolKind::Function, f.span.clone())).collect();
                sym.full_range = e.span.start..hull(&sym.children).end.max(e.span.end);
                sym
            })
            .collect();
        out.push(section("extend", items));
    }
    for d in &s.ids {
        let children: Vec<DocumentSymbol> =
            d.functions.iter().map(|f| leaf(&fun_name(&f.module, f.function.as_deref()), None, SymbolKind::Function, f.span.clone())).collect();
        let detail = (!children.is_empty()).then(|| children.iter().map(|c| c.name.clone()).collect::<Vec<_>>().join(", "));
        out.push(DocumentSymbol {
            name: d.id.clone(),
            detail,
            kind: SymbolKind::StateId,
            full_range: d.full_span.clone(),
            focus_range: d.span.clone(),
            children,
        });
    }
    out.sort_by_key(|s| s.full_range.start);
    out
}

fn fun_name(module: &str, function: Option<&str>) -> String {
    match function {
        Some(f) => format!("{module}.{f}"),
        None => module.to_string(),
    }
}

fn top_symbols(t: &TopSummary) -> Vec<DocumentSymbol> {
    t.envs
        .iter()
        .map(|env| {
            let targets: Vec<DocumentSymbol> = env
                .targets
                .iter()
                .map(|target| {
                    let children: Vec<DocumentSymbol> = target.sls.iter().map(|s| leaf(&s.name, None, SymbolKind::Sls, s.span.clone())).collect();
                    let end = hull(&children).end.max(target.span.end).max(target.value_span.end);
                    DocumentSymbol {
                        name: target.target.clone(),
                        detail: target.matcher.clone(),
                        kind: SymbolKind::Target,
                        full_range: target.span.start..end,
                        focus_range: target.span.clone(),
                        children,
                    }
                })
                .collect();
            let end = hull(&targets).end.max(env.span.end);
            DocumentSymbol {
                name: env.env.clone(),
                detail: None,
                kind: SymbolKind::Environment,
                full_range: env.span.start..end,
                focus_range: env.span.clone(),
                children: targets,
            }
        })
        .collect()
}

/// Whether every character of `query` appears in `name` in order, ignoring case.
fn fuzzy(query: &str, name: &str) -> bool {
    let mut chars = name.chars().flat_map(char::to_lowercase);
    query.chars().flat_map(char::to_lowercase).all(|q| chars.any(|c| c == q))
}

/// At most this many workspace symbols are returned: editors ask again as the user types.
const LIMIT: usize = 512;

pub(crate) fn workspace_symbols(snap: &Snapshot, query: &str) -> Vec<WorkspaceSymbol> {
    let world = snap.world();
    let mut out = Vec::new();
    for (env, rel, path) in &world.roots {
        let Some(name) = sls_name_of(rel) else { continue };
        if *rel == world.top_rel {
            continue;
        }
        let container = format!("{env}:{name}");
        if fuzzy(query, &name) {
            out.push(WorkspaceSymbol { name: name.clone(), kind: SymbolKind::Sls, container: env.clone(), path: path.clone(), range: 0..0 });
        }
        let Some(summary) = snap.summary(path) else { continue };
        let Some(s) = summary.sls() else { continue };
        for d in &s.ids {
            if fuzzy(query, &d.id) {
                out.push(WorkspaceSymbol {
                    name: d.id.clone(),
                    kind: SymbolKind::StateId,
                    container: container.clone(),
                    path: path.clone(),
                    range: d.span.clone(),
                });
            }
        }
        if out.len() >= LIMIT * 4 {
            break;
        }
    }
    // Exact and prefix matches first, then by name.
    let q = query.to_lowercase();
    out.sort_by_key(|s| {
        let n = s.name.to_lowercase();
        (n != q, !n.starts_with(&q), s.name.clone(), s.container.clone(), s.path.clone())
    });
    out.truncate(LIMIT);
    out
}

#[cfg(test)]
mod tests;
