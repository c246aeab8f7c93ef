//! Code actions where the fix is mechanical: create the missing SLS file of an include (at
//! the path Salt looks at first) or drop that include; drop an include that does nothing (a
//! repeat of an earlier entry, the file itself); include the SLS that declares a requisite's
//! missing target; take a finding's did-you-mean (an unknown state function or argument);
//! move a dotted SLS file to a name Salt can load; rewrite a top-file target's string
//! shorthand as a list.

use std::ops::Range;
use std::path::{Path, PathBuf};

use model::check::summary::{RequisiteRef, SlsSummary, TopSummary};
use model::py::fnmatch::has_magic;
use model::workspace::roots::{dotted_component, sls_name_of};

use crate::inputs::summaries::FileSummary;
use crate::resolve::*;
use crate::snapshot::Snapshot;
use crate::types::*;

fn overlaps(a: &Range<usize>, b: &Range<usize>) -> bool {
    a.start <= b.end && b.start <= a.end
}

pub(crate) fn code_actions(snap: &Snapshot, path: &Path, range: Range<usize>) -> Cancellable<Vec<CodeAction>> {
    if snap.too_large(path) {
        return Ok(Vec::new());
    }
    let Some(summary) = snap.summary(path) else { return Ok(Vec::new()) };
    let text = snap.text(path).unwrap_or_default();
    let mut out = Vec::new();
    match &*summary {
        FileSummary::Sls(s) => sls_actions(snap, path, s, &text, &range, &mut out)?,
        FileSummary::Top(t) => top_actions(snap, path, t, &text, &range, &mut out),
    }
    Ok(out)
}

fn sls_actions(snap: &Snapshot, path: &Path, s: &SlsSummary, text: &str, range: &Range<usize>, out: &mut Vec<CodeAction>) -> Cancellable<()> {
    include_actions(snap, path, s, text, range, out);
    // The fixes findings carry, and the requisites that name nothing: only where the range is
    // on something a finding of those is about, or anywhere in a template (whose summary lists
    // only what Jinja does not write): actions are asked for at every move of the cursor.
    let on_first_line = text.get(..range.start).is_some_and(|t| !t.contains('\n'));
    let on_call =
        s.ids.iter().flat_map(|d| &d.functions).any(|f| {
            overlaps(&f.span, range) || f.function_span.as_ref().is_some_and(|fs| overlaps(fs, range)) || f.args.iter().any(|(_, a)| overlaps(a, range))
        });
    let requisites: Vec<&RequisiteRef> = s.requisites.iter().filter(|r| overlaps(&requisite_span(r), range)).collect();
    let on_include = s.includes.iter().any(|i| overlaps(&i.span, range));
    if !(s.templated || on_call || on_first_line || on_include || !requisites.is_empty()) {
        return Ok(());
    }
    let found = crate::findings::of_file(snap, path)?;
    did_you_mean(path, text, &found, range, out);
    for r in requisites {
        // At the requisite, or, in a templated file, at the ID of the state that has it (the
        // minion's rendered highstate places it there), when no state around the file
        // answers it.
        let at_id = s.ids.iter().find(|d| d.id == r.owner).map(|d| d.span.clone());
        let missing = |d: &Diagnostic| {
            d.code == "missing-requisite-target"
                && (overlaps(&d.range, &requisite_span(r)) || at_id.as_ref().is_some_and(|id| overlaps(&d.range, id) && d.range.start <= id.start))
        };
        if found.iter().any(missing) && (r.key == "sls" || requisite_targets(snap, path, r)?.is_empty()) {
            include_for_requisite(snap, path, s, text, r, out);
        }
    }
    let dotted: Vec<&Diagnostic> = found.iter().filter(|d| d.code == "dotted-sls-name").collect();
    if on_first_line && dotted.iter().any(|d| d.range.start == 0) {
        rename_dotted(snap, path, "the file", true, out);
    }
    // At an include naming a dotted file: that file.
    for item in s.includes.iter().filter(|i| overlaps(&i.span, range) && dotted.iter().any(|d| overlaps(&d.range, &i.span))) {
        let Some((env, name)) = include_target(snap, path, item) else { continue };
        for (rel, file) in dotted_files(snap, &env, &name) {
            rename_dotted(snap, &file, &format!("`{rel}`"), false, out);
        }
    }
    Ok(())
}

