//! Rechecking a root after an edit inside one state of one of its files, without rendering
//! and ordering the whole closure again: the previous compile's high data is patched in place
//! (the edited state rendered alone, the spans after it moved) and its ordering errors are
//! kept when the edit cannot change the requisite graph. Every step checks that the patched
//! result is what a full compile would give, and answers "recompute" (`None`) otherwise: the
//! fast path is for typing inside a state, everything else takes the full check.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use crate::check::{judged_root, root_call_errors, root_calls, root_errors, CheckContext, RootCheck};
use crate::diagnostic::SaltError;
use crate::py::fnmatch::has_magic;
use crate::requisites::is_requisite_key;
use crate::state::catalog::{catalog_with, custom_modules, Catalog};
use crate::state::chunk::LowChunk;
use crate::state::compile::{compile_high_data, low_views};
use crate::state::highstate::{handle_state_decls, HighState};
use crate::state::lowstate::static_errors;
use crate::state::order::ordering_errors;
use crate::value::{Dict, FileId, Loc, Val, V};
use crate::workspace::vfs::{FileTable, Vfs};
use crate::workspace::Workspace;

/// What a root's last compile left for the next recheck.
pub struct Session {
    path: PathBuf,
    files: FileTable,
    highstate: HighState,
    /// `ordering_errors(&highstate.high)`.
    ordering: Vec<SaltError>,
    /// Every string written under a requisite argument: a state whose name is none of these
    /// can be renamed without changing which requisite finds which state.
    targets: HashSet<String>,
    /// Whether one of `targets` is a glob (it may match any name).
    magic: bool,
    /// The root's call problems ([`root_call_errors`]), in the order of the states in `high`.
    calls: Vec<SaltError>,
    /// Whether `apply_chunks` got through on `high` (else there are no call problems to keep).
    applied: bool,
    /// The workspace's custom state modules `calls` were judged against.
    custom: Vec<crate::state::catalog::Module>,
}

impl Session {
    /// How many states the root's high data holds.
    pub fn states(&self) -> usize {
        self.highstate.high.len()
    }
}

impl CheckContext {
    /// [`CheckContext::check_root`] with a fresh file table, keeping what a later
    /// [`CheckContext::recheck_root`] needs when the root's high data has at least
    /// `keep_from` states and rendered without errors.
    pub fn check_root_kept(&self, fs: &dyn Vfs, ws: &Workspace, env: &str, rel: &str, path: &Path, keep_from: usize) -> (RootCheck, Option<Session>) {
        let mut files = FileTable::default();
        let (check, highstate, ordering, calls, applied) = match self.compile_root(fs, ws, &mut files, env, rel, path) {
            Ok(compiled) => compiled,
            Err(done) => return (done, None),
        };
        if highstate.high.len() < keep_from || !highstate.errors.is_empty() {
            return (check, None);
        }
        let (targets, magic) = requisite_targets(&highstate.high);
        (check, Some(Session { path: path.to_path_buf(), files, highstate, ordering, targets, magic, calls, applied, custom: custom_modules(fs, &self.roots) }))
    }

    /// The root's check after its files changed on disk (as `fs` reads them now), from the
    /// session of its last check, or `None` when only a full check can tell (the session is
    /// then stale and must be dropped). Only text edits are handled: files created, deleted
    /// or moved, and configuration changes, need a full check.
    pub fn recheck_root(&self, fs: &dyn Vfs, ws: &Workspace, s: &mut Session) -> Option<RootCheck> {
        let mut changed: Option<(FileId, String)> = None;
        for id in 0..s.files.len() as FileId {
            let now = fs.read(s.files.path(id)).ok()?;
            if now != s.files.text(id) {
                if changed.is_some() {
                    return None;
                }
                changed = Some((id, now));
            }
        }
        let edited = match changed {
            Some((file, text)) => Some(patch(s, ws, file, text)?),
            None => None,
        };
        let (show, apply, applies) = static_errors(&s.highstate, &s.ordering, ws.opts.version);
        // Where the apply steps got through before and after, the custom modules are the same
        // and no state's chunks borrow from another's, only the edited state's chunks can have
        // changed: its calls are judged again. Otherwise (a custom module edited, say) all are.
        let custom = custom_modules(fs, &self.roots);
        let local = edited.filter(|_| s.applied && applies && custom == s.custom && local_calls(&s.highstate.high));
        let catalog = catalog_with(&ws.opts, custom.clone());
        s.calls = match local {
            Some(pos) => recheck_calls(&catalog, s, pos),
            None => root_call_errors(&catalog, &s.highstate, &s.files, &s.path, ws.opts.version),
        };
        crate::state::calls::weigh_by_release(&mut s.calls, &ws.opts.version_source);
        (s.applied, s.custom) = (applies, custom);
        let errors = root_errors(&show, &apply, &s.calls);
        Some(self.diagnose(&errors, &s.highstate, &s.files, &s.path))
    }
}

