//! A minion's highstate as diagnostics: the errors `state.apply` would stop on for that minion
//! (a compiled [`pipeline`](crate::pipeline) result: its top, its Jinja rendered with the
//! minion's grains and pillar, Salt's apply pipeline), placed in the files they point to. An
//! error Salt reports without a place (an SLS the top assigns that no environment has) goes to
//! the top-file entry that asked for it; an error about a state of a rendered template goes to
//! the line that declares that ID.

use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::check::summary::{summarize_sls, summarize_top};
use crate::check::{error_diagnostics, normalize_by, CheckContext};
use crate::diagnostic::{Code, Diagnostic, SaltError};
use crate::pipeline::{Compiled, Request, Scope, Who};
use crate::state::highstate::resolve_relative;
use crate::targeting::top::TopResult;
use crate::value::{Loc, Val, V};
use crate::workspace::config::ConfigError;
use crate::workspace::config::Opts;
use crate::workspace::roots::get_envs;
use crate::workspace::vfs::{FileTable, Vfs};
use crate::workspace::Workspace;

/// The diagnostics of `compiled` (a [`Scope::Highstate`](crate::pipeline::Scope) result),
/// sorted, without saying which minion they are for (callers do).
pub fn diagnostics(compiled: &Compiled, fs: &dyn Vfs, ctx: &CheckContext, opts: &Opts) -> Vec<Diagnostic> {
    findings(compiled, fs, ctx, opts).into_iter().map(|(d, _)| d).collect()
}

/// [`diagnostics`], each with the state ID it is about when there is one (what `diff` matches
/// a finding by at both sides of a change, since its line may move).
pub fn findings(compiled: &Compiled, fs: &dyn Vfs, ctx: &CheckContext, opts: &Opts) -> Vec<(Diagnostic, Option<String>)> {
    let Some(low) = &compiled.low else { return Vec::new() };
    // A [`Scope::Sls`] compile has no top.
    let no_top = TopResult::default();
    let top = compiled.top.as_ref().unwrap_or(&no_top);
    // A top file that fails to render for this minion makes its top empty: Salt compiles
    // nothing and says so only in its log, so the render error is reported too.
    let mut errors: Vec<&SaltError> = Vec::new();
    // The minion's pillar: what Salt puts under `_errors` (a pillar SLS that fails to render, a
    // pillar top naming a missing SLS), each at its file and line.
    // Those without a place: the ext_pillar findings go to the configuration's `ext_pillar:`
    // (below); an ext_pillar not evaluated is for `salt-analyzer pillar` only.
    let pillar = compiled.pillar.iter().flat_map(|p| p.errors.iter().map(|e| &e.diag)).filter(|e| e.loc.is_some());
    for e in pillar.chain(&top.render_errors).chain(low.errors()).chain(&low.highstate.hints).chain(&low.calls) {
        if !errors.iter().any(|o| o.code == e.code && o.message == e.message && o.id == e.id) {
            errors.push(e);
        }
    }
    // A file whose renderer we never run declares states we cannot know: a reference to one
    // of them is not a finding.
    let unknown = low.errors().iter().any(|e| e.code == Code::NotAnalysed);
    errors.retain(|e| !(unknown && matches!(e.code, Code::MissingRequisiteTarget | Code::MissingExtendTarget)));
    let mut table = compiled.files.clone();
    let tops = top_files(ctx, opts);
    let mut out = Vec::new();
    for e in errors {
        let (e, fallback) = place(e, fs, &tops, &mut table, top);
        for mut d in error_diagnostics(&e, &table, fallback.as_ref(), &ctx.dotted_names) {
            if e.code == Code::MissingInclude && d.span == (0..0) {
                locate_include(fs, compiled, &e.message, &d.file.clone(), &mut d.span);
            }
            if let Some(id) = &e.id {
                let extend = e.code == Code::MissingExtendTarget;
                locate_by_id(fs, id, extend, &d.file.clone(), &mut d.span);
                for r in &mut d.related {
                    locate_by_id(fs, id, extend, &r.file.clone(), &mut r.span);
                }
            }
            out.push((d, e.id.clone()));
        }
    }
    out.extend(ext_pillar_diagnostics(compiled, fs, opts).into_iter().map(|d| (d, None)));
    normalize_by(&mut out, |(d, _)| d);
    out
}

