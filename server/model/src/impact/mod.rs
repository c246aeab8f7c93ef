//! Impact analysis: what a change does to one minion's highstate, from the minion compiled at
//! both sides of the change (states added, removed and changed by Salt's tag, run-order moves,
//! managed file contents, pillar keys, compile errors), and minions with the same change put in
//! one group; the `check` findings of its highstate that the change introduces or resolves,
//! each grouped with every minion it is new (or gone) for. `report` prints it; the binary's
//! `diff` command compiles the sides.

pub mod report;

use std::path::Path;
use std::sync::Arc;

use indexmap::IndexMap;
use serde_json::{json, Value};

use crate::pipeline::Compiled;
use crate::state::chunk::LowChunk;
use crate::state::managed::ManagedFile;
use crate::workspace::roots::FileRoots;
use crate::workspace::vfs::Vfs;
use crate::workspace::Workspace;

/// One side of the change for one minion: what its highstate compiled to.
#[derive(Debug, Clone, Default)]
pub struct Side {
    /// The low chunks in `state.show_lowstate`'s order, each as Salt prints it, with its tag.
    pub chunks: Vec<(String, serde_json::Map<String, Value>)>,
    /// The states' tags in the order `state.apply` runs them (the chunk order where the run
    /// cannot be planned).
    pub run_order: Vec<String>,
    /// The errors `state.show_lowstate` (or the pillar it needs) stops on.
    pub errors: Vec<CompileError>,
    pub pillar: Value,
    pub managed: Vec<ManagedFile>,
    /// What `check` finds in this highstate ([`crate::check::highstate::findings`]).
    pub findings: Vec<Finding>,
}

/// A `check` finding of a minion's highstate, placed as people read it. Two sides have the
/// same finding when its [`Finding::key`] is the same: the line is left out, since lines move
/// between revisions.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Finding {
    pub code: String,
    pub severity: crate::diagnostic::Severity,
    pub message: String,
    /// The file as `rel` shows it (relative to the repository for `diff`).
    pub file: String,
    /// 1-based.
    pub line: usize,
    /// The state ID it is about, when there is one.
    pub id: Option<String>,
}

impl Finding {
    /// What a finding is matched by at the other side: code, file, state ID and message.
    pub fn key(&self) -> (&str, &str, Option<&str>, &str) {
        (&self.code, &self.file, self.id.as_deref(), &self.message)
    }

    /// The finding as the JSON contract has it.
    pub fn json(&self) -> Value {
        json!({"code": self.code, "severity": self.severity.as_str(), "message": self.message, "file": self.file, "line": self.line, "id": self.id})
    }

    /// The findings `check` reports for the highstate `compiled` (the same function, so the
    /// same findings, less those a `# salt-analyzer: disable=` directive silences): read
    /// through `fs`, placed by `rel`.
    pub fn all_of(
        compiled: &Compiled,
        fs: &dyn Vfs,
        ctx: &crate::check::CheckContext,
        ws: &crate::workspace::Workspace,
        rel: &dyn Fn(&Path) -> String,
    ) -> Vec<Finding> {
        let opts = &ws.opts;
        let line = |d: &crate::diagnostic::Diagnostic| match compiled.files.id(&d.file) {
            Some(id) => compiled.files.human(id, d.span.start).0,
            // A file the compile did not read (a top file the finding was placed in).
            None => fs.read(&d.file).map_or(1, |t| t.get(..d.span.start).unwrap_or_default().matches('\n').count() + 1),
        };
        // What a `# salt-analyzer: disable=` directive silences is no finding here either.
        let text = |p: &Path| compiled.files.shared_text(p).or_else(|| fs.read(p).ok().map(Into::into));
        let (found, _) = crate::check::suppress::apply(crate::check::highstate::findings(compiled, fs, ctx, opts), |(d, _)| d, text, &[]);
        found
            .into_iter()
            // `rules:` in salt-analyzer.yaml, as `check` applies them.
            .filter_map(|(mut d, id)| {
                d.severity = ws.rules.judge_at(d.code, &d.file, &ws.root, d.severity)?;
                Some((d, id))
            })
            .map(|(d, id)| Finding { code: d.code.as_str().to_string(), severity: d.severity, line: line(&d), message: d.message, file: rel(&d.file), id })
            .collect()
    }
}

/// An error, placed as people read it (the path as `rel` shows it, 1-based line).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct CompileError {
    pub code: String,
    pub message: String,
    pub file: Option<String>,
    pub line: Option<usize>,
}

