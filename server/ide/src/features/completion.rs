//! Completion: what may be typed at the cursor, by context. In SLS files: state modules and
//! functions (`pkg.` → `installed`, or `- installed` under `pkg:`), a function's arguments
//! (required first, defaults shown, those given left out) and the requisite keywords,
//! requisite targets (`- pkg: ` → the `pkg` states of the include closures), include items
//! (SLS names and the relative forms that reach them), `salt://` paths. In top files: SLS
//! names, `match:` values, environments. Anywhere: grain names after `G@` and in
//! `grains.get('`, pillar keys after `I@` and in `pillar.get('` (the selected minion's), and
//! inside a Jinja expression the keys of the value before the dot (`mapdata.` → its keys for
//! the selected minion, rendered through the pipeline's probe).
//!
//! The structure comes from indentation, not a parse: the file is mid-edit and rarely valid
//! YAML while a completion is asked. Jinja is masked first (same offsets).

use std::collections::BTreeSet;
use std::ops::Range;
use std::path::Path;
use std::sync::Arc;

use model::pipeline::Scope;
use model::requisites::{STATE_REQUISITE_IN_KEYWORDS, STATE_REQUISITE_KEYWORDS};
use model::state::catalog::Function;

use crate::cursor::{module_body, Context, Parent};
use crate::resolve::file_env;
use crate::snapshot::Snapshot;
use crate::types::*;

/// What kind of thing an item completes (the edge maps it to the protocol's kinds).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CompletionKind {
    Module,
    Function,
    Argument,
    Keyword,
    Reference,
    Sls,
    File,
    Key,
    Environment,
}

/// One completion: `insert` replaces the bytes `edit` of the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompletionItem {
    pub label: String,
    pub kind: CompletionKind,
    pub detail: Option<String>,
    pub insert: String,
    pub edit: Range<usize>,
    /// Orders items the client shows (required arguments first).
    pub sort: String,
}

/// At most this many items: a client filters the rest by what is typed next.
const LIMIT: usize = 2000;

/// Keywords of the state system offered with a function's arguments (requisites first).
const RUNTIME: &[&str] = &["onlyif", "unless", "creates", "order", "failhard", "retry", "parallel", "runas", "reload_modules", "check_cmd", "fire_event"];

pub(crate) fn completions(snap: &Snapshot, path: &Path, offset: usize) -> Cancellable<Vec<CompletionItem>> {
    if snap.too_large(path) {
        return Ok(Vec::new());
    }
    let Some(text) = snap.text(path) else { return Ok(Vec::new()) };
    if offset > text.len() || !text.is_char_boundary(offset) {
        return Ok(Vec::new());
    }
    let line_start = syntax::line_index::line_start(&text, offset);
    let prefix = &text[line_start..offset];
    let mut out = if let Some(items) = data_keys(snap, path, &text, offset, prefix) {
        items
    } else if let Some(items) = salt_url(snap, path, offset, prefix) {
        items
    } else {
        let masked = syntax::jinja::mask(&text).text;
        let ctx = Context::at(&masked, offset);
        if snap.world().is_top(path) {
            top_items(snap, &ctx)
        } else {
            sls_items(snap, path, &masked, &ctx)?
        }
    };
    out.truncate(LIMIT);
    Ok(out)
}

fn item(label: impl Into<String>, kind: CompletionKind, detail: Option<String>, edit: Range<usize>, sort: String) -> CompletionItem {
    let label = label.into();
    CompletionItem { insert: label.clone(), label, kind, detail, edit, sort }
}

fn sls_items(snap: &Snapshot, path: &Path, masked: &str, ctx: &Context) -> Cancellable<Vec<CompletionItem>> {
    let p = &ctx.parents;
    let depth = p.len();
    if depth >= 1 && p[0].key == "include" && p[0].indent == 0 && ctx.item {
        return Ok(include_items(snap, path, ctx));
    }
    if depth == 1 && !ctx.item && !p[0].item {
        return Ok(function_items(snap, ctx));
    }
    if depth == 2 && ctx.item && p[0].key != "extend" {
        return Ok(argument_items(snap, masked, ctx, &p[1]));
    }
    if depth == 3 && ctx.item && p[2].item && is_requisite(&p[2].key) {
        return requisite_items(snap, path, ctx);
    }
    Ok(Vec::new())
}