/// A top-file target's string shorthand (`'*': web`) written as a list.
fn top_actions(snap: &Snapshot, path: &Path, t: &TopSummary, text: &str, range: &Range<usize>, out: &mut Vec<CodeAction>) {
    let index = snap.line_index(path);
    for env in &t.envs {
        for target in env.targets.iter().filter(|t| t.shorthand && overlaps(&t.value_span, range)) {
            let Some(value) = text.get(target.value_span.clone()) else { continue };
            // The list goes two columns right of the target, as wide as people see it.
            let col = index.as_ref().map_or(1, |li| li.human(target.span.start).1);
            let indent = " ".repeat(col - 1 + 2);
            // Replace from just after the colon, so no trailing space is left.
            let start = text[..target.value_span.start].trim_end_matches([' ', '\t']).len();
            out.push(action(
                format!("Write the SLS of target `{}` as a list", target.target),
                CodeActionKind::RefactorRewrite,
                edit(path, start..target.value_span.end, format!("\n{indent}- {value}")),
            ));
        }
    }
}

/// An action that is no editor's preferred fix and moves no file.
fn action(title: String, kind: CodeActionKind, edit: SourceChange) -> CodeAction {
    CodeAction { title, kind, preferred: false, rename_files: Vec::new(), edit }
}

/// One text edit of one file.
fn edit(path: &Path, range: Range<usize>, new_text: String) -> SourceChange {
    SourceChange { create_files: Vec::new(), text_edits: vec![TextEdit { path: path.to_path_buf(), range, new_text }] }
}

fn requisite_span(r: &RequisiteRef) -> Range<usize> {
    r.key_span.start.min(r.span.start)..r.span.end.max(r.key_span.end)
}

/// The fixes of the include items in `range`: a missing one's file created or the item
/// dropped, and an item that does nothing (it repeats an earlier entry, after relative names
/// are resolved, or names the file itself) dropped.
fn include_actions(snap: &Snapshot, path: &Path, s: &SlsSummary, text: &str, range: &Range<usize>, out: &mut Vec<CodeAction>) {
    let world = snap.world();
    let env = file_env(snap, path);
    let own = world.sls_of(path).map(|(e, name, _)| (e, name));
    for (i, item) in s.includes.iter().enumerate().filter(|(_, i)| overlaps(&i.span, range)) {
        let Some((ienv, name)) = include_target(snap, path, item) else { continue };
        let missing = !has_magic(&name) && resolve_sls(snap, &ienv, &name, &env).is_empty();
        // A dotted file listed by that name is better moved (below) than a new empty file made.
        if missing && dotted_files(snap, &ienv, &name).is_empty() {
            if let Some(root) = world.ws.opts.file_roots.get(&ienv).and_then(|r| r.first()) {
                // `x.sls` before `x/init.sls`, in the environment's first root.
                let file = root.join(format!("{}.sls", name.replace('.', "/")));
                out.push(action(
                    format!("Create `{}`", world.rel(&file)),
                    CodeActionKind::QuickFix,
                    SourceChange { create_files: vec![file], text_edits: Vec::new() },
                ));
            }
        }
        let repeated = s.includes[..i].iter().any(|e| include_target(snap, path, e).as_ref() == Some(&(ienv.clone(), name.clone())));
        let itself = own.as_ref() == Some(&(ienv.clone(), name.clone()));
        let why = if repeated {
            "it repeats an earlier entry"
        } else if itself {
            "it names this file"
        } else if missing {
            "Salt finds no file by that name"
        } else {
            continue;
        };
        if let Some(r) = remove_include(text, item) {
            out.push(action(format!("Remove the include of `{}` ({why})", item.raw), CodeActionKind::QuickFix, edit(path, r, String::new())));
        }
    }
}