impl Side {
    /// The side of a [`crate::pipeline::Scope::Impact`] (or `Highstate`) compile.
    pub fn of(compiled: &Compiled, rel: &dyn Fn(&Path) -> String) -> Side {
        let files = &compiled.files;
        let error = |e: &crate::diagnostic::SaltError| CompileError {
            code: e.code.as_str().to_string(),
            message: e.message.clone(),
            file: e.loc.as_ref().map(|l| rel(files.path(l.file))),
            line: e.loc.as_ref().map(|l| files.human(l.file, l.span.start).0),
        };
        let mut side = Side { managed: compiled.managed.clone().unwrap_or_default(), ..Side::default() };
        if let Ok(minion) = &compiled.minion {
            side.pillar = minion.pillar.clone();
        }
        let pillar_errors = compiled.pillar.as_ref().map(|p| p.salt_errors()).unwrap_or_default();
        let Some(low) = &compiled.low else { return side };
        let errors = if pillar_errors.is_empty() { low.errors() } else { pillar_errors };
        side.errors = errors.into_iter().map(error).collect();
        if !side.errors.is_empty() {
            return side;
        }
        side.chunks = low.chunks.iter().flatten().filter_map(|c| Some((c.tag(), c.d.to_json().as_object()?.clone()))).collect();
        side.run_order = match crate::state::run::plan(low) {
            Ok(plan) => plan.states.into_iter().map(|s| s.tag).collect(),
            Err(_) => side.chunks.iter().map(|(t, _)| t.clone()).collect(),
        };
        side
    }

    /// The side of a minion whose profile or configuration could not be read.
    pub fn failed(message: String) -> Side {
        Side { errors: vec![CompileError { code: "config".into(), message, file: None, line: None }], ..Side::default() }
    }
}

/// A state named in a diff.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct StateRef {
    pub tag: String,
    pub id: String,
    pub sls: String,
    pub state: String,
    pub fun: String,
    pub name: String,
}

impl StateRef {
    fn of(tag: &str, chunk: &serde_json::Map<String, Value>) -> StateRef {
        let s = |k: &str| chunk.get(k).and_then(Value::as_str).unwrap_or_default().to_string();
        StateRef { tag: tag.to_string(), id: s("__id__"), sls: s("__sls__"), state: s("state"), fun: s("fun"), name: s("name") }
    }
    fn json(&self) -> Value {
        json!({"tag": self.tag, "id": self.id, "sls": self.sls, "state": self.state, "fun": self.fun, "name": self.name})
    }
}

/// A state both sides have whose low chunk differs (in any key but `order`).
#[derive(Debug, Clone, PartialEq)]
pub struct Changed {
    pub state: StateRef,
    /// Each differing key: its value before and after (`None`: absent on that side).
    pub changes: IndexMap<String, (Option<Value>, Option<Value>)>,
}

/// A state whose `name` changed and nothing else of what Salt's tag is made of (ID, state,
/// function, SLS): the same state under another name, not one removed and one added.
#[derive(Debug, Clone, PartialEq)]
pub struct Renamed {
    /// The state as it is now.
    pub state: StateRef,
    /// The state as it was (its old tag and name).
    pub from: StateRef,
    /// Each other differing key (`name` and `order` aside), before and after.
    pub changes: IndexMap<String, (Option<Value>, Option<Value>)>,
}

/// A state both sides have that now runs in another place relative to the others.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Moved {
    pub state: StateRef,
    /// The state it ran after before, and the one it runs after now (`None`: first).
    pub after_before: Option<String>,
    pub after_now: Option<String>,
}

/// A managed file whose content changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileChange {
    pub tag: String,
    pub source: String,
    /// A unified diff of the content before and after.
    pub diff: String,
}

/// A pillar key (`a:b:c`, as `pillar.get` names it) whose value changed.
#[derive(Debug, Clone, PartialEq)]
pub struct PillarChange {
    pub key: String,
    pub before: Option<Value>,
    pub after: Option<Value>,
}

/// What a change does to one minion.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MinionDiff {
    pub added: Vec<StateRef>,
    pub removed: Vec<StateRef>,
    pub changed: Vec<Changed>,
    pub renamed: Vec<Renamed>,
    pub moved: Vec<Moved>,
    pub files: Vec<FileChange>,
    pub pillar: Vec<PillarChange>,
    pub errors_before: Vec<CompileError>,
    pub errors_after: Vec<CompileError>,
    /// `check` findings the after side has and the before side has not, and the other way
    /// round. Not part of [`MinionDiff::is_empty`] nor of [`MinionDiff::to_json`] (the
    /// highstate's change, which groups minions): each finding is grouped with its own
    /// minions ([`finding_groups`]).
    pub new_findings: Vec<Finding>,
    pub resolved_findings: Vec<Finding>,
}

impl MinionDiff {
    /// Whether the change leaves the minion's highstate as it was.
    pub fn is_empty(&self) -> bool {
        self.added.is_empty()
            && self.removed.is_empty()
            && self.changed.is_empty()
            && self.renamed.is_empty()
            && self.moved.is_empty()
            && self.files.is_empty()
            && self.pillar.is_empty()
            && self.errors_before == self.errors_after
    }

    /// Compiled before and fails after: the loudest line of a report.
    pub fn now_failing(&self) -> bool {
        self.errors_before.is_empty() && !self.errors_after.is_empty()
    }

    /// Fails at both sides (with the same errors or others): not the change's doing, but no
    /// reviewer should read it as unchanged, since nothing about its highstate is known.
    pub fn still_failing(&self) -> bool {
        !self.errors_before.is_empty() && !self.errors_after.is_empty()
    }