/// What the minion's ext_pillar entries said (a database that could not be opened or queried,
/// a query with no parameter), once each, at the `ext_pillar:` key of the Salt configuration
/// file that sets it: the pillar itself was still computed without them.
fn ext_pillar_diagnostics(compiled: &Compiled, fs: &dyn Vfs, opts: &Opts) -> Vec<Diagnostic> {
    let found: Vec<&SaltError> =
        compiled.pillar.iter().flat_map(|p| p.errors.iter().map(|e| &e.diag)).filter(|e| e.loc.is_none() && e.code == Code::ExtPillar).collect();
    if found.is_empty() {
        return Vec::new();
    }
    let place = opts.sources.iter().rev().find_map(|f| {
        let text = fs.read(f).ok()?;
        let at = text.lines().scan(0, |off, l| {
            let start = *off;
            *off += l.len() + 1;
            Some((start, l))
        });
        // `ext_pillar:` in YAML, `"ext_pillar":` in a JSON configuration.
        at.filter_map(|(start, l)| {
            let indent = l.len() - l.trim_start().len();
            let key = l.trim_start().trim_start_matches(['"', '\'']);
            key.starts_with("ext_pillar").then(|| (f.clone(), start + indent..start + l.trim_end().len()))
        })
        .last()
    });
    // Else the first configuration file, at its start.
    let Some((file, span)) = place.or_else(|| opts.sources.last().map(|f| (f.clone(), 0..0))) else { return Vec::new() };
    let mut out: Vec<Diagnostic> = Vec::new();
    for e in found {
        if !out.iter().any(|d| d.message == e.message) {
            out.push(Diagnostic {
                file: file.clone(),
                span: span.clone(),
                severity: e.code.severity(),
                code: e.code,
                message: e.message.clone(),
                related: Vec::new(),
                fix: Vec::new(),
            });
        }
    }
    out
}

/// A highstate diagnostic and the minions whose highstate has it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MinionDiagnostic {
    pub diagnostic: Diagnostic,
    pub minions: Vec<String>,
    /// Found applying this SLS alone (`state.apply NAME`: a templated file outside the
    /// minion's highstate), not in the highstate.
    pub alone: Option<String>,
}

/// A minion's findings, each with the SLS it was applying alone, if any.
type Found = Vec<(Diagnostic, Option<String>)>;