fn is_requisite(key: &str) -> bool {
    STATE_REQUISITE_KEYWORDS.contains(&key) || STATE_REQUISITE_IN_KEYWORDS.contains(&key) || model::requisites::REQUISITE_IN.contains(&key)
}

/// Under an ID: `pkg` → the modules, `pkg.` → its functions.
fn function_items(snap: &Snapshot, ctx: &Context) -> Vec<CompletionItem> {
    let catalog = crate::explain::state_docs::catalog(snap);
    let (word, start) = ctx.word(&[]);
    match word.rsplit_once('.') {
        Some((module, _)) => {
            let Some(m) = catalog.module(module) else { return Vec::new() };
            let edit = start + module.len() + 1..start + word.len();
            m.functions.iter().map(|f| item(&f.name, CompletionKind::Function, Some(detail(&m.name, f)), edit.clone(), f.name.clone())).collect()
        }
        None => {
            let edit = start..start + word.len();
            catalog
                .modules()
                .map(|m| {
                    let what = if m.custom.is_some() { "custom state module" } else { "state module" };
                    item(&m.name, CompletionKind::Module, Some(format!("{what}, {} functions", m.functions.len())), edit.clone(), m.name.clone())
                })
                .collect()
        }
    }
}

fn detail(module: &str, f: &Function) -> String {
    let mut d = f.signature(module);
    if f.deprecated.is_some() {
        d.push_str(" (deprecated)");
    }
    d
}

/// A list item under a state module key: the module's functions when none is chosen yet,
/// else the function's arguments not given yet (required first), then the requisites and
/// the state system's other keywords.
fn argument_items(snap: &Snapshot, masked: &str, ctx: &Context, module_line: &Parent) -> Vec<CompletionItem> {
    let catalog = crate::explain::state_docs::catalog(snap);
    let (word, start) = ctx.word(&[]);
    if word.contains(':') {
        return Vec::new();
    }
    let edit = start..start + word.len();
    let (module, function, given) = module_body(masked, module_line, word);
    let Some(m) = catalog.module(&module) else { return Vec::new() };
    let Some(f) = function.as_deref().and_then(|f| m.function(f)) else {
        return m.functions.iter().map(|f| item(&f.name, CompletionKind::Function, Some(detail(&m.name, f)), edit.clone(), format!("0{}", f.name))).collect();
    };
    let mut out = Vec::new();
    for a in f.args.iter().filter(|a| a.name != "name" || !given.contains("name")) {
        if given.contains(&a.name) {
            continue;
        }
        let (sort, detail) = match &a.default {
            // Salt fills `name` from the state ID.
            None if a.name == "name" => (format!("1{}", a.name), "= the state ID".to_string()),
            None => (format!("0{}", a.name), "required".to_string()),
            Some(d) => (format!("1{}", a.name), format!("= {d}")),
        };
        out.push(CompletionItem { insert: format!("{}: ", a.name), ..item(&a.name, CompletionKind::Argument, Some(detail), edit.clone(), sort) });
    }
    for k in STATE_REQUISITE_KEYWORDS.iter().chain(STATE_REQUISITE_IN_KEYWORDS).chain(RUNTIME) {
        if !given.contains(*k) {
            out.push(CompletionItem {
                insert: format!("{k}:"),
                ..item(*k, CompletionKind::Keyword, Some("state keyword".into()), edit.clone(), format!("2{k}"))
            });
        }
    }
    out
}