/// An edit of one file; a recheck moves the locations after it ([`TextEdit::shift_after`]).
type Edit = crate::value::TextEdit;

/// Moves every location of `v` that lies after `edit`.
fn shift_val(edit: &Edit, v: &mut Val) {
    v.locs_mut(&mut |at| {
        if let Some(at) = at {
            edit.shift_after(at);
        }
    });
}

/// Moves every location of `e` that lies after `edit`.
fn shift_error(edit: &Edit, e: &mut SaltError) {
    e.locs_mut(&mut |at| edit.shift_after(at));
}

/// Whether a state's chunks are made from its own declaration alone (which `extend`,
/// `exclude`, `use` and `use_in` break: they carry one state's arguments, or its absence, into
/// others).
fn local_calls(high: &Dict) -> bool {
    !(high.contains("__extend__") || high.contains("__exclude__") || crate::state::extend::borrows_arguments(high))
}

/// The root's call problems after the state at `pos` of the high data changed, where
/// [`local_calls`] holds: the other states' problems as they were, the edited state's judged
/// on its own chunks, in its place (the order [`root_call_errors`] gives).
fn recheck_calls(catalog: &Catalog, s: &Session, pos: usize) -> Vec<SaltError> {
    let Some(root) = judged_root(&s.highstate, &s.files, &s.path) else { return Vec::new() };
    let high = &s.highstate.high;
    let (key, body) = &high.0[pos];
    let id = key.py_str();
    let one = Dict(vec![(key.clone(), body.clone())]);
    let fresh = root_calls(catalog, &one, &compile_high_data(&one), root);
    // The kept problems of the states before the edited one stay before its problems (a
    // problem without a state of the high data goes after, as its chunks would).
    let before: HashSet<&str> = high.0[..pos].iter().filter_map(|(k, _)| k.as_str()).collect();
    let kept: Vec<&SaltError> = s.calls.iter().filter(|e| e.id.as_deref() != Some(id.as_str())).collect();
    let at = kept.iter().position(|e| !e.id.as_deref().is_some_and(|i| before.contains(i))).unwrap_or(kept.len());
    #[cfg(test)]
    {
        tests::LOCAL_CALLS[0].fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        tests::LOCAL_CALLS[1].fetch_add(usize::from(!fresh.is_empty()), std::sync::atomic::Ordering::Relaxed);
    }
    kept[..at].iter().map(|e| (*e).clone()).chain(fresh).chain(kept[at..].iter().map(|e| (*e).clone())).collect()
}