/// The highstate diagnostics of every minion of `who`, each once with every minion that has
/// it, leaving out what `known` (the per-file checks) already says at the same place. A
/// profile that cannot be read stops the check: its answer would be a guess. Minions compile
/// in parallel ([`crate::pipeline::each_in_parallel`]), each reduced to its findings as soon
/// as it is done. A fleet minion's highstate is checked, not each file applied alone on it
/// (what the fleet asks is what its minions get).
///
/// A structural error the per-file check found through the Jinja mask (`malformed-state`) in
/// a templated file is dropped from `known` when the minions' renders refute it: some minion
/// rendered the file and no render of it gave an error there.
pub fn check_minions(
    fs: &Arc<dyn Vfs>,
    ws: &Workspace,
    ctx: &CheckContext,
    who: &[Who],
    known: &mut Vec<Diagnostic>,
) -> Result<Vec<MinionDiagnostic>, ConfigError> {
    let mut out: Vec<MinionDiagnostic> = Vec::new();
    let mut index: std::collections::HashMap<(Diagnostic, Option<String>), usize> = std::collections::HashMap::new();
    let mut failed = None;
    // Files some minion rendered, and those a minion's compile found an error in.
    let (mut rendered, mut erring) = (std::collections::HashSet::new(), std::collections::HashSet::new());
    let seen: &[Diagnostic] = known;
    let work = |w: &Who| -> Result<(String, Found, Vec<PathBuf>), ConfigError> {
        let req = Request { minion: w.clone(), saltenv: None, scope: Scope::Highstate };
        let compiled = crate::pipeline::compile_with(fs.clone(), ws, &ctx.roots, &req, &ctx.memo);
        let id = compiled.minion.as_ref().map_err(Clone::clone)?.id.clone();
        let mut files: Vec<PathBuf> = compiled.low.iter().flat_map(|l| &l.highstate.rendered).filter_map(|r| r.file.as_ref().map(|f| f.path.clone())).collect();
        let mut found = diagnostics(&compiled, &**fs, ctx, &ws.opts).into_iter().map(|d| (d, None)).collect::<Vec<_>>();
        if !matches!(w, Who::Fleet(_)) {
            let (alone, alone_rendered) = alone_diagnostics(fs, ws, ctx, w, &compiled);
            found.extend(alone);
            files.extend(alone_rendered);
        }
        Ok((id, found, files))
    };
    crate::pipeline::each_in_parallel(who, crate::pipeline::parallelism(), work, |_, result| {
        let (id, found, files) = match result {
            Ok(r) => r,
            Err(e) => {
                failed.get_or_insert(e);
                return;
            }
        };
        rendered.extend(files);
        erring.extend(found.iter().filter(|(d, _)| d.code.severity() == crate::diagnostic::Severity::Error).map(|(d, _)| d.file.clone()));
        for (d, alone) in found {
            if seen.iter().any(|k| k.file == d.file && k.span.start == d.span.start && k.code == d.code) {
                continue;
            }
            // The same finding from the highstate and from a file applied alone is said once.
            let at = index.get(&(d.clone(), alone.clone())).or_else(|| if alone.is_some() { index.get(&(d.clone(), None)) } else { None }).copied();
            match at {
                Some(i) if !out[i].minions.contains(&id) => out[i].minions.push(id.clone()),
                Some(_) => {}
                None => {
                    index.insert((d.clone(), alone.clone()), out.len());
                    out.push(MinionDiagnostic { diagnostic: d, minions: vec![id.clone()], alone });
                }
            }
        }
    });
    if let Some(e) = failed {
        return Err(e);
    }
    known.retain(|d| !(d.code == Code::MalformedState && rendered.contains(&d.file) && !erring.contains(&d.file)));
    Ok(out)
}

/// The templated SLS files the highstate `compiled` did not render, each compiled alone for
/// the minion as `state.apply NAME` would (`state.show_low_sls`): what only rendering shows
/// (a Jinja error, an undefined variable, structure Jinja writes) is found in every file,
/// not only in those the top assigns.
/// Also returns the files those compiles rendered.
fn alone_diagnostics(
    fs: &Arc<dyn Vfs>,
    ws: &Workspace,
    ctx: &CheckContext,
    who: &Who,
    compiled: &Compiled,
) -> (Vec<(Diagnostic, Option<String>)>, Vec<PathBuf>) {
    let mut out = Vec::new();
    let mut rendered = Vec::new();
    for (_, _, path) in ctx.roots.sls_files() {
        let Ok(text) = fs.read(&path) else { continue };
        let Some((req, sls)) = alone_request(ctx, who, compiled, &path, &text) else { continue };
        let alone = crate::pipeline::compile_with(fs.clone(), ws, &ctx.roots, &req, &ctx.memo);
        rendered.extend(alone.low.iter().flat_map(|l| &l.highstate.rendered).filter_map(|r| r.file.as_ref().map(|f| f.path.clone())));
        out.extend(alone_found(&alone, &**fs, ctx, &ws.opts).into_iter().map(|d| (d, Some(sls.clone()))));
    }
    (out, rendered)
}