    /// The diff as the JSON contract has it (without the minion's name); pillar values only
    /// with `show_pillar`, since pillar holds secrets.
    pub fn to_json(&self, show_pillar: bool) -> serde_json::Map<String, Value> {
        let refs = |v: &[StateRef]| Value::Array(v.iter().map(StateRef::json).collect());
        // A state's reference and what else the entry says of it.
        let entry = |state: &StateRef, extra: Vec<(&str, Value)>| {
            let mut v = state.json();
            for (k, x) in extra {
                v[k] = x;
            }
            v
        };
        let changed: Vec<Value> = self.changed.iter().map(|c| entry(&c.state, vec![("changes", Value::Object(changes_json(&c.changes)))])).collect();
        let renamed: Vec<Value> = self
            .renamed
            .iter()
            .map(|r| {
                let changes = Value::Object(changes_json(&r.changes));
                entry(&r.state, vec![("from_tag", json!(r.from.tag)), ("from_name", json!(r.from.name)), ("changes", changes)])
            })
            .collect();
        let moved: Vec<Value> =
            self.moved.iter().map(|m| entry(&m.state, vec![("after_before", json!(m.after_before)), ("after_now", json!(m.after_now))])).collect();
        let files: Vec<Value> = self.files.iter().map(|f| json!({"tag": f.tag, "source": f.source, "diff": f.diff})).collect();
        let pillar: Vec<Value> = self
            .pillar
            .iter()
            .map(|p| {
                let change = match (&p.before, &p.after) {
                    (None, _) => "added",
                    (_, None) => "removed",
                    _ => "changed",
                };
                let mut v = json!({"key": p.key, "change": change});
                if show_pillar {
                    v["before"] = json!(p.before);
                    v["after"] = json!(p.after);
                }
                v
            })
            .collect();
        let errors =
            |e: &[CompileError]| Value::Array(e.iter().map(|e| json!({"code": e.code, "message": e.message, "file": e.file, "line": e.line})).collect());
        let mut m = serde_json::Map::new();
        m.insert("added".into(), refs(&self.added));
        m.insert("removed".into(), refs(&self.removed));
        m.insert("changed".into(), Value::Array(changed));
        m.insert("renamed".into(), Value::Array(renamed));
        m.insert("moved".into(), Value::Array(moved));
        m.insert("files".into(), Value::Array(files));
        m.insert("pillar".into(), Value::Array(pillar));
        m.insert("errors_before".into(), errors(&self.errors_before));
        m.insert("errors_after".into(), errors(&self.errors_after));
        m
    }
}

/// The findings of `a` whose key `b` has none of, each once.
fn findings_not_in(a: &[Finding], b: &[Finding]) -> Vec<Finding> {
    let other: std::collections::HashSet<_> = b.iter().map(Finding::key).collect();
    let mut seen = std::collections::HashSet::new();
    a.iter().filter(|f| !other.contains(&f.key()) && seen.insert(f.key())).cloned().collect()
}

/// Each differing key as the JSON has it: `{"KEY": {"before": ..., "after": ...}}`.
fn changes_json(changes: &IndexMap<String, (Option<Value>, Option<Value>)>) -> serde_json::Map<String, Value> {
    changes.iter().map(|(k, (b, a))| (k.clone(), json!({"before": b, "after": a}))).collect()
}

/// The keys whose values differ between two chunks, `skip` aside.
fn chunk_changes(o: &serde_json::Map<String, Value>, n: &serde_json::Map<String, Value>, skip: &[&str]) -> IndexMap<String, (Option<Value>, Option<Value>)> {
    let mut changes = IndexMap::new();
    for k in o.keys().chain(n.keys()) {
        if skip.contains(&k.as_str()) || changes.contains_key(k) {
            continue;
        }
        let (b, a) = (o.get(k), n.get(k));
        if b != a {
            changes.insert(k.clone(), (b.cloned(), a.cloned()));
        }
    }
    changes
}

/// The added and removed states that are one state renamed: the only one removed and the only
/// one added with the same ID, state, function and SLS (a `names:` list that changed in more
/// than one name stays removals and additions: which became which is not known).
fn renames(d: &mut MinionDiff, old: &IndexMap<&String, &serde_json::Map<String, Value>>, new: &IndexMap<&String, &serde_json::Map<String, Value>>) {
    let key = |s: &StateRef| (s.id.clone(), s.state.clone(), s.fun.clone(), s.sls.clone());
    let mut renamed = Vec::new();
    for a in &d.added {
        let k = key(a);
        let mut removed = d.removed.iter().filter(|r| key(r) == k);
        let (Some(r), None) = (removed.next(), removed.next()) else { continue };
        if d.added.iter().filter(|x| key(x) == k).count() != 1 {
            continue;
        }
        let (Some(o), Some(n)) = (old.get(&r.tag), new.get(&a.tag)) else { continue };
        renamed.push(Renamed { state: a.clone(), from: r.clone(), changes: chunk_changes(o, n, &["order", "name"]) });
    }
    d.added.retain(|a| !renamed.iter().any(|r| r.state.tag == a.tag));
    d.removed.retain(|s| !renamed.iter().any(|r| r.from.tag == s.tag));
    d.renamed = renamed;
}