/// The range that removes an include item: its whole line in a block list (and the
/// `include:` key when no other item is left), the item and one comma in a flow list.
fn remove_include(text: &str, item: &model::check::summary::IncludeItem) -> Option<Range<usize>> {
    let start = item.item_span.start.min(item.span.start);
    let end = item.item_span.end.max(item.span.end);
    let line_start = text[..start].rfind('\n').map_or(0, |i| i + 1);
    let line_end = text[end..].find('\n').map_or(text.len(), |i| end + i + 1);
    if text[line_start..start].trim() == "-" {
        // The `include:` key this item is under, and whether another entry is left under it.
        let key = key_line_before(text, line_start)?;
        let mut others = false;
        let mut at = text[key..].find('\n').map_or(text.len(), |i| key + i + 1);
        while at < text.len() {
            let next = text[at..].find('\n').map_or(text.len(), |i| at + i + 1);
            let line = &text[at..next];
            // Entries are indented, or at the key's column (`include:` then `- a`).
            if !line.starts_with([' ', '\t', '\n', '\r', '#', '-']) && !line.trim().is_empty() {
                break;
            }
            let content = line.trim();
            if at != line_start && !content.is_empty() && !content.starts_with('#') {
                others = true;
            }
            at = next;
        }
        return Some(if others { line_start..line_end } else { key..line_end });
    }
    // A flow list: `include: [a, b]`.
    let before = text[..start].trim_end();
    if let Some(comma) = before.strip_suffix(',') {
        return Some(comma.len()..end);
    }
    if before.ends_with('[') {
        let after = &text[end..];
        let rest = after.trim_start();
        if let Some(r) = rest.strip_prefix(',') {
            let gap = after.len() - rest.len() + 1 + (r.len() - r.trim_start().len());
            return Some(start..end + gap);
        }
        if rest.starts_with(']') {
            // The only entry: the whole `include: [a]` line.
            return text[line_start..].starts_with("include:").then_some(line_start..line_end);
        }
    }
    None
}

/// The start of the last `include:` line at or before `at`, when no other top-level key
/// comes between.
fn key_line_before(text: &str, at: usize) -> Option<usize> {
    let mut end = at;
    loop {
        let start = text[..end.saturating_sub(1)].rfind('\n').map_or(0, |i| i + 1);
        let line = &text[start..end.max(start)];
        if line.starts_with("include:") {
            return Some(start);
        }
        if !(line.starts_with([' ', '\t', '#', '\n', '\r']) || line.trim().is_empty()) || start == 0 {
            return None;
        }
        end = start;
    }
}

/// The did-you-mean fixes of the findings in `range`: each replaces exactly the misspelt text.
fn did_you_mean(path: &Path, text: &str, found: &[Diagnostic], range: &Range<usize>, out: &mut Vec<CodeAction>) {
    for d in found.iter().filter(|d| !d.fix.is_empty()) {
        if !overlaps(&d.range, range) && !d.fix.iter().any(|(r, _)| overlaps(r, range)) {
            continue;
        }
        let words: Vec<String> = d.fix.iter().map(|(r, new)| format!("`{}` to `{new}`", text.get(r.clone()).unwrap_or_default())).collect();
        let change = SourceChange {
            create_files: Vec::new(),
            text_edits: d.fix.iter().map(|(r, new)| TextEdit { path: path.to_path_buf(), range: r.clone(), new_text: new.clone() }).collect(),
        };
        if out.iter().any(|a| a.edit == change) {
            continue;
        }
        out.push(CodeAction {
            title: format!("Change {}", words.join(" and ")),
            kind: CodeActionKind::QuickFix,
            preferred: true,
            rename_files: Vec::new(),
            edit: change,
        });
    }
}