/// Apply the edit of `file` (now `text`) to the session and return the position of the edited
/// state in the high data, or `None` when it is not an edit inside one state's body that the
/// session can take.
fn patch(s: &mut Session, ws: &Workspace, file: FileId, text: String) -> Option<usize> {
    let (edit, block, block_end, new_block_end) = locate(file, s.files.text(file), &text)?;
    let node = syntax::yaml::load(&text[block..new_block_end]).ok()?;
    let syntax::yaml::Value::Map(pairs) = &node.value else { return None };
    let [(k, v)] = &pairs[..] else { return None };
    if k.span.start != 0 || node.span.start != 0 {
        return None;
    }
    let key = Val::from_node_at(k, file, block);
    let id = key.as_str()?.to_string();
    if id.starts_with("__") || matches!(id.as_str(), "include" | "extend" | "exclude") {
        return None;
    }
    let raw = Val::from_node_at(v, file, block);
    if raw.as_dict().is_some_and(|d| d.keys().any(|k| k.as_str().is_none_or(|k| k.starts_with("__")))) {
        return None;
    }
    // The state in the high data, declared at this block's key.
    let pos = s
        .highstate
        .high
        .0
        .iter()
        .position(|(k, _)| k.as_str() == Some(id.as_str()) && k.at.as_ref().is_some_and(|l| l.file == file && l.span.start == block))?;
    let path = s.files.path(file).to_path_buf();
    let mut rendered = s.highstate.rendered.iter().filter(|r| r.file.as_ref().is_some_and(|f| f.path == path));
    let origin = rendered.next()?;
    if rendered.next().is_some() {
        return None;
    }
    let mut one = Dict(vec![(key, raw)]);
    let mut errors = Vec::new();
    handle_state_decls(&mut one, &origin.sls, &origin.env, &mut errors);
    let (_, mut body) = one.0.pop()?;
    let old_body = s.highstate.high.0[pos].1.as_dict()?;
    if !errors.is_empty() || body.as_dict().is_none() {
        return None;
    }
    // What `_handle_iorder` and the includers added, as they added it.
    if ws.opts.state_auto_order {
        number_like(body.as_dict_mut()?, old_body)?;
    }
    if let Some(from) = old_body.get("__sls_included_from__") {
        body.as_dict_mut()?.set_str("__sls_included_from__", from.clone());
    }
    // A kept error pointing into the edited block could not be moved with it: even a span
    // that ends before the edit may end elsewhere now (a collection ends where the next
    // token starts, past blank and comment lines).
    let touched = |l: &Loc| l.file == file && l.span.end > block && l.span.start < block_end;
    let keep_ordering = same_graph(s, &s.highstate.high.0[pos], &body)
        && !s.ordering.iter().any(|e| {
            e.loc.as_ref().is_some_and(touched) || e.related.iter().any(|(l, _)| touched(l)) || e.cycle_ids.iter().any(|(_, l)| l.as_ref().is_some_and(touched))
        });
    for (i, (k, v)) in s.highstate.high.0.iter_mut().enumerate() {
        // A state of another file, or one before the edit, has no span to move.
        let from_file = k.at.as_ref().is_some_and(|l| l.file == file);
        let special = k.as_str().is_some_and(|k| k.starts_with("__"));
        if i != pos && (special || (from_file && k.at.as_ref().is_some_and(|l| l.span.start >= edit.old_end))) {
            shift_val(&edit, k);
            shift_val(&edit, v);
        }
    }
    s.highstate.high.0[pos].1 = body;
    for r in &mut s.highstate.rendered {
        for inc in &mut r.includes {
            if let Some(at) = &mut inc.loc {
                edit.shift_after(at);
            }
        }
    }
    s.files.add(path, text.into());
    #[cfg(test)]
    tests::KEPT[usize::from(keep_ordering)].fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    // The other states' call problems move with their states (the edited state's are judged
    // again by the caller).
    s.calls.iter_mut().for_each(|e| shift_error(&edit, e));
    if keep_ordering {
        s.ordering.iter_mut().for_each(|e| shift_error(&edit, e));
    } else {
        s.ordering = ordering_errors(&s.highstate.high);
        (s.targets, s.magic) = requisite_targets(&s.highstate.high);
    }
    Some(pos)
}

/// Where the edit from `old` to `new` is, and the top-level block of `old` holding it (its
/// start, its end, and its end in `new`), when the edit stays inside that block's body: its first line
/// (the key) untouched, and no line of the new text in the edited range starting an entry.
fn locate(file: FileId, old: &str, new: &str) -> Option<(Edit, usize, usize, usize)> {
    if crate::render::is_templated(old) || crate::render::is_templated(new) {
        return None;
    }
    let edit = Edit::between(file, old, new)?;
    let keys = syntax::yaml_reuse::key_line_starts(old)?;
    let at = keys.partition_point(|&k| k <= edit.start).checked_sub(1)?;
    let block = keys[at];
    let block_end = keys.get(at + 1).copied().unwrap_or(old.len());
    let key_line_end = old[block..].find('\n').map(|n| block + n)?;
    if edit.start <= key_line_end || (edit.old_end >= block_end && block_end != old.len()) {
        return None;
    }
    let mut line = syntax::line_index::line_start(new, edit.start);
    while line <= edit.new_end && line < new.len() {
        if syntax::yaml_reuse::line_kind(&new[line..]) != syntax::yaml_reuse::LineKind::Inside {
            return None;
        }
        line = match new[line..].find('\n') {
            Some(n) => line + n + 1,
            None => break,
        };
    }
    let new_block_end = block_end - edit.old_end + edit.new_end;
    // Another block could alias an anchor this one defines: its value would change too.
    if defines_anchor(&old[block..block_end]) || defines_anchor(&new[block..new_block_end]) {
        return None;
    }
    Some((edit, block, block_end, new_block_end))
}