/// How to compile the SLS file `path` alone for minion `who`, and its name, when it is a
/// templated file (through Jinja) that the highstate `compiled` does not render. Top files and
/// files whose renderer we never run are left out.
pub fn alone_request(ctx: &CheckContext, who: &Who, compiled: &Compiled, path: &Path, text: &str) -> Option<(Request, String)> {
    let pipe = crate::render::renderer_pipe(text);
    if crate::render::unsupported_renderer(text).is_some() || !(pipe.iter().any(|p| p == "jinja") && crate::render::is_templated(text)) {
        return None;
    }
    if compiled.low.iter().flat_map(|l| &l.highstate.rendered).any(|r| r.file.as_ref().is_some_and(|f| f.path == path)) {
        return None;
    }
    let (env, rel) = ctx.roots.locate(path)?;
    // A top file is not a state file.
    if rel == ctx.top_file {
        return None;
    }
    let sls = crate::workspace::roots::sls_name_of(&rel)?;
    let req = Request { minion: who.clone(), saltenv: Some(env.clone()), scope: Scope::Sls { saltenv: env, names: vec![sls.clone()] } };
    Some((req, sls))
}

/// The diagnostics of an SLS compiled alone ([`alone_request`]). The file is not in this
/// minion's highstate: what would fail applying it alone there is a warning (it may never be
/// applied there: a macOS-only file, say).
pub fn alone_found(compiled: &Compiled, fs: &dyn Vfs, ctx: &CheckContext, opts: &Opts) -> Vec<Diagnostic> {
    let mut found = diagnostics(compiled, fs, ctx, opts);
    for d in &mut found {
        if d.severity == crate::diagnostic::Severity::Error {
            d.severity = crate::diagnostic::Severity::Warning;
        }
    }
    found
}

/// "In the highstate of minion `web01`: " (or of several), the words a diagnostic's message
/// starts with when it is about minions; "Applying `web.tls` alone on minion `web01`: " for a
/// finding of a file outside the highstate.
pub fn minion_prefix(minions: &[String], alone: Option<&str>) -> String {
    let names: Vec<String> = minions.iter().map(|m| format!("`{m}`")).collect();
    match (alone, names.as_slice()) {
        (Some(sls), [one]) => format!("Applying `{sls}` alone on minion {one}: "),
        (Some(sls), _) => format!("Applying `{sls}` alone on minions {}: ", name_few(&names)),
        (None, [one]) => format!("In the highstate of minion {one}: "),
        (None, _) => format!("In the highstates of minions {}: ", name_few(&names)),
    }
}

/// How many minions a message names before it counts the rest.
const NAMED: usize = 3;

/// `a, b, c` for a few names; for more, the first [`NAMED`] and a count: "`web01`, `web02`,
/// `web03` and 297 more" (a finding on a fleet; JSON lists them all).
fn name_few(names: &[String]) -> String {
    if names.len() <= NAMED + 1 {
        return names.join(", ");
    }
    format!("{} and {} more", names[..NAMED].join(", "), names.len() - NAMED)
}

/// Every environment's top file that exists, in the order Salt lists the environments.
pub fn top_files(ctx: &CheckContext, opts: &Opts) -> Vec<(String, PathBuf)> {
    let client: Vec<String> = ctx.roots.env_names().map(str::to_string).collect();
    get_envs(opts, &client).into_iter().filter_map(|env| ctx.roots.find_file(&env, &ctx.top_file).map(|p| (env, p))).collect()
}