/// What changed for a minion between `before` and `after`.
pub fn diff(before: &Side, after: &Side) -> MinionDiff {
    let mut d = MinionDiff { errors_before: before.errors.clone(), errors_after: after.errors.clone(), ..MinionDiff::default() };
    d.pillar = pillar_changes(&before.pillar, &after.pillar);
    // A side that does not compile stops where Salt stops: what it does not find, it may not
    // have reached. So a finding is new only against a before side that compiled, and
    // resolved only at an after side that compiles (a minion failing at both has neither:
    // its errors say it).
    if before.errors.is_empty() {
        d.new_findings = findings_not_in(&after.findings, &before.findings);
    }
    if after.errors.is_empty() {
        d.resolved_findings = findings_not_in(&before.findings, &after.findings);
    }
    // A side that did not compile has no states to compare: its errors say it all.
    if !before.errors.is_empty() || !after.errors.is_empty() {
        return d;
    }
    let old: IndexMap<&String, &serde_json::Map<String, Value>> = before.chunks.iter().map(|(t, c)| (t, c)).collect();
    let new: IndexMap<&String, &serde_json::Map<String, Value>> = after.chunks.iter().map(|(t, c)| (t, c)).collect();
    d.removed = old.iter().filter(|(t, _)| !new.contains_key(*t)).map(|(t, c)| StateRef::of(t, c)).collect();
    d.added = new.iter().filter(|(t, _)| !old.contains_key(*t)).map(|(t, c)| StateRef::of(t, c)).collect();
    renames(&mut d, &old, &new);
    for (t, n) in &new {
        let Some(o) = old.get(t) else { continue };
        let changes = chunk_changes(o, n, &["order"]);
        if !changes.is_empty() {
            d.changed.push(Changed { state: StateRef::of(t, n), changes });
        }
    }
    d.moved = moved(&before.run_order, &after.run_order, &new);
    d.files = file_changes(before, after, &d.renamed);
    d
}

/// The states both sides run whose place among the others changed: the fewest states that,
/// taken out, leave both run orders the same (the longest common subsequence keeps the rest).
fn moved(before: &[String], after: &[String], chunks: &IndexMap<&String, &serde_json::Map<String, Value>>) -> Vec<Moved> {
    let in_before: std::collections::HashSet<&String> = before.iter().collect();
    let in_after: std::collections::HashSet<&String> = after.iter().collect();
    let b: Vec<&String> = before.iter().filter(|t| in_after.contains(t)).collect();
    let a: Vec<&String> = after.iter().filter(|t| in_before.contains(t)).collect();
    if a == b {
        return Vec::new();
    }
    let ops = similar::capture_diff_slices(similar::Algorithm::Myers, &b, &a);
    let mut out = Vec::new();
    let prev = |list: &[&String], t: &String| list.iter().position(|x| *x == t).and_then(|i| i.checked_sub(1)).map(|i| list[i].to_string());
    for op in ops {
        if let similar::DiffOp::Insert { new_index, new_len, .. } | similar::DiffOp::Replace { new_index, new_len, .. } = op {
            for t in &a[new_index..new_index + new_len] {
                let Some(chunk) = chunks.get(*t) else { continue };
                out.push(Moved { state: StateRef::of(t, chunk), after_before: prev(&b, t), after_now: prev(&a, t) });
            }
        }
    }
    out
}

/// Managed files whose content differs, by state tag (a renamed state's by its old tag; a
/// state only the after side has shows its whole file).
fn file_changes(before: &Side, after: &Side, renamed: &[Renamed]) -> Vec<FileChange> {
    let text = |m: &ManagedFile| match &m.content {
        Ok(t) => t.clone(),
        Err(e) => format!("<{e}>\n"),
    };
    let mut out = Vec::new();
    for m in &after.managed {
        let old_tag = renamed.iter().find(|r| r.state.tag == m.tag).map_or(&m.tag, |r| &r.from.tag);
        let old = before.managed.iter().find(|o| &o.tag == old_tag);
        let (old_text, new_text) = (old.map(text).unwrap_or_default(), text(m));
        if old.is_some() && old_text == new_text {
            continue;
        }
        let old_source = old.map_or("/dev/null".to_string(), |o| o.source.clone());
        let diff = similar::TextDiff::from_lines(&old_text, &new_text).unified_diff().context_radius(3).header(&old_source, &m.source).to_string();
        if !diff.is_empty() {
            out.push(FileChange { tag: m.tag.clone(), source: m.source.clone(), diff });
        }
    }
    out
}

/// Every leaf of `v` by its `a:b:c` key (a list is one leaf).
fn leaves(v: &Value, prefix: &str, out: &mut IndexMap<String, Value>) {
    match v {
        Value::Object(m) if !m.is_empty() => {
            for (k, x) in m {
                let key = if prefix.is_empty() { k.clone() } else { format!("{prefix}:{k}") };
                leaves(x, &key, out);
            }
        }
        _ if prefix.is_empty() => {}
        other => {
            out.insert(prefix.to_string(), other.clone());
        }
    }
}

fn pillar_changes(before: &Value, after: &Value) -> Vec<PillarChange> {
    let (mut b, mut a) = (IndexMap::new(), IndexMap::new());
    leaves(before, "", &mut b);
    leaves(after, "", &mut a);
    let mut out: Vec<PillarChange> = Vec::new();
    for (k, v) in &b {
        match a.get(k) {
            Some(w) if w == v => {}
            w => out.push(PillarChange { key: k.clone(), before: Some(v.clone()), after: w.cloned() }),
        }
    }
    for (k, w) in &a {
        if !b.contains_key(k) {
            out.push(PillarChange { key: k.clone(), before: None, after: Some(w.clone()) });
        }
    }
    out
}