/// Give the declarations of a re-rendered state body the `order` numbers `_handle_iorder`
/// gave them in `old` (the same declarations without an `order` argument, in the same order),
/// or `None` when the numbering would differ.
fn number_like(body: &mut Dict, old: &Dict) -> Option<()> {
    let is_order = |a: &Val| a.as_dict().and_then(Dict::first_key_str) == Some("order");
    // The numbers, in declaration order: an `order` argument that no file wrote.
    let mut given = Vec::new();
    for (key, run) in &old.0 {
        let (Some(k), Some(args)) = (key.as_str(), run.as_list()) else { continue };
        if k.starts_with('_') {
            continue;
        }
        match args.iter().find(|a| is_order(a)) {
            // A declaration left unnumbered: the numbering stopped before it.
            None => return None,
            Some(a) if a.at.is_none() => given.push((k, a.clone())),
            Some(_) => {}
        }
    }
    let mut given = given.into_iter();
    for (key, run) in body.0.iter_mut() {
        let Some(k) = key.as_str() else { continue };
        if k.starts_with('_') {
            continue;
        }
        let Some(args) = run.as_list_mut() else { continue };
        if !args.iter().any(is_order) {
            let (old_k, number) = given.next()?;
            if old_k != k {
                return None;
            }
            args.push(number);
        }
    }
    given.next().is_none().then_some(())
}

/// Whether replacing the state `old` by `body` leaves the requisite graph of the session's
/// high data as it is, so that its ordering errors stay: the same chunks with the same
/// requisites, and any renamed chunk neither found by a requisite nor named in an error.
fn same_graph(s: &Session, old: &(Val, Val), body: &Val) -> bool {
    let (key, old_body) = old;
    if !same_args(old_body, body) {
        return false;
    }
    let before = Dict(vec![old.clone()]);
    let after = Dict(vec![(key.clone(), body.clone())]);
    let (a, b) = (low_views(&before), low_views(&after));
    if a.len() != b.len() {
        return false;
    }
    let id = key.py_str();
    let in_errors = s.ordering.iter().any(|e| e.id.as_deref() == Some(id.as_str()) || e.cycle_ids.iter().any(|(c, _)| *c == id));
    for (x, y) in a.iter().zip(&b) {
        if x.tag() == y.tag() {
            continue;
        }
        let (old_name, new_name) = (x.str("name"), y.str("name"));
        let found = |n: &str| s.targets.contains(n) || n.contains("_|-");
        if s.magic || in_errors || found(&old_name) || found(&new_name) {
            return false;
        }
    }
    true
}

/// Whether two state bodies have the same declarations, functions and arguments, except for
/// the values of arguments the requisite graph never reads (anything but requisites, `name`,
/// `names`, `state`, `fun` and the `__` keys) and for `name` itself, which the caller compares
/// through the chunks it makes.
fn same_args(a: &Val, b: &Val) -> bool {
    let (Some(a), Some(b)) = (a.as_dict(), b.as_dict()) else { return false };
    if a.len() != b.len() {
        return false;
    }
    a.0.iter().zip(&b.0).all(|((ka, ra), (kb, rb))| {
        if ka != kb {
            return false;
        }
        match (ra.as_list(), rb.as_list()) {
            (Some(x), Some(y)) => x.len() == y.len() && x.iter().zip(y).all(|(p, q)| same_arg(p, q)),
            _ => ra == rb,
        }
    })
}

fn same_arg(a: &Val, b: &Val) -> bool {
    let (Some(x), Some(y)) = (a.as_dict(), b.as_dict()) else { return a == b };
    x.len() == y.len()
        && x.0.iter().zip(&y.0).all(|((ka, va), (kb, vb))| {
            if ka != kb {
                return false;
            }
            let inert = ka.as_str().is_some_and(|k| k == "name" || (!k.starts_with('_') && !is_requisite_key(k) && !matches!(k, "names" | "state" | "fun")));
            inert || va == vb
        })
}