/// One action per SLS of the file's environment that declares what the requisite `r` names
/// (the SLS itself for `- sls: name`): include it.
fn include_for_requisite(snap: &Snapshot, path: &Path, s: &SlsSummary, text: &str, r: &RequisiteRef, out: &mut Vec<CodeAction>) {
    if has_magic(&r.value) {
        return;
    }
    let world = snap.world();
    let env = file_env(snap, path);
    let included: Vec<(String, String)> = s.includes.iter().filter_map(|i| include_target(snap, path, i)).collect();
    let mut names: Vec<String> = Vec::new();
    for (renv, rel, file) in &world.roots {
        if *renv != env || file == path || *rel == world.top_rel {
            continue;
        }
        let Some(name) = sls_name_of(rel) else { continue };
        // Only a name that loads this very file (not a dotted name, not a shadowed `x/init.sls`).
        if world.ctx.roots.get_state(&env, &name).is_none_or(|f| f.path != *file) || names.contains(&name) || included.contains(&(env.clone(), name.clone())) {
            continue;
        }
        let declares = if r.key == "sls" {
            name == r.value
        } else {
            snap.summary(file).is_some_and(|sum| sum.sls().is_some_and(|o| o.ids.iter().any(|d| ref_matches(&r.key, &r.value, d))))
        };
        if declares {
            names.push(name);
        }
    }
    names.sort();
    for name in names {
        let Some((at, new_text)) = add_include(text, s, &name) else { continue };
        let title = if r.key == "sls" { format!("Include `{name}`") } else { format!("Include `{name}`, which declares `{}: {}`", r.key, r.value) };
        out.push(action(title, CodeActionKind::QuickFix, edit(path, at..at, new_text)));
    }
}

/// Where and what to insert so the file includes `name`: an item after the last of its
/// `include:` list, in that list's style, else an `include:` block before the first state
/// (after the leading comments, shebang and Jinja set-up lines).
fn add_include(text: &str, s: &SlsSummary, name: &str) -> Option<(usize, String)> {
    if let Some(last) = s.includes.iter().max_by_key(|i| i.span.start) {
        let start = last.item_span.start.min(last.span.start);
        let end = last.item_span.end.max(last.span.end);
        let line_start = text[..start].rfind('\n').map_or(0, |i| i + 1);
        let prefix = &text[line_start..start];
        if prefix.trim() == "-" {
            return Some(match text[end..].find('\n') {
                Some(i) => (end + i + 1, format!("{prefix}{name}\n")),
                None => (text.len(), format!("\n{prefix}{name}")),
            });
        }
        // A flow list: after the last entry, before its `]` or `,`.
        return text[end..].trim_start().starts_with([']', ',']).then(|| (end, format!(", {name}")));
    }
    let indent = list_indent(text);
    // An `include:` key with no entry.
    let mut at = 0;
    for line in text.split_inclusive('\n') {
        if let Some(rest) = line.strip_prefix("include:") {
            let rest = rest.trim();
            let after = at + line.len();
            return match rest {
                "" if line.ends_with('\n') => Some((after, format!("{indent}- {name}\n"))),
                "" => Some((after, format!("\n{indent}- {name}"))),
                "[]" => {
                    let open = at + line.find("[]")?;
                    Some((open + 1, name.to_string()))
                }
                _ => None,
            };
        }
        at += line.len();
    }
    let at = setup_end(text);
    let gap = if text[at..].trim().is_empty() { "" } else { "\n" };
    let lead = if at > 0 && !text[..at].ends_with('\n') { "\n" } else { "" };
    Some((at, format!("{lead}include:\n{indent}- {name}\n{gap}")))
}

/// The indentation of the file's first indented line (a state's first function), else two
/// spaces.
fn list_indent(text: &str) -> String {
    text.lines()
        .find_map(|l| {
            let t = l.trim_start_matches(' ');
            (t.len() < l.len() && !t.is_empty() && !t.starts_with(['#', '{'])).then(|| " ".repeat(l.len() - t.len()))
        })
        .unwrap_or_else(|| "  ".to_string())
}