/// An item under a requisite: `mod: ` → that module's states (by ID and by name) in the
/// file's include closures; before the colon, `mod: id` pairs.
fn requisite_items(snap: &Snapshot, path: &Path, ctx: &Context) -> Cancellable<Vec<CompletionItem>> {
    // Which files share an include closure with this one, as the index last knew it (a
    // keystroke rarely changes that; waiting for its recheck would); their summaries, this
    // file's included, are read as they are now.
    let decls = match snap.with_index_as_is(|idx| idx.knows(path).then(|| idx.neighbourhood(path))) {
        Some(files) => files.into_iter().filter_map(|f| snap.summary(&f).map(|s| (f, s))).collect(),
        // Not indexed yet: wait for it.
        None => crate::resolve::neighbour_decls(snap, path)?,
    };
    let mut out = Vec::new();
    let mut seen = BTreeSet::new();
    match ctx.typed.split_once(':') {
        Some((module, rest)) => {
            let module = module.trim();
            let value_start = ctx.typed_start + module.len() + 1 + (rest.len() - rest.trim_start().len());
            let edit = value_start..ctx.typed_start + ctx.typed.len();
            if module == "sls" {
                for name in snap.world().ctx.roots.list_states_shared(&file_env(snap, path)).iter() {
                    out.push(item(name.clone(), CompletionKind::Sls, Some("SLS".into()), edit.clone(), name.clone()));
                }
                return Ok(out);
            }
            for (file, summary) in &decls {
                let Some(s) = summary.sls() else { continue };
                for d in &s.ids {
                    if module != "id" && !d.functions.iter().any(|f| f.module == module) {
                        continue;
                    }
                    let rel = snap.world().rel(file);
                    for (label, what) in std::iter::once((&d.id, "ID")).chain(d.names.iter().map(|n| (n, "name"))) {
                        if seen.insert(label.clone()) {
                            out.push(item(label.clone(), CompletionKind::Reference, Some(format!("{what} in {rel}")), edit.clone(), label.clone()));
                        }
                    }
                }
            }
        }
        None => {
            let edit = ctx.typed_start..ctx.typed_start + ctx.typed.len();
            for (file, summary) in &decls {
                let Some(s) = summary.sls() else { continue };
                for d in &s.ids {
                    for f in &d.functions {
                        let label = format!("{}: {}", f.module, d.id);
                        if seen.insert(label.clone()) {
                            out.push(item(label.clone(), CompletionKind::Reference, Some(snap.world().rel(file)), edit.clone(), label));
                        }
                    }
                }
            }
        }
    }
    Ok(out)
}

/// An `include:` item: the environment's SLS names, and with a leading `.` the relative
/// forms that reach them from this file.
fn include_items(snap: &Snapshot, path: &Path, ctx: &Context) -> Vec<CompletionItem> {
    let world = snap.world();
    let env = file_env(snap, path);
    let names = world.ctx.roots.list_states_shared(&env);
    let edit = ctx.typed_start..ctx.typed_start + ctx.typed.len();
    let mut out = Vec::new();
    if ctx.typed.starts_with('.') {
        let Some((_, sls, is_init)) = world.sls_of(path) else { return out };
        // `.x` is relative to the file's package, each further dot one package up.
        for levels in 1.. {
            let Some(base) = model::state::highstate::relative_base(&sls, is_init, levels) else { break };
            let base = base.join(".");
            let (ups, dots) = (levels - 1, ".".repeat(levels));
            for n in names.iter() {
                let rest = if base.is_empty() { Some(n.as_str()) } else { n.strip_prefix(&format!("{base}.")) };
                if let Some(rest) = rest.filter(|r| !r.is_empty()) {
                    if *n != sls {
                        let label = format!("{dots}{rest}");
                        out.push(item(label.clone(), CompletionKind::Sls, Some(n.clone()), edit.clone(), format!("{ups}{label}")));
                    }
                }
            }
        }
        return out;
    }
    names.iter().map(|n| item(n.clone(), CompletionKind::Sls, Some(format!("SLS in {env}")), edit.clone(), n.clone())).collect()
}