/// Every string under a requisite argument of the high data (an over-approximation of the
/// names requisites look states up by), and whether one is a glob.
fn requisite_targets(high: &Dict) -> (HashSet<String>, bool) {
    fn strings(v: &Val, out: &mut HashSet<String>) {
        match &v.v {
            V::Str(s) => {
                out.insert(s.clone());
            }
            V::List(items) => items.iter().for_each(|x| strings(x, out)),
            V::Dict(d) => d.0.iter().for_each(|(k, x)| {
                strings(k, out);
                strings(x, out)
            }),
            _ => {}
        }
    }
    fn args(list: &[Val], out: &mut HashSet<String>) {
        for d in list.iter().filter_map(Val::as_dict) {
            for (k, v) in &d.0 {
                let k = k.py_cow();
                if is_requisite_key(&k) {
                    strings(v, out);
                } else if k == "names" {
                    // A `names` entry's own arguments.
                    for entry in v.as_list().into_iter().flatten().filter_map(Val::as_dict) {
                        for (_, extra) in &entry.0 {
                            args(extra.as_list().map_or(&[], Vec::as_slice), out);
                        }
                    }
                }
            }
        }
    }
    let mut out = HashSet::new();
    for (_, body) in &high.0 {
        for (_, run) in body.as_dict().into_iter().flat_map(|d| &d.0) {
            args(run.as_list().map_or(&[], Vec::as_slice), &mut out);
        }
    }
    let magic = out.iter().any(|t| has_magic(t));
    (out, magic)
}