/// One side of a change as the pipeline reads it: a file system (the repository at a
/// revision, the work tree, the editor's buffers), the workspace loaded from it and its roots.
pub struct Tree {
    pub fs: std::sync::Arc<dyn crate::workspace::vfs::Vfs>,
    pub ws: crate::workspace::Workspace,
    pub roots: std::sync::Arc<crate::workspace::roots::FileRoots>,
    /// This side's compiles shared between minions that read the same of their data
    /// ([`crate::pipeline::Memo::sharing`]).
    pub memo: crate::pipeline::Memo,
    /// Whether this side reads as the other side read, by the fingerprint of what was read
    /// (minions that shared a compile ask it once).
    same_reads: std::sync::Mutex<std::collections::HashMap<u64, bool>>,
    /// The fingerprint of the workspace's options and profiles (made once: a fleet's profiles
    /// are many).
    ws_fingerprint: std::sync::OnceLock<u64>,
    /// What `check` places this side's findings with (made once, over `roots`).
    check: std::sync::OnceLock<crate::check::CheckContext>,
}

impl Tree {
    pub fn new(fs: Arc<dyn Vfs>, ws: Workspace, roots: Arc<FileRoots>) -> Tree {
        Tree {
            fs,
            ws,
            roots,
            memo: crate::pipeline::Memo::sharing(),
            same_reads: Default::default(),
            ws_fingerprint: Default::default(),
            check: Default::default(),
        }
    }

    /// The side of one minion's compile, with what `check` finds in its highstate.
    fn side(&self, compiled: &Compiled, rel: &dyn Fn(&Path) -> String) -> Side {
        let mut side = match &compiled.minion {
            Ok(_) => Side::of(compiled, rel),
            Err(e) => return Side::failed(e.to_string()),
        };
        let ctx = self.check.get_or_init(|| crate::check::CheckContext::over(self.roots.clone(), &self.ws));
        side.findings = Finding::all_of(compiled, &*self.fs, ctx, &self.ws, rel);
        side
    }

    /// Whether everything `reads` read answers the same on this side.
    fn reads_as(&self, reads: &crate::workspace::reads::Reads) -> bool {
        let key = crate::workspace::reads::hash(reads);
        if let Some(known) = self.same_reads.lock().ok().and_then(|m| m.get(&key).copied()) {
            return known;
        }
        let same = reads.unchanged(&*self.fs, &self.roots);
        if let Ok(mut m) = self.same_reads.lock() {
            m.insert(key, same);
        }
        same
    }
}

/// Whether two sides' workspaces are the same (options, profiles): then a minion whose
/// recorded reads are unchanged has no diff.
fn same_workspace(a: &Tree, b: &Tree) -> bool {
    let fingerprint =
        |t: &Tree| *t.ws_fingerprint.get_or_init(|| crate::workspace::reads::hash(&format!("{:?}{:?}{:?}", t.ws.opts, t.ws.profiles, t.ws.default_minion)));
    fingerprint(a) == fingerprint(b)
}

/// The name a minion goes by in a report.
fn label(who: &crate::pipeline::Who, compiled: &Compiled) -> String {
    match (who, compiled.minion.as_ref()) {
        (crate::pipeline::Who::Profile(id), _) => id.clone(),
        (_, Ok(m)) => m.id.clone(),
        _ => "(configuration's minion)".to_string(),
    }
}

/// One minion's diff. The after side is compiled only when something the before side's
/// compile read (a file, a file-root answer, the profile, the pillar files) reads otherwise
/// there, or the workspace itself changed: the recorded reads are all a compile depends on.
pub fn minion(who: &crate::pipeline::Who, before: &Tree, after: &Tree, rel: &dyn Fn(&Path) -> String) -> (String, MinionDiff) {
    let (name, d, _) = minion_counted(who, before, after, rel);
    (name, d)
}

/// [`minion`], and whether the after side was compiled (false: the recorded reads said the
/// minion is unchanged).
pub fn minion_counted(who: &crate::pipeline::Who, before: &Tree, after: &Tree, rel: &dyn Fn(&Path) -> String) -> (String, MinionDiff, bool) {
    use crate::pipeline::{compile_with, Request, Scope};
    let req = Request { minion: who.clone(), saltenv: None, scope: Scope::Impact };
    let old = compile_with(before.fs.clone(), &before.ws, &before.roots, &req, &before.memo);
    let name = label(who, &old);
    if old.minion.is_ok() && same_workspace(before, after) && after.reads_as(&old.reads) {
        // Everything the compile (and so its findings) read is the same: no findings change.
        let errors = Side::of(&old, rel).errors;
        return (name, MinionDiff { errors_before: errors.clone(), errors_after: errors, ..MinionDiff::default() }, false);
    }
    let old_side = before.side(&old, rel);
    drop(old);
    let new = compile_with(after.fs.clone(), &after.ws, &after.roots, &req, &after.memo);
    (name, diff(&old_side, &after.side(&new, rel)), true)
}

