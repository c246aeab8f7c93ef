//! The requisite graph as a call hierarchy: a state's incoming calls are the states that
//! require, watch, listen to, prereq, onchanges or onfail it (directly, or through their own
//! target's `_in` form), plus the `extend:` entries that extend it; its outgoing calls the
//! states it requires that way. Read from the per-file summaries of the files around it (its
//! include closures), across files; a requisite cycle shows as one (expanding the calls comes
//! back to where it started).

use std::ops::Range;
use std::path::{Path, PathBuf};

use model::check::summary::{RequisiteRef, StateDecl};

use crate::resolve::*;
use crate::snapshot::Snapshot;
use crate::types::Cancellable;

/// One state of the graph (or an `extend:` entry, as an incoming call).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HierarchyItem {
    pub path: PathBuf,
    /// The state ID.
    pub id: String,
    /// Its functions (`pkg.installed, service.running`), or `extend` for an extend entry.
    pub detail: String,
    /// The whole declaration.
    pub range: Range<usize>,
    /// The ID as written.
    pub selection: Range<usize>,
}

/// One edge: the state at its other end, the requisite kinds, and where it is written in the
/// file of the item the answer is about (incoming: the caller's; outgoing: the asked item's).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HierarchyCall {
    pub item: HierarchyItem,
    pub kinds: Vec<String>,
    pub ranges: Vec<Range<usize>>,
}

fn item(path: &Path, d: &StateDecl) -> HierarchyItem {
    let detail = d.functions.iter().map(|f| format!("{}.{}", f.module, f.function.as_deref().unwrap_or("?"))).collect::<Vec<_>>().join(", ");
    HierarchyItem { path: path.to_path_buf(), id: d.id.clone(), detail, range: d.full_span.clone(), selection: d.span.clone() }
}

/// The state declared or named (by a requisite, an extend key) at `offset`.
pub(crate) fn prepare(snap: &Snapshot, path: &Path, offset: usize) -> Cancellable<Vec<HierarchyItem>> {
    let decls = match item_at(snap, path, offset) {
        Some(Item::Id(d)) | Some(Item::Function(d, _)) => vec![Decl { path: path.to_path_buf(), decl: d }],
        Some(Item::Requisite(r)) if r.key != "sls" => requisite_targets(snap, path, &r)?,
        Some(Item::Extend(e)) => extend_targets(snap, path, &e)?,
        _ => Vec::new(),
    };
    Ok(decls.iter().map(|d| item(&d.path, &d.decl)).collect())
}

/// A requisite edge: `from` depends on `to` (`kind` without `_in`), written at `at` in `written_in`.
struct Edge {
    from: Decl,
    to: Decl,
    kind: String,
    written_in: PathBuf,
    at: Range<usize>,
}

/// Every requisite edge that has the state `of` (in `path`) at one end.
fn edges(snap: &Snapshot, path: &Path, of: &StateDecl) -> Cancellable<Vec<Edge>> {
    let is_it = |p: &Path, d: &StateDecl| p == path && d.span == of.span;
    let mut out = Vec::new();
    for (file, summary) in neighbour_decls(snap, path)? {
        let Some(s) = summary.sls() else { continue };
        for r in s.requisites.iter().filter(|r| r.key != "sls" && !r.in_extend && r.kind != "use" && r.kind != "use_in") {
            let Some(owner) = s.ids.iter().find(|d| d.id == r.owner) else { continue };
            let owner = Decl { path: file.clone(), decl: owner.clone() };
            for target in requisite_targets(snap, &file, r)? {
                let (from, to) = if is_in(r) { (target, owner.clone()) } else { (owner.clone(), target) };
                if is_it(&from.path, &from.decl) || is_it(&to.path, &to.decl) {
                    out.push(Edge { from, to, kind: r.kind.trim_end_matches("_in").to_string(), written_in: file.clone(), at: r.span.clone() });
                }
            }
        }
    }
    Ok(out)
}

fn is_in(r: &RequisiteRef) -> bool {
    r.kind.ends_with("_in")
}

/// Groups edges by the state at their other end, in the order first met.
fn grouped(found: Vec<(HierarchyItem, String, Range<usize>)>) -> Vec<HierarchyCall> {
    let mut out: Vec<HierarchyCall> = Vec::new();
    for (item, kind, at) in found {
        match out.iter_mut().find(|c| c.item.path == item.path && c.item.selection == item.selection) {
            Some(c) => {
                if !c.kinds.contains(&kind) {
                    c.kinds.push(kind);
                }
                if !c.ranges.contains(&at) {
                    c.ranges.push(at);
                }
            }
            None => out.push(HierarchyCall { item, kinds: vec![kind], ranges: vec![at] }),
        }
    }
    out
}