/// Whether a block may define a YAML anchor: an `&` where a node can start (at the start of a
/// line's content, or after `:`, `-`, `?`, `,`, `[`, `{` or a tag). An `&` inside a plain
/// scalar (`a && b`) defines nothing.
fn defines_anchor(block: &str) -> bool {
    block.lines().any(|line| {
        line.match_indices('&').any(|(i, _)| {
            let before = line[..i].trim_end_matches([' ', '\t']);
            before.is_empty() || before.ends_with([':', '-', '?', ',', '[', '{']) || before.rsplit([' ', '\t']).next().is_some_and(|t| t.starts_with('!'))
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workspace::vfs::MemFs;
    use fastrand::Rng;

    /// How many patches recomputed (0) and kept (1) the ordering errors.
    pub(super) static KEPT: [std::sync::atomic::AtomicUsize; 2] = [const { std::sync::atomic::AtomicUsize::new(0) }; 2];
    /// How many rechecks judged only the edited state's calls, and how many of those found a
    /// problem in it.
    pub(super) static LOCAL_CALLS: [std::sync::atomic::AtomicUsize; 2] = [const { std::sync::atomic::AtomicUsize::new(0) }; 2];

    /// The recheck asks `is_requisite_key` alone whether an argument shapes the graph.
    #[test]
    fn every_graph_type_is_a_requisite_key() {
        use crate::requisites::{ORDERING_TYPES, REQUISITE_TYPES};
        assert!(REQUISITE_TYPES.iter().chain(ORDERING_TYPES).all(|k| is_requisite_key(k)));
    }

    #[test]
    fn anchors_are_told_from_ampersands_in_text() {
        assert!(defines_anchor("a: &x 1\n"));
        assert!(defines_anchor("a:\n  - &x 1\n"));
        assert!(defines_anchor("a: !!str &x 1\n"));
        assert!(!defines_anchor("a:\n  cmd.run:\n    - name: make && make install\n"));
        assert!(!defines_anchor("a: 'x&y'\n"));
    }

    /// The tests' seeded randomness is fastrand's; these two read better at the call sites.
    fn pick<'a>(r: &mut Rng, items: &[&'a str]) -> &'a str {
        items[r.usize(..items.len())]
    }
    fn chance(r: &mut Rng, percent: usize) -> bool {
        r.usize(..100) < percent
    }

    const IDS: &[&str] = &["web", "db", "cache", "ß_conf", "svc", "lb", "app", "tls"];
    const NAMES: &[&str] = &["nginx", "/etc/ß.conf", "redis", "web", "pkg-💣", "db", "app-1"];
    const MODS: &[&str] = &["pkg", "file", "service", "cmd", "test"];

    /// A requisite item naming one of the tree's states (or not), by ID, name, glob or SLS.
    fn target(r: &mut Rng) -> String {
        let m = pick(r, MODS);
        match r.usize(..10) {
            0 => format!("sls: {}", pick(r, &["a", "b", "sub.c", "nope"])),
            1 => format!("{m}: {}*", pick(r, IDS).chars().next().unwrap_or('x')),
            2 => pick(r, IDS).to_string(),
            3..=5 => format!("{m}: {}", pick(r, NAMES)),
            _ => format!("{m}: {}{}", pick(r, IDS), r.usize(..3)),
        }
    }

    fn state(r: &mut Rng, id: &str) -> String {
        let m = pick(r, MODS);
        if chance(r, 8) {
            return format!("{id}: {m}.nop\n");
        }
        let mut s = format!("{id}:\n  {m}.{}:\n", pick(r, &["installed", "managed", "running", "run", "nop"]));
        if chance(r, 70) {
            s.push_str(&format!("    - name: {}\n", pick(r, NAMES)));
        }
        if chance(r, 15) {
            s.push_str(&format!("    - names:\n      - {}\n      - {}:\n        - require:\n          - {}\n", pick(r, NAMES), pick(r, NAMES), target(r)));
        }
        if chance(r, 30) {
            s.push_str(&format!("    - source: salt://{}\n", pick(r, NAMES)));
        }
        if chance(r, 10) {
            s.push_str(&format!("    - order: {}\n", r.usize(..20)));
        }
        for _ in 0..r.usize(..3) {
            let kind = pick(r, &["require", "require", "watch", "prereq", "onchanges", "require_in", "listen"]);
            s.push_str(&format!("    - {kind}:\n"));
            for _ in 0..1 + r.usize(..2) {
                s.push_str(&format!("      - {}\n", target(r)));
            }
        }
        if chance(r, 10) {
            let other = MODS.iter().find(|o| **o != m).unwrap_or(&"test");
            s.push_str(&format!("  {other}.absent:\n    - name: x\n"));
        }
        if chance(r, 10) {
            s.push_str("# a comment\n\n");
        }
        s
    }

    fn tree(r: &mut Rng) -> MemFs {
        let mut fs = MemFs::default();
        let files = [("a.sls", "include:\n  - b\n  - sub.c\n"), ("b.sls", "include:\n  - .sub.c\n"), ("sub/c.sls", "")];
        for (i, (path, head)) in files.iter().enumerate() {
            let mut text = head.to_string();
            if chance(r, 10) {
                text.push_str("extend:\n  web0:\n    pkg:\n      - name: extended\n");
            }
            let first = r.usize(..IDS.len());
            for k in 0..1 + r.usize(..6) {
                // Distinct within the tree: the file's index is the suffix.
                let id = format!("{}{i}", IDS[(first + 3 * k) % IDS.len()]);
                text.push_str(&state(r, &id));
            }
            fs.files.insert(Path::new("/ws").join(path), text);
        }
        fs
    }

    /// An edit most likely inside a state's body: a typed or deleted character, a value
    /// replaced by another (a name or a requisite target), a line duplicated or removed.
    fn edit(r: &mut Rng, text: &str) -> String {
        let lines: Vec<(usize, &str)> = text
            .split_inclusive('\n')
            .scan(0, |at, l| {
                let start = *at;
                *at += l.len();
                Some((start, l))
            })
            .collect();
        if lines.is_empty() {
            return format!("{text}x: test.nop\n");
        }
        let (start, line) = lines[r.usize(..lines.len())];
        let mut out = text.to_string();
        let mut at = start + r.usize(..line.len() + 1);
        while !text.is_char_boundary(at) {
            at -= 1;
        }
        match r.usize(..9) {
            0..=2 => out.insert_str(at, pick(r, &["x", "y", " ", "-", ":", "ß", "*", "&", "\n", "'", "#"])),
            3 => {
                let mut end = (at + 1 + r.usize(..3)).min(text.len());
                while !text.is_char_boundary(end) {
                    end += 1;
                }
                out.replace_range(at..end, "");
            }
            4 | 5 => {
                for old in NAMES.iter().chain(IDS) {
                    if let Some(i) = line.find(old) {
                        out.replace_range(start + i..start + i + old.len(), pick(r, NAMES));
                        break;
                    }
                }
            }
            6 => out.insert_str(start, line),
            7 => out.replace_range(start..start + line.len(), ""),
            _ => {
                let end = start + line.trim_end_matches('\n').len();
                out.insert_str(end, pick(r, &["-x", "1", "_|-", " # c"]));
            }
        }
        out
    }

    /// Random trees and random edits: every recheck that answers gives exactly what a fresh
    /// check and a fresh session give: the diagnostics, the high data with its spans, the
    /// ordering errors and the requisite targets.
    #[test]
    fn rechecks_equal_fresh_checks() {
        let ws = Workspace::load(&MemFs::default(), Path::new("/ws"), None).expect("workspace");
        let mut fast = 0;
        let mut total = 0;
        let mut no_session = 0;
        // More with SALT_RECHECK_SEEDS (3,000 were run once, in release).
        let seeds: u64 = std::env::var("SALT_RECHECK_SEEDS").ok().and_then(|s| s.parse().ok()).unwrap_or(120);
        for seed in 1..=seeds {
            let mut r = Rng::with_seed(seed);
            let mut fs = tree(&mut r);
            let ctx = CheckContext::new(&fs, &ws);
            let root = Path::new("/ws/a.sls");
            let (_, mut session) = ctx.check_root_kept(&fs, &ws, "base", "a.sls", root, 0);
            for _ in 0..25 {
                let files: Vec<PathBuf> = fs.files.keys().cloned().collect();
                let path = files[r.usize(..files.len())].clone();
                let before = fs.files[&path].clone();
                let text = edit(&mut r, &before);
                fs.files.insert(path.clone(), text);
                let (fresh, fresh_session) = ctx.check_root_kept(&fs, &ws, "base", "a.sls", root, 0);
                total += 1;
                if let Some(s) = session.as_mut() {
                    if let Some(re) = ctx.recheck_root(&fs, &ws, s) {
                        fast += 1;
                        let dump = |fs: &MemFs| fs.files.iter().map(|(p, t)| format!("#- {}\n{t}", p.display())).collect::<String>();
                        if re.diagnostics != fresh.diagnostics {
                            let lines = |ds: &[crate::diagnostic::Diagnostic]| ds.iter().map(|d| format!("{d:?}")).collect::<Vec<_>>();
                            let (a, b) = (lines(&re.diagnostics), lines(&fresh.diagnostics));
                            let only = |x: &[String], y: &[String]| x.iter().filter(|l| !y.contains(l)).cloned().collect::<Vec<_>>().join("\n");
                            panic!("seed {seed}: only in the recheck:\n{}\nonly in the fresh check:\n{}\ntree:\n{}", only(&a, &b), only(&b, &a), dump(&fs));
                        }
                        assert_eq!(re.closure, fresh.closure);
                        let f = fresh_session.as_ref().expect("a recheck answers only where a session is kept");
                        assert_eq!(format!("{:?}", s.highstate.high), format!("{:?}", f.highstate.high), "seed {seed}, tree:\n{}", dump(&fs));
                        assert_eq!(format!("{:?}", s.ordering), format!("{:?}", f.ordering), "seed {seed}");
                        assert_eq!((&s.targets, s.magic), (&f.targets, f.magic), "seed {seed}");
                        assert_eq!(
                            format!("{:?}", (&s.calls, s.applied, &s.custom)),
                            format!("{:?}", (&f.calls, f.applied, &f.custom)),
                            "seed {seed}, tree:\n{}",
                            dump(&fs)
                        );
                        continue;
                    }
                }
                session = fresh_session;
                if session.is_none() {
                    // A render error (no session is kept): undone, to keep exploring.
                    no_session += 1;
                    fs.files.insert(path, before);
                    session = ctx.check_root_kept(&fs, &ws, "base", "a.sls", root, 0).1;
                }
            }
        }
        // The fast path must be the common case for the edits that leave a tree Salt renders
        // (three in four of them, in these trees), and both of its ordering branches must be
        // taken often, or the test proves little.
        let kept = KEPT.each_ref().map(|k| k.load(std::sync::atomic::Ordering::Relaxed));
        eprintln!("{fast} of {total} edits rechecked ({no_session} without a session); ordering kept {} times, recomputed {}", kept[1], kept[0]);
        assert!(fast * 3 > (total - no_session) * 2, "only {fast} of {} rendered edits were rechecked", total - no_session);
        assert!(kept[0] > seeds as usize && kept[1] > seeds as usize / 2, "ordering kept {} times, recomputed {}", kept[1], kept[0]);
        // And the calls of the edited state alone were judged often, finding problems too.
        let local = LOCAL_CALLS.each_ref().map(|k| k.load(std::sync::atomic::Ordering::Relaxed));
        eprintln!("calls judged for the edited state alone {} times ({} with a problem in it)", local[0], local[1]);
        assert!(local[0] > seeds as usize / 2 && local[1] > seeds as usize / 10, "calls judged locally {} times, {} with a problem", local[0], local[1]);
    }
}