/// In a top file: environments, SLS names under a target, `match:` values.
fn top_items(snap: &Snapshot, ctx: &Context) -> Vec<CompletionItem> {
    let world = snap.world();
    let p = &ctx.parents;
    if p.is_empty() && !ctx.item {
        let (word, start) = ctx.word(&[]);
        return world
            .env_names()
            .into_iter()
            .map(|e| item(e.clone(), CompletionKind::Environment, Some("environment".into()), start..start + word.len(), e))
            .collect();
    }
    if p.len() == 2 && ctx.item {
        if let Some(rest) = ctx.typed.strip_prefix("match:") {
            let start = ctx.typed_start + "match:".len() + (rest.len() - rest.trim_start().len());
            let edit = start..ctx.typed_start + ctx.typed.len();
            return model::targeting::matchers::MATCHERS
                .iter()
                .map(|m| item(*m, CompletionKind::Keyword, Some("matcher".into()), edit.clone(), m.to_string()))
                .collect();
        }
        let env = &p[0].key;
        let edit = ctx.typed_start..ctx.typed_start + ctx.typed.len();
        // The top file itself is listed by Salt but is no state to assign.
        let mut out: Vec<CompletionItem> = world
            .ctx
            .roots
            .list_states_shared(env)
            .iter()
            .filter(|n| *n != "top")
            .map(|n| item(n.clone(), CompletionKind::Sls, Some(format!("SLS in {env}")), edit.clone(), format!("1{n}")))
            .collect();
        out.push(CompletionItem {
            insert: "match: ".into(),
            ..item("match", CompletionKind::Keyword, Some("how the target is matched".into()), edit, "0match".into())
        });
        return out;
    }
    Vec::new()
}

/// `salt://` paths: the files of the environment's roots.
fn salt_url(snap: &Snapshot, path: &Path, offset: usize, prefix: &str) -> Option<Vec<CompletionItem>> {
    let at = prefix.rfind("salt://")?;
    let typed = &prefix[at + "salt://".len()..];
    if typed.contains(|c: char| c.is_whitespace() || c == '\'' || c == '"') {
        return None;
    }
    let typed = typed.split_once('?').map_or(typed, |(p, _)| p);
    let edit = offset - typed.len()..offset;
    let env = file_env(snap, path);
    let roots = &snap.world().ctx.roots;
    let mut files: BTreeSet<&str> = BTreeSet::new();
    if let Some(e) = roots.envs.get(&env) {
        for set in &e.files {
            files.extend(set.iter().map(String::as_str).filter(|f| f.starts_with(typed)));
        }
    }
    Some(files.into_iter().take(LIMIT).map(|f| item(f, CompletionKind::File, None, edit.clone(), f.to_string())).collect())
}

/// Grain names and pillar keys (`G@`, `I@`, `grains.get('`, `pillar.get('`, `grains['`,
/// `pillar['`), and inside a Jinja expression the keys of the value before a dot.
fn data_keys(snap: &Snapshot, path: &Path, text: &str, offset: usize, prefix: &str) -> Option<Vec<CompletionItem>> {
    let token_start = prefix.rfind(|c: char| c.is_whitespace() || c == '(' || c == '\'' || c == '"' || c == ',').map_or(0, |i| i + 1);
    let token = &prefix[token_start..];
    let (which, typed) = if let Some(t) = token.strip_prefix("G@") {
        (Data::Grains, t)
    } else if let Some(t) = token.strip_prefix("I@") {
        (Data::Pillar, t)
    } else if let Some((which, typed)) = call_argument(prefix) {
        (which, typed)
    } else {
        return attribute_keys(snap, path, text, offset, prefix);
    };
    // `G@os:Debian`: past the value's colon-path only keys are completed, from the start.
    let edit = offset - typed.len()..offset;
    let (grains, pillar) = minion_data(snap)?;
    let data = match which {
        Data::Grains => grains,
        Data::Pillar => pillar,
    };
    let mut out = Vec::new();
    flatten(&data, "", 0, &mut out);
    Some(
        out.into_iter()
            .filter(|(k, _)| k.starts_with(typed.split(':').next().unwrap_or("")))
            .map(|(k, v)| item(k.clone(), CompletionKind::Key, Some(v), edit.clone(), k))
            .collect(),
    )
}

enum Data {
    Grains,
    Pillar,
}

/// `pillar.get('a:b` / `salt['pillar.get']("a` / `grains['os` ...: which data and what is typed.
fn call_argument(prefix: &str) -> Option<(Data, &str)> {
    let quote = prefix.rfind(['\'', '"'])?;
    let typed = &prefix[quote + 1..];
    if typed.contains(|c: char| c.is_whitespace() || c == ')' || c == ']') {
        return None;
    }
    let before = prefix[..quote].trim_end();
    for (suffix, which) in [
        ("pillar.get(", Data::Pillar),
        ("'pillar.get'](", Data::Pillar),
        ("\"pillar.get\"](", Data::Pillar),
        ("pillar[", Data::Pillar),
        ("grains.get(", Data::Grains),
        ("'grains.get'](", Data::Grains),
        ("\"grains.get\"](", Data::Grains),
        ("grains[", Data::Grains),
    ] {
        if before.ends_with(suffix) {
            return Some((which, typed));
        }
    }
    None
}