/// Where an error without a location goes: an SLS the top file assigns that no environment
/// has goes to that entry of the top file (as `missing-sls`, the code the top-file check
/// gives it); anything else to the top file of the environment it names, else the first top
/// file.
fn place(e: &SaltError, fs: &dyn Vfs, tops: &[(String, PathBuf)], table: &mut FileTable, top: &TopResult) -> (SaltError, Option<Loc>) {
    if e.loc.is_some() {
        return (e.clone(), None);
    }
    if let Some(rest) = e.message.strip_prefix("No matching sls found for '") {
        if let Some((sls, env)) = rest.split_once("' in env '").and_then(|(s, r)| Some((s, r.split_once('\'')?.0))) {
            if let Some((mut at, target)) = top_entry(top, env, sls) {
                if at.span == (0..0) {
                    // A templated top file: find the entry in its static structure.
                    if let Some(span) = top_item_span(fs, table.path(at.file), env, &target, sls) {
                        at.span = span;
                    }
                }
                let mut e = e.clone();
                e.code = Code::MissingSls;
                e.loc = Some(at);
                return (e, None);
            }
        }
    }
    let named = ["in env '", "for environment '", "saltenv '"]
        .iter()
        .find_map(|p| e.message.split_once(p).and_then(|(_, r)| r.split_once('\'')).map(|(env, _)| env.to_string()));
    // An environment with no file roots that a section of some top file targets this minion
    // from: that section's key.
    let unserved = named.clone().or_else(|| {
        let rest = e.message.split_once(" in saltenv ")?.1;
        rest.split_once(" is not available").map(|(env, _)| env.to_string())
    });
    if let Some(env) = unserved.filter(|env| !tops.iter().any(|(e, _)| e == env)) {
        for (_, path) in tops {
            if let Some(found) = section_loc(fs, table, path, &env) {
                return (e.clone(), Some(found));
            }
        }
    }
    let path = named.and_then(|env| tops.iter().find(|(e, _)| *e == env)).or(tops.first()).map(|(_, p)| p.clone());
    let Some(path) = path else { return (e.clone(), None) };
    let id = match table.id(&path) {
        Some(id) => id,
        None => match fs.read(&path) {
            Ok(text) => table.add(path, text.into()),
            Err(_) => return (e.clone(), None),
        },
    };
    (e.clone(), Some(Loc { file: id, span: 0..0 }))
}

/// Where a top file's section for `env` starts, from its static structure.
fn section_loc(fs: &dyn Vfs, table: &mut FileTable, path: &Path, env: &str) -> Option<Loc> {
    let text = fs.read(path).ok()?;
    let id = match table.id(path) {
        Some(id) => id,
        None => table.add(path.to_path_buf(), text.clone().into()),
    };
    let (data, _) = crate::render::render_static(&text, id).ok()?;
    let V::Dict(sections) = &data.v else { return None };
    let (key, _) = sections.0.iter().find(|(k, _)| k.py_str() == env)?;
    key.at.clone()
}

/// The item `sls` of a target the minion matched in section `env` of the merged top, and the
/// target.
fn top_entry(top: &TopResult, env: &str, sls: &str) -> Option<(Loc, String)> {
    let targets = top.merged.get(env)?;
    for t in targets {
        let target = t.target.py_str();
        let matched = top.targets.iter().any(|d| d.section == env && d.target == target && d.source == t.source && d.matched);
        if !matched {
            continue;
        }
        let items: Vec<&Val> = match &t.body.v {
            V::List(l) => l.iter().collect(),
            _ => vec![&t.body],
        };
        if let Some(item) = items.into_iter().find(|i| i.as_str() == Some(sls)) {
            if let Some(at) = item.at.clone() {
                return Some((at, target));
            }
        }
    }
    None
}

/// Where a top file's static structure (the Jinja mask) writes entry `sls` of `target` in
/// section `env` (of any target of the section when that target has no such entry).
fn top_item_span(fs: &dyn Vfs, path: &Path, env: &str, target: &str, sls: &str) -> Option<Range<usize>> {
    let text = fs.read(path).ok()?;
    let summary = summarize_top(&text);
    let sections: Vec<_> = summary.envs.iter().filter(|e| e.env == env).collect();
    let find = |same_target: bool| {
        sections
            .iter()
            .flat_map(|e| &e.targets)
            .filter(|t| !same_target || t.target == target)
            .flat_map(|t| &t.sls)
            .find(|i| i.name == sls)
            .map(|i| i.span.clone())
    };
    find(true).or_else(|| find(false)).or_else(|| list_item_span(&text, sls))
}

/// The span of `sls` in the one line of `text` that is the list item `- sls` (an entry only
/// Jinja writes is not in the static structure, but usually still literally in the file).
fn list_item_span(text: &str, sls: &str) -> Option<Range<usize>> {
    list_item_where(text, |item| item == sls)
}