/// Every minion's diff, in `who`'s order, compiled on every core; each compile is dropped as
/// soon as it is compared, so memory holds diffs, not compiles.
pub fn compare(before: &Tree, after: &Tree, who: &[crate::pipeline::Who], rel: &(dyn Fn(&Path) -> String + Sync)) -> Vec<(String, MinionDiff)> {
    compare_counted(before, after, who, rel).0
}

/// [`compare`], and how many minions' after sides were compiled (the others were skipped on
/// their recorded reads).
pub fn compare_counted(
    before: &Tree,
    after: &Tree,
    who: &[crate::pipeline::Who],
    rel: &(dyn Fn(&Path) -> String + Sync),
) -> (Vec<(String, MinionDiff)>, usize) {
    let mut out = Vec::with_capacity(who.len());
    let mut compiled = 0;
    // Each compile is reduced to its diff on the thread that made it, and dropped there.
    crate::pipeline::each_in_parallel(
        who,
        crate::pipeline::parallelism(),
        |w| minion_counted(w, before, after, rel),
        |_, (name, d, again)| {
            compiled += usize::from(again);
            out.push((name, d));
        },
    );
    (out, compiled)
}

/// Minions with the same diff, in the order their first minion came.
#[derive(Debug, Clone)]
pub struct Group {
    pub minions: Vec<String>,
    pub diff: MinionDiff,
}

/// The changed minions, and those that fail at both sides, grouped by identical diffs
/// (unchanged ones are in no group).
pub fn group(diffs: &[(String, MinionDiff)]) -> Vec<Group> {
    let mut groups: Vec<Group> = Vec::new();
    let mut by_key: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    for (minion, d) in diffs {
        if d.is_empty() && !d.still_failing() {
            continue;
        }
        let key = Value::Object(d.to_json(true)).to_string();
        match by_key.get(&key) {
            Some(&i) => groups[i].minions.push(minion.clone()),
            None => {
                by_key.insert(key, groups.len());
                groups.push(Group { minions: vec![minion.clone()], diff: d.clone() });
            }
        }
    }
    // The loudest first: groups that now fail, then the changed ones, the larger first, and
    // last those that failed before the change too (not its doing).
    groups.sort_by_key(|g| (!g.diff.now_failing(), g.diff.still_failing(), std::cmp::Reverse(g.minions.len())));
    groups
}

/// A finding a change introduces or resolves, with every minion it does so for.
#[derive(Debug, Clone, PartialEq)]
pub struct FindingGroup {
    pub finding: Finding,
    pub minions: Vec<String>,
}

impl FindingGroup {
    /// The group as the JSON contract has it: the finding's fields and `minions`.
    pub fn json(&self) -> Value {
        let mut v = self.finding.json();
        v["minions"] = json!(self.minions);
        v
    }
}

/// The findings a change introduces and those it resolves, each once with its minions.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FindingChanges {
    pub new: Vec<FindingGroup>,
    pub resolved: Vec<FindingGroup>,
}

impl FindingChanges {
    pub fn is_empty(&self) -> bool {
        self.new.is_empty() && self.resolved.is_empty()
    }
}

/// Every minion's new and resolved findings, each finding once (matched by [`Finding::key`];
/// its line is the first minion's) with the minions it is new or resolved for; errors first,
/// then by file and line.
pub fn finding_groups(diffs: &[(String, MinionDiff)]) -> FindingChanges {
    let gather = |pick: &dyn Fn(&MinionDiff) -> &[Finding]| {
        let mut groups: Vec<FindingGroup> = Vec::new();
        let mut by_key: std::collections::HashMap<(String, String, Option<String>, String), usize> = std::collections::HashMap::new();
        for (minion, d) in diffs {
            for f in pick(d) {
                let (code, file, id, message) = f.key();
                let key = (code.to_string(), file.to_string(), id.map(str::to_string), message.to_string());
                match by_key.get(&key) {
                    Some(&i) if !groups[i].minions.contains(minion) => groups[i].minions.push(minion.clone()),
                    Some(_) => {}
                    None => {
                        by_key.insert(key, groups.len());
                        groups.push(FindingGroup { finding: f.clone(), minions: vec![minion.clone()] });
                    }
                }
            }
        }
        groups.sort_by(|a, b| {
            let k = |g: &FindingGroup| (g.finding.severity, g.finding.file.clone(), g.finding.line, g.finding.code.clone());
            k(a).cmp(&k(b))
        });
        groups
    };
    FindingChanges { new: gather(&|d| &d.new_findings), resolved: gather(&|d| &d.resolved_findings) }
}

#[cfg(test)]
mod tests {
    use std::path::Path;
    use std::sync::Arc;

    use expect_test::{expect, Expect};

    use super::*;
    use crate::pipeline::{compile, Request, Scope};
    use crate::workspace::roots::FileRoots;
    use crate::workspace::vfs::MemFs;
    use crate::workspace::Workspace;