/// Every key path of `v` (`a`, `a:b`, ...) with a short preview of its value.
fn flatten(v: &serde_json::Value, prefix: &str, depth: usize, out: &mut Vec<(String, String)>) {
    let Some(map) = v.as_object() else { return };
    for (k, child) in map {
        if out.len() >= LIMIT {
            return;
        }
        let key = if prefix.is_empty() { k.clone() } else { format!("{prefix}:{k}") };
        out.push((key.clone(), preview(child)));
        if depth < 4 {
            flatten(child, &key, depth + 1, out);
        }
    }
}

fn preview(v: &serde_json::Value) -> String {
    let s = v.to_string();
    match s.char_indices().nth(60) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s,
    }
}

/// The selected minion's grains and pillar: from the cached highstate compile when there is
/// one, else its top's compile (which computes the pillar).
fn minion_data(snap: &Snapshot) -> Option<(serde_json::Value, serde_json::Value)> {
    let cached = snap.with_highstate(|idx| idx.highstate.compiled().cloned()).ok().flatten();
    if let Some(m) = cached.as_ref().and_then(|c| c.minion.as_ref().ok()) {
        return Some((m.grains.clone(), m.pillar.clone()));
    }
    let (m, _, _) = crate::explain::top_files::compile(snap, None).ok()?;
    Some((m.grains, m.pillar))
}

/// Inside `{{ ... }}` or `{% ... %}`, after `expr.`: the keys of `expr` for the selected
/// minion. The file is rendered with that expression's keys in place of the unfinished one.
fn attribute_keys(snap: &Snapshot, path: &Path, text: &str, offset: usize, prefix: &str) -> Option<Vec<CompletionItem>> {
    let open = prefix.rfind("{{").into_iter().chain(prefix.rfind("{%")).max()?;
    if prefix[open..].contains("}}") || prefix[open..].contains("%}") {
        return None;
    }
    let inner = &prefix[open + 2..];
    let chain_start =
        inner.rfind(|c: char| !(c.is_alphanumeric() || c == '_' || c == '.' || c == '[' || c == ']' || c == '\'' || c == '"')).map_or(0, |i| i + 1);
    let chain = &inner[chain_start..];
    let (object, typed) = chain.rsplit_once('.')?;
    if object.is_empty() || !object.starts_with(|c: char| c.is_alphabetic() || c == '_') {
        return None;
    }
    let line_start = syntax::line_index::line_start(text, offset);
    let line_end = text[offset..].find('\n').map_or(text.len(), |i| offset + i);
    let block_start = line_start + open;
    // The line up to the unfinished block, a block printing the object's keys, the rest of
    // the file after this line.
    let keys_block = format!("{{{{ ({object})|list|join('\\x1f') }}}}");
    let source = format!("{}{keys_block}{}", &text[..block_start], &text[line_end..]);
    let files = snap.files.fork();
    if let Ok(mut b) = files.overlay.buffers.write() {
        b.insert(path.to_path_buf(), Arc::from(source.as_str()));
    }
    let compiled = snap.compile_for(None, files, Scope::Render { path: path.to_path_buf(), probe: Some(model::pipeline::ProbeAt::Block(block_start + 3)) });
    let seen = compiled.rendered?.probed?.1;
    let edit = offset - typed.len()..offset;
    let mut keys: BTreeSet<String> = BTreeSet::new();
    for (_, v) in &seen {
        keys.extend(v.split('\x1f').filter(|k| !k.is_empty()).map(str::to_string));
    }
    Some(keys.into_iter().map(|k| item(k.clone(), CompletionKind::Key, Some(format!("key of `{object}`")), edit.clone(), k)).collect())
}

#[cfg(test)]
mod tests;