/// Where a file's content starts: after its leading blank and comment lines (a shebang is
/// one), `---`, and Jinja set-up (`{% set %}`, `{% from ... import %}`, `{% import_yaml %}`,
/// `{# #}`); before the comment lines directly above the first content when a blank line or
/// set-up separates them from the rest.
fn setup_end(text: &str) -> usize {
    const SETUP: [&str; 10] = ["set", "from", "import", "import_yaml", "import_json", "import_text", "load_yaml", "load_json", "load_text", "do"];
    let line_end = |at: usize| text[at..].find('\n').map_or(text.len(), |i| at + i + 1);
    let mut pos = 0;
    // After the last blank line or set-up, and whether comments came since.
    let mut gap = 0;
    let mut commented = false;
    while pos < text.len() {
        let line = &text[pos..line_end(pos)];
        let t = line.trim();
        let indent = line.len() - line.trim_start().len();
        if t.is_empty() || t == "---" {
            pos = line_end(pos);
            gap = pos;
            commented = false;
        } else if t.starts_with('#') {
            pos = line_end(pos);
            commented = true;
        } else if t.starts_with("{#") {
            let Some(close) = text[pos..].find("#}") else { break };
            pos = line_end(pos + close);
            gap = pos;
            commented = false;
        } else if let Some(inner) = t.strip_prefix("{%") {
            let inner = inner.trim_start_matches(['-', '+']).trim_start();
            let word: String = inner.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
            if !SETUP.contains(&word.as_str()) {
                break;
            }
            let open = pos + indent;
            let Some(close) = text[open..].find("%}").map(|i| open + i + 2) else { break };
            let mut end = close;
            // `{% set x %}...{% endset %}`.
            if word == "set" && !text[open..close].contains('=') {
                let Some(endset) = text[close..].find("endset").map(|i| close + i) else { break };
                let Some(c) = text[endset..].find("%}") else { break };
                end = endset + c + 2;
            }
            pos = line_end(end);
            gap = pos;
            commented = false;
        } else {
            break;
        }
    }
    if commented && gap > 0 {
        gap
    } else {
        pos
    }
}

/// The dotted files of `env` that Salt lists as `name` but can never load by it (relative
/// path and path).
fn dotted_files(snap: &Snapshot, env: &str, name: &str) -> Vec<(String, PathBuf)> {
    let world = snap.world();
    world
        .roots
        .iter()
        .filter(|(e, rel, _)| e == env && dotted_component(rel).is_some() && sls_name_of(rel).as_deref() == Some(name))
        .map(|(_, rel, file)| (rel.clone(), file.clone()))
        .collect()
}

/// A dotted SLS file (`web.conf.sls`, which Salt can never load) moved to a name it can: the
/// path its listed name means (`web/conf.sls`: every include and top entry naming `web.conf`
/// then loads it), or the dots made underscores (`web_conf.sls`: for a dot that was never a
/// separator, as in `webserver_1.0.sls`; not at an include, which the move must satisfy).
/// Never over an existing file.
fn rename_dotted(snap: &Snapshot, path: &Path, what: &str, underscores: bool, out: &mut Vec<CodeAction>) {
    let world = snap.world();
    let Some((env, rel)) = world.locate(path) else { return };
    if dotted_component(&rel).is_none() {
        return;
    }
    let Some(stem) = rel.strip_suffix(".sls") else { return };
    let Some(root) = path.to_str().and_then(|p| p.strip_suffix(rel.as_str())).map(PathBuf::from) else { return };
    let name = sls_name_of(&rel).unwrap_or_default();
    let mut names = vec![(stem.replace('.', "/"), format!(", where Salt looks for `{name}`"))];
    if underscores {
        names.push((stem.replace('.', "_"), String::new()));
    }
    for (to, why) in names {
        let to_rel = format!("{to}.sls");
        let target = root.join(&to_rel);
        // Nor where another file already answers the new name (`x/init.sls` for `x.sls`).
        let taken = sls_name_of(&to_rel).is_some_and(|n| world.ctx.roots.get_state(&env, &n).is_some());
        if taken || snap.text(&target).is_some() {
            continue;
        }
        out.push(CodeAction {
            title: format!("Rename {what} to `{to_rel}`{why}"),
            kind: CodeActionKind::QuickFix,
            preferred: false,
            rename_files: vec![(path.to_path_buf(), target)],
            edit: SourceChange::default(),
        });
    }
}

#[cfg(test)]
mod tests;