    const BEFORE: &str = r"
#- salt-analyzer.yaml
file_roots: {base: [base]}
pillar_roots: {base: [pillar]}
minions:
  web01: {grains: {role: web, os_family: Debian}}
  web02: {grains: {role: web, os_family: Debian}}
  db01: {grains: {role: db, os_family: RedHat}}
#- pillar/top.sls
base: {'*': [common]}
#- pillar/common.sls
nginx: {port: 80, secret: hunter2}
#- base/top.sls
base:
  'G@role:web': [web]
  'G@role:db': [db]
#- base/web.sls
nginx: {pkg.installed: [{version: '1.0'}]}
nginx_conf:
  file.managed:
    - name: /etc/nginx/nginx.conf
    - source: salt://files/nginx.conf
    - template: jinja
    - require: [{pkg: nginx}]
old: {test.nop: []}
#- base/files/nginx.conf
listen {{ pillar.nginx.port }};
os {{ grains.os_family }}
#- base/db.sls
postgres: {pkg.installed: []}
";

    /// Both sides compiled for each minion and diffed; the groups as the JSON contract has them
    /// (pillar values shown).
    fn check(before: &str, after: &str, expect: Expect) {
        let (a, b) = (MemFs::from_fixture(before), MemFs::from_fixture(after));
        let mut diffs = Vec::new();
        for m in ["web01", "web02", "db01"] {
            let side = |fs: &MemFs| {
                let ws = Workspace::load(fs, Path::new("/ws"), None).expect("workspace");
                let roots = Arc::new(FileRoots::scan(fs, &ws.opts.file_roots));
                let c = compile(Arc::new(fs.clone()), &ws, &roots, &Request::new(Some(m), Scope::Impact));
                Side::of(&c, &|p: &Path| p.strip_prefix("/ws").unwrap_or(p).display().to_string())
            };
            diffs.push((m.to_string(), diff(&side(&a), &side(&b))));
        }
        let groups: Vec<Value> = group(&diffs)
            .iter()
            .map(|g| {
                let mut m = serde_json::Map::new();
                m.insert("minions".into(), json!(g.minions));
                m.extend(g.diff.to_json(true).into_iter().filter(|(_, v)| v.as_array().is_none_or(|a| !a.is_empty())));
                Value::Object(m)
            })
            .collect();
        expect.assert_eq(&serde_json::to_string_pretty(&groups).unwrap());
    }

    /// Every minion compared as `diff` compares them ([`compare`], findings included); the
    /// findings the change brings (`+`) and resolves (`-`), each with its minions.
    fn findings(before: &str, after: &str, expect: Expect) {
        let tree = |fixture: &str| {
            let fs = MemFs::from_fixture(fixture);
            let ws = Workspace::load(&fs, Path::new("/ws"), None).expect("workspace");
            let roots = Arc::new(FileRoots::scan(&fs, &ws.opts.served_roots()));
            Tree::new(Arc::new(fs), ws, roots)
        };
        let who = ["web01", "web02", "db01"].map(|m| crate::pipeline::Who::Profile(m.to_string()));
        let diffs = compare(&tree(before), &tree(after), &who, &|p: &Path| p.strip_prefix("/ws").unwrap_or(p).display().to_string());
        let f = finding_groups(&diffs);
        let mut out = String::new();
        for (mark, groups) in [("+", &f.new), ("-", &f.resolved)] {
            for g in groups {
                let x = &g.finding;
                let first = x.message.lines().next().unwrap_or_default();
                out.push_str(&format!("{mark} {}[{}] {}:{} {:?} on {}: {first}\n", x.severity.as_str(), x.code, x.file, x.line, x.id, g.minions.join(", ")));
            }
        }
        expect.assert_eq(&out);
    }