/// The span of the item in the one line of `text` that is a list item `- X` (quoted or not)
/// with `wanted(X)`; `None` when no line or several lines are.
fn list_item_where(text: &str, wanted: impl Fn(&str) -> bool) -> Option<Range<usize>> {
    let mut found = None;
    let mut start = 0;
    for line in text.split_inclusive('\n') {
        let body = line.trim_end();
        let item = body.trim_start().strip_prefix('-').map(str::trim_start);
        let name = item.map(|i| i.split(" #").next().unwrap_or(i).trim_end().trim_matches(|c| c == '\'' || c == '"'));
        if let Some(name) = name.filter(|n| !n.is_empty() && wanted(n)) {
            if found.is_some() {
                return None;
            }
            let dash = body.len() - body.trim_start().len();
            let offset = dash + body[dash..].find(name).unwrap_or(0);
            found = Some(start + offset..start + offset + name.len());
        }
        start += line.len();
    }
    found
}

/// A missing include of a rendered template (which loses its positions) goes to the one line of
/// the file that writes an include item resolving to the missing name (`- .selinux` in
/// `db/init.sls` for `db.selinux`), when there is one.
fn locate_include(fs: &dyn Vfs, compiled: &Compiled, message: &str, file: &Path, span: &mut Range<usize>) {
    let Some(missing) = message.strip_prefix("Specified SLS ").and_then(|r| r.split_once(" in saltenv ")).map(|(n, _)| n) else { return };
    let Some(low) = &compiled.low else { return };
    let Some(state) = low.highstate.rendered.iter().filter_map(|r| r.file.as_ref()).find(|f| f.path == file) else { return };
    let Some(sls) = low.highstate.rendered.iter().find(|r| r.file.as_ref().is_some_and(|f| f.path == file)).map(|r| r.sls.clone()) else { return };
    let Ok(text) = fs.read(file) else { return };
    let resolves = |written: &str| resolve_relative(&sls, state.is_init(), written).as_deref() == Some(missing);
    if let Some(found) = list_item_where(&text, resolves) {
        *span = found;
    }
}

/// A rendered template loses its positions (the rendered text is not the file's): an error
/// about a state ID at a file's start is moved to that ID's declaration when the file's
/// static structure declares it once (as an `extend` key for an `extend` error), or when one
/// line of the file starts with it as a key (indented, for an `extend` key).
fn locate_by_id(fs: &dyn Vfs, id: &str, extend: bool, file: &Path, span: &mut Range<usize>) {
    if *span != (0..0) {
        return;
    }
    let Ok(text) = fs.read(file) else { return };
    let sls = summarize_sls(&text, None, false);
    let spans: Vec<&Range<usize>> = if extend {
        sls.extends.iter().filter(|k| k.id == id).map(|k| &k.span).collect()
    } else {
        sls.ids.iter().filter(|d| d.id == id).map(|d| &d.span).collect()
    };
    match spans.as_slice() {
        [one] => *span = (*one).clone(),
        [] => {
            // Written only inside a Jinja block: the one line that holds the key.
            if let Some(found) = key_span(&text, id, extend) {
                *span = found;
            }
        }
        _ => {}
    }
}

/// The span of `id` in the one line of `text` that is the key `id:` (at the line's start, or
/// after indentation when `indented`).
fn key_span(text: &str, id: &str, indented: bool) -> Option<Range<usize>> {
    let mut found = None;
    let mut start = 0;
    for line in text.split_inclusive('\n') {
        let body = if indented { line.trim_start_matches(' ') } else { line };
        let key = (indented == (body.len() < line.len())) && body.strip_prefix(id).is_some_and(|rest| rest.starts_with(':'));
        if key {
            if found.is_some() {
                return None;
            }
            let at = start + line.len() - body.len();
            found = Some(at..at + id.len());
        }
        start += line.len();
    }
    found
}