/// The states that depend on the one at `target` (and the extend entries that extend it).
pub(crate) fn incoming(snap: &Snapshot, target: &HierarchyItem) -> Cancellable<Vec<HierarchyCall>> {
    let Some(decl) = declared(snap, target) else { return Ok(Vec::new()) };
    let mut found = Vec::new();
    for e in edges(snap, &target.path, &decl)? {
        if e.to.path == target.path && e.to.decl.span == decl.span {
            // Where the caller's file says it: the requisite, or the caller's ID for an `_in`
            // written in the other file.
            let at = if e.written_in == e.from.path { e.at } else { e.from.decl.span.clone() };
            found.push((item(&e.from.path, &e.from.decl), e.kind, at));
        }
    }
    let mut calls = grouped(found);
    for (file, summary) in neighbour_decls(snap, &target.path)? {
        let Some(s) = summary.sls() else { continue };
        for x in s.extends.iter().filter(|x| x.id == decl.id) {
            let item = HierarchyItem { path: file.clone(), id: x.id.clone(), detail: "extend".into(), range: x.span.clone(), selection: x.span.clone() };
            calls.push(HierarchyCall { item, kinds: vec!["extend".into()], ranges: vec![x.span.clone()] });
        }
    }
    Ok(calls)
}

/// The states the one at `source` depends on.
pub(crate) fn outgoing(snap: &Snapshot, source: &HierarchyItem) -> Cancellable<Vec<HierarchyCall>> {
    let Some(decl) = declared(snap, source) else { return Ok(Vec::new()) };
    let mut found = Vec::new();
    for e in edges(snap, &source.path, &decl)? {
        if e.from.path == source.path && e.from.decl.span == decl.span {
            let at = if e.written_in == source.path { e.at } else { decl.span.clone() };
            found.push((item(&e.to.path, &e.to.decl), e.kind, at));
        }
    }
    Ok(grouped(found))
}

/// The declaration an item stands for, as the file says now.
fn declared(snap: &Snapshot, it: &HierarchyItem) -> Option<StateDecl> {
    let summary = snap.summary(&it.path)?;
    summary.sls()?.ids.iter().find(|d| d.span == it.selection || d.id == it.id).cloned()
}

#[cfg(test)]
mod tests {
    use expect_test::expect;

    use super::*;
    use crate::fixture::Fixture;

    fn show(calls: &[HierarchyCall]) -> String {
        calls
            .iter()
            .map(|c| format!("{} ({}) [{}] {}", c.item.id, c.item.detail, c.kinds.join(","), c.item.path.file_name().unwrap().to_string_lossy()))
            .collect::<Vec<_>>()
            .join("\n")
    }

    #[test]
    fn incoming_and_outgoing_across_files_and_a_cycle() {
        let f = Fixture::new(
            r#"
#- salt-analyzer.yaml
file_roots: {base: [srv]}
#- srv/web.sls
include:
  - app
nginx-ß$0:
  pkg.installed: []
  service.running:
    - watch:
      - file: ℝ-conf
ℝ-conf:
  file.managed:
    - require:
      - pkg: nginx-ß
#- srv/app.sls
💣-app:
  test.nop:
    - require_in:
      - pkg: nginx-ß
    - require:
      - 💣-db
💣-db:
  test.nop:
    - onchanges:
      - 💣-app
extend:
  nginx-ß:
    pkg.installed:
      - version: 1
"#,
        );
        let (path, offset) = f.cursor();
        let a = f.analysis();
        let items = a.call_hierarchy_prepare(&path, offset).unwrap();
        assert_eq!(items.len(), 1);
        expect![[r#"
            ℝ-conf (file.managed) [require] web.sls
            nginx-ß (extend) [extend] app.sls"#]]
        .assert_eq(&show(&a.call_hierarchy_incoming(&items[0]).unwrap()));
        expect![[r#"
            💣-app (test.nop) [require] app.sls
            ℝ-conf (file.managed) [watch] web.sls"#]]
        .assert_eq(&show(&a.call_hierarchy_outgoing(&items[0]).unwrap()));
        // 💣-app and 💣-db require each other: expanding comes back.
        let app = a.call_hierarchy_outgoing(&items[0]).unwrap().into_iter().find(|c| c.item.id == "💣-app").unwrap().item;
        let db = a.call_hierarchy_outgoing(&app).unwrap();
        expect!["💣-db (test.nop) [require] app.sls"].assert_eq(&show(&db));
        expect!["💣-app (test.nop) [onchanges] app.sls"].assert_eq(&show(&a.call_hierarchy_outgoing(&db[0].item).unwrap()));
    }
}