    #[test]
    fn findings_are_matched_by_code_file_state_and_message_not_by_line() {
        let before = BEFORE.replace("old: {test.nop: []}", "old: {nosuchmod.run: []}");
        // The same finding three lines further down: neither new nor resolved.
        let moved = before.replace("nginx: {pkg.installed", "\n\n\nnginx: {pkg.installed");
        findings(&before, &moved, expect![""]);
        // Gone from the web minions' file, and one in the database's: each said once, with
        // its minions.
        let after = BEFORE.replace("postgres: {pkg.installed: []}", "postgres: {pkg.installed: []}\nbackup: {othermod.run: []}");
        findings(
            &before,
            &after,
            expect![[r#"
                + warning[unknown-function] base/db.sls:2 Some("backup") on db01: State 'othermod.run' was not found in SLS 'db'
                - warning[unknown-function] base/web.sls:8 Some("old") on web01, web02: State 'nosuchmod.run' was not found in SLS 'web'
            "#]],
        );
    }

    #[test]
    fn the_same_tree_has_no_diff() {
        check(BEFORE, BEFORE, expect!["[]"]);
    }

    #[test]
    fn arguments_states_and_file_contents_by_tag_grouped_by_minion() {
        let after = BEFORE
            .replace("version: '1.0'", "version: '1.2'")
            .replace("old: {test.nop: []}", "new: {test.nop: []}")
            .replace("os {{ grains.os_family }}", "os {{ grains.os_family }}\nworkers 4;");
        check(
            BEFORE,
            &after,
            expect![[r#"
                [
                  {
                    "minions": [
                      "web01",
                      "web02"
                    ],
                    "added": [
                      {
                        "tag": "test_|-new_|-new_|-nop",
                        "id": "new",
                        "sls": "web",
                        "state": "test",
                        "fun": "nop",
                        "name": "new"
                      }
                    ],
                    "removed": [
                      {
                        "tag": "test_|-old_|-old_|-nop",
                        "id": "old",
                        "sls": "web",
                        "state": "test",
                        "fun": "nop",
                        "name": "old"
                      }
                    ],
                    "changed": [
                      {
                        "tag": "pkg_|-nginx_|-nginx_|-installed",
                        "id": "nginx",
                        "sls": "web",
                        "state": "pkg",
                        "fun": "installed",
                        "name": "nginx",
                        "changes": {
                          "version": {
                            "before": "1.0",
                            "after": "1.2"
                          }
                        }
                      }
                    ],
                    "files": [
                      {
                        "tag": "file_|-nginx_conf_|-/etc/nginx/nginx.conf_|-managed",
                        "source": "salt://files/nginx.conf",
                        "diff": "--- salt://files/nginx.conf\n+++ salt://files/nginx.conf\n@@ -1,2 +1,3 @@\n listen 80;\n os Debian\n+workers 4;\n"
                      }
                    ]
                  }
                ]"#]],
        );
    }

    #[test]
    fn pillar_a_template_reads_changes_the_file_and_the_key_and_a_break_is_loud() {
        let after = BEFORE.replace("port: 80", "port: 8080").replace("postgres: {pkg.installed: []}", "postgres: {pkg.installed: []\n");
        check(
            BEFORE,
            &after,
            expect![[r#"
                [
                  {
                    "minions": [
                      "db01"
                    ],
                    "pillar": [
                      {
                        "key": "nginx:port",
                        "change": "changed",
                        "before": 80,
                        "after": 8080
                      }
                    ],
                    "errors_after": [
                      {
                        "code": "yaml-syntax",
                        "message": "Rendering SLS 'base:db' failed: while parsing a flow mapping, did not find expected ',' or '}'; line 3",
                        "file": "base/db.sls",
                        "line": 3
                      }
                    ]
                  },
                  {
                    "minions": [
                      "web01",
                      "web02"
                    ],
                    "files": [
                      {
                        "tag": "file_|-nginx_conf_|-/etc/nginx/nginx.conf_|-managed",
                        "source": "salt://files/nginx.conf",
                        "diff": "--- salt://files/nginx.conf\n+++ salt://files/nginx.conf\n@@ -1,2 +1,2 @@\n-listen 80;\n+listen 8080;\n os Debian\n"
                      }
                    ],
                    "pillar": [
                      {
                        "key": "nginx:port",
                        "change": "changed",
                        "before": 80,
                        "after": 8080
                      }
                    ]
                  }
                ]"#]],
        );
    }

    #[test]
    fn a_changed_name_is_a_rename_and_its_file_compares_with_the_old_one() {
        let after = BEFORE.replace("/etc/nginx/nginx.conf", "/etc/nginx/main.conf").replace("{version: '1.0'}", "{version: '1.0'}, {name: nginx-full}");
        check(
            BEFORE,
            &after,
            expect![[r#"
            [
              {
                "minions": [
                  "web01",
                  "web02"
                ],
                "renamed": [
                  {
                    "tag": "pkg_|-nginx_|-nginx-full_|-installed",
                    "id": "nginx",
                    "sls": "web",
                    "state": "pkg",
                    "fun": "installed",
                    "name": "nginx-full",
                    "from_tag": "pkg_|-nginx_|-nginx_|-installed",
                    "from_name": "nginx",
                    "changes": {}
                  },
                  {
                    "tag": "file_|-nginx_conf_|-/etc/nginx/main.conf_|-managed",
                    "id": "nginx_conf",
                    "sls": "web",
                    "state": "file",
                    "fun": "managed",
                    "name": "/etc/nginx/main.conf",
                    "from_tag": "file_|-nginx_conf_|-/etc/nginx/nginx.conf_|-managed",
                    "from_name": "/etc/nginx/nginx.conf",
                    "changes": {}
                  }
                ]
              }
            ]"#]],
        );
    }

    #[test]
    fn a_new_requisite_moves_a_state_in_the_run_order() {
        let before = BEFORE.replace("old: {test.nop: []}", "a: {test.nop: []}\nb: {test.nop: []}");
        let after = BEFORE.replace("old: {test.nop: []}", "a: {test.nop: [{require: [{test: b}]}]}\nb: {test.nop: []}");
        check(
            before.as_str(),
            &after,
            expect![[r#"
            [
              {
                "minions": [
                  "web01",
                  "web02"
                ],
                "changed": [
                  {
                    "tag": "test_|-a_|-a_|-nop",
                    "id": "a",
                    "sls": "web",
                    "state": "test",
                    "fun": "nop",
                    "name": "a",
                    "changes": {
                      "require": {
                        "before": null,
                        "after": [
                          {
                            "test": "b"
                          }
                        ]
                      }
                    }
                  }
                ],
                "moved": [
                  {
                    "tag": "test_|-b_|-b_|-nop",
                    "id": "b",
                    "sls": "web",
                    "state": "test",
                    "fun": "nop",
                    "name": "b",
                    "after_before": "test_|-a_|-a_|-nop",
                    "after_now": "file_|-nginx_conf_|-/etc/nginx/nginx.conf_|-managed"
                  }
                ]
              }
            ]"#]],
        );
    }
}
