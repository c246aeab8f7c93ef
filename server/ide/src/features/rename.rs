//! Renaming a state ID: its declarations and every reference that names it by ID in the files
//! around it (requisites and their `_in` forms, bare-ID and `state: id` forms, `extend:` keys,
//! `exclude: - id:`), each scalar rewritten in its own quoting. A function whose name is the ID
//! (it has no `name:` or `names:` argument) gets `- name: OLD`, so the state still acts on
//! the same thing: the rename changes the ID and nothing else. A name Jinja
//! produces (`{{ id }}-config`) is refused, with the reason: generated text is never edited.

use std::ops::Range;
use std::path::Path;

use model::check::summary::StateDecl;

use crate::resolve::*;
use crate::snapshot::Snapshot;
use crate::types::*;

/// Why a rename cannot be made here.
pub type Refused = String;

/// The range of the ID at `offset` as written (quotes excluded) and the ID, when one can be
/// renamed there.
pub(crate) fn prepare_rename(snap: &Snapshot, path: &Path, offset: usize) -> Cancellable<Result<(Range<usize>, String), Refused>> {
    let Some(text) = snap.text(path) else { return Ok(Err("the file cannot be read".into())) };
    let (at, decls) = match subject(snap, path, offset)? {
        Ok(found) => found,
        Err(why) => return Ok(Err(why)),
    };
    if let Err(why) = renamable(snap, &decls) {
        return Ok(Err(why));
    }
    let inner = unquoted(&text, at.clone());
    Ok(Ok((inner, decls[0].decl.id.clone())))
}

/// The edits that rename the state ID at `offset` to `new_name`.
pub(crate) fn rename(snap: &Snapshot, path: &Path, offset: usize, new_name: &str) -> Cancellable<Result<SourceChange, Refused>> {
    let (_, decls) = match subject(snap, path, offset)? {
        Ok(found) => found,
        Err(why) => return Ok(Err(why)),
    };
    if let Err(why) = renamable(snap, &decls) {
        return Ok(Err(why));
    }
    let old = decls[0].decl.id.clone();
    if new_name.is_empty() || new_name.contains(['\n', '\r']) {
        return Ok(Err("a state ID is one non-empty line".into()));
    }
    if new_name == old {
        return Ok(Ok(SourceChange::default()));
    }
    // The new ID must not be one the files around already declare: that would be a duplicate.
    for d in &decls {
        for (file, summary) in neighbour_decls(snap, &d.path)? {
            if summary.sls().is_some_and(|s| s.ids.iter().any(|x| x.id == new_name)) {
                return Ok(Err(format!("`{new_name}` is already a state ID in {}", file.display())));
            }
        }
    }
    let mut edits: Vec<TextEdit> = Vec::new();
    for d in &decls {
        let Some(text) = snap.text(&d.path) else { continue };
        edits.push(TextEdit { path: d.path.clone(), range: d.decl.span.clone(), new_text: requote(&text[d.decl.span.clone()], new_name) });
        {
            match keep_name(&text, &d.decl) {
                Some(more) => edits.extend(more.into_iter().map(|(range, new_text)| TextEdit { path: d.path.clone(), range, new_text })),
                None => {
                    return Ok(Err(format!(
                    "`{old}` is also the state's name, and salt-analyzer cannot add `- name: {old}` to the way its functions are written: add it, then rename"
                )))
                }
            }
        }
        for r in decl_references(snap, &d.path, &d.decl)? {
            let Some(text) = snap.text(&r.path) else { continue };
            let Some(written) = text.get(r.range.clone()) else { continue };
            // Only what names the state by its ID (not by its name, not a glob).
            if unquote(written) == old {
                edits.push(TextEdit { path: r.path.clone(), range: r.range.clone(), new_text: requote(written, new_name) });
            }
        }
    }
    edits.sort_by(|a, b| (&a.path, a.range.start, a.range.end).cmp(&(&b.path, b.range.start, b.range.end)));
    edits.dedup();
    Ok(Ok(SourceChange { create_files: Vec::new(), text_edits: edits }))
}

/// A scalar naming a state ID, and the declarations it names.
type Named = (Range<usize>, Vec<Decl>);

/// The scalar at `offset` naming a state ID (a declaration, a requisite, an extend key, an
/// excluded ID), and the declarations it names.
fn subject(snap: &Snapshot, path: &Path, offset: usize) -> Cancellable<Result<Named, Refused>> {
    let found = match item_at(snap, path, offset) {
        Some(Item::Id(d)) => (d.span.clone(), vec![Decl { path: path.to_path_buf(), decl: d }]),
        Some(Item::Requisite(r)) if r.key != "sls" => (r.span.clone(), requisite_targets(snap, path, &r)?),
        Some(Item::Extend(e)) => (e.span.clone(), extend_targets(snap, path, &e)?),
        Some(Item::Exclude(e)) if e.kind == "id" => {
            let decls = extend_targets(snap, path, &model::check::summary::ExtendKey { id: e.value.clone(), span: e.span.clone(), functions: Vec::new() })?;
            (e.span.clone(), decls)
        }
        _ => return Ok(Err("no state ID here: rename a state's ID, or a requisite, extend or exclude naming one".into())),
    };
    if found.1.is_empty() {
        return Ok(Err("no state declares this ID in the files around it".into()));
    }
    let ids: Vec<&str> = found.1.iter().map(|d| d.decl.id.as_str()).collect();
    if ids.iter().any(|id| *id != ids[0]) {
        return Ok(Err(format!("this names several states ({}): rename one at its declaration", ids.join(", "))));
    }
    Ok(Ok(found))
}

/// Whether every declaration's ID is written as it is (not produced by Jinja).
fn renamable(snap: &Snapshot, decls: &[Decl]) -> Result<(), Refused> {
    for d in decls {
        let text = snap.text(&d.path).ok_or_else(|| format!("{} cannot be read", d.path.display()))?;
        let written = text.get(d.decl.span.clone()).unwrap_or_default();
        if written.contains("{{") || written.contains("{%") || unquote(written) != d.decl.id {
            return Err(format!("the ID `{}` in {} is produced by Jinja: rename it in the template", d.decl.id, d.path.display()));
        }
    }
    Ok(())
}

/// The edits that give each function of `decl` that has no `name` (nor `names`) the argument
/// `- name: ID`, or `None` when one is written in a way this does not handle.
fn keep_name(text: &str, decl: &StateDecl) -> Option<Vec<(Range<usize>, String)>> {
    let mut out = Vec::new();
    // Salt gives each function the ID as its `name` when it has neither `name` nor `names`.
    for f in decl.functions.iter().filter(|f| !f.args.iter().any(|(k, _)| k == "name" || k == "names")) {
        let line_start = |at: usize| text[..at].rfind('\n').map_or(0, |i| i + 1);
        let indent_of = |at: usize| {
            let ls = line_start(at);
            text[ls..].len() - text[ls..].trim_start_matches(' ').len()
        };
        let flow_item = format!("{{name: {}}}", requote("x", &decl.id));
        let block_item = |indent: usize| format!("{}- name: {}\n", " ".repeat(indent), requote("x", &decl.id));
        // `module: [installed]` / `module:\n  - installed`: the function is a list item.
        let anchor = match &f.function_span {
            Some(fs) => fs.clone(),
            None => f.span.clone(),
        };
        let after = &text[anchor.end..];
        let line_end = after.find('\n').map_or(text.len(), |i| anchor.end + i);
        let rest_of_line = text[anchor.end..line_end].trim();
        if f.function_span.is_some() {
            // The function is an item of the module's list: add the argument as another item.
            let item_line = line_start(anchor.start);
            let before_item = text[item_line..anchor.start].trim_end();
            if before_item.ends_with('-') {
                // Block list: a new item after the function's line, at its indentation.
                let dash = item_line + text[item_line..anchor.start].find('-')?;
                let indent = dash - item_line;
                let next = if line_end < text.len() { line_end + 1 } else { line_end };
                let mut item = block_item(indent);
                if next == line_end {
                    item = format!("\n{}", item.trim_end_matches('\n'));
                }
                out.push((next..next, item));
            } else {
                // Flow list: after the function's name.
                out.push((anchor.end..anchor.end, format!(", {flow_item}")));
            }
            continue;
        }
        // `module.function:` with its arguments.
        let value = rest_of_line.strip_prefix(':')?.trim();
        let colon = anchor.end + text[anchor.end..line_end].find(':')?;
        if value.is_empty() || value.starts_with('#') {
            // A block list on the next lines, or nothing.
            let next_line = if line_end < text.len() { line_end + 1 } else { line_end };
            let following = text[next_line..].lines().find(|l| !l.trim().is_empty() && !l.trim_start().starts_with('#'));
            match following.filter(|l| l.trim_start().starts_with("- ") && l.len() - l.trim_start().len() > indent_of(anchor.start)) {
                Some(l) => {
                    let indent = l.len() - l.trim_start().len();
                    let at = next_line + text[next_line..].find(l)?;
                    out.push((at..at, block_item(indent)));
                }
                None => {
                    let indent = indent_of(anchor.start) + 2;
                    out.push((colon + 1..colon + 1, format!("\n{}", block_item(indent).trim_end_matches('\n'))));
                }
            }
        } else if value.starts_with('[') {
            let open = colon + text[colon..line_end].find('[')?;
            let empty = value.trim_start_matches('[').trim_start().starts_with(']');
            out.push((open + 1..open + 1, if empty { flow_item.clone() } else { format!("{flow_item}, ") }));
        } else {
            return None;
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use expect_test::expect;

    use super::*;
    use crate::fixture::Fixture;

    /// Every file of the fixture after the rename at the cursor, or why it was refused.
    fn check(fixture: &str, new_name: &str, expect: expect_test::Expect) {
        let f = Fixture::new(fixture);
        let (path, offset) = f.cursor();
        let a = f.analysis();
        let got = match a.rename(&path, offset, new_name).unwrap() {
            Err(why) => format!("refused: {why}"),
            Ok(change) => crate::fixture::edited_files(&a, &change),
        };
        expect.assert_eq(&got);
    }

    const TREE: &str = r#"
#- salt-analyzer.yaml
file_roots: {base: [srv]}
#- srv/top.sls
base:
  '*': [web, app]
#- srv/web.sls
include:
  - app
nginx-ß:
  pkg.installed:
    - name: nginx
  service.running:
    - watch:
      - pkg: nginx-ß
      - file: 'ℝ conf'
'ℝ conf':
  file.managed:
    - source: salt://x
    - require:
      - nginx-ß
#- srv/app.sls
app:
  test.nop:
    - require_in:
      - pkg: nginx-ß
extend:
  'ℝ conf':
    file.managed:
      - mode: '0644'
"#;

    #[test]
    fn an_id_and_every_reference_by_id_across_files() {
        let tree = TREE.replace("nginx-ß:\n", "nginx-ß$0:\n");
        check(
            &tree,
            "web-💣",
            expect![[r#"
                === srv/app.sls
                app:
                  test.nop:
                    - require_in:
                      - pkg: web-💣
                extend:
                  'ℝ conf':
                    file.managed:
                      - mode: '0644'
                === srv/web.sls
                include:
                  - app
                web-💣:
                  pkg.installed:
                    - name: nginx
                  service.running:
                    - name: nginx-ß
                    - watch:
                      - pkg: web-💣
                      - file: 'ℝ conf'
                'ℝ conf':
                  file.managed:
                    - source: salt://x
                    - require:
                      - web-💣
            "#]],
        );
    }

    #[test]
    fn from_a_reference_in_its_quotes_and_the_name_kept() {
        // From the extend key in another file; the state had no name, so it gets its old ID
        // as one; quotes are kept, and a name YAML would read otherwise is quoted.
        let tree = TREE.replace("  'ℝ conf':\n    file.managed:\n      - mode", "  'ℝ$0 conf':\n    file.managed:\n      - mode");
        check(
            &tree,
            "it's: 1",
            expect![[r#"
                === srv/app.sls
                app:
                  test.nop:
                    - require_in:
                      - pkg: nginx-ß
                extend:
                  'it''s: 1':
                    file.managed:
                      - mode: '0644'
                === srv/web.sls
                include:
                  - app
                nginx-ß:
                  pkg.installed:
                    - name: nginx
                  service.running:
                    - watch:
                      - pkg: nginx-ß
                      - file: 'it''s: 1'
                'it''s: 1':
                  file.managed:
                    - name: ℝ conf
                    - source: salt://x
                    - require:
                      - nginx-ß
            "#]],
        );
    }

    #[test]
    fn flow_and_list_forms_keep_the_name() {
        check(
            r#"
#- srv/a.sls
a$0:
  pkg.installed: []
  service: [running]
  file:
    - managed
    - source: salt://a
  cmd.run:
b:
  test.nop: [{require: [a]}]
"#,
            "1",
            expect![[r#"
                === srv/a.sls
                '1':
                  pkg.installed: [{name: a}]
                  service: [running, {name: a}]
                  file:
                    - managed
                    - name: a
                    - source: salt://a
                  cmd.run:
                    - name: a
                b:
                  test.nop: [{require: ['1']}]
            "#]],
        );
    }

    #[test]
    fn refused_where_jinja_writes_the_id_or_the_name_is_taken() {
        check(
            "#- srv/a.sls\n{% set x = 'a' %}\n{{ x }}-conf$0:\n  test.nop: []\n",
            "b",
            expect!["refused: no state ID here: rename a state's ID, or a requisite, extend or exclude naming one"],
        );
        check(
            "#- srv/a.sls\n{% set x = 'a' %}\nb:\n  test.nop:\n    - require:\n      - {{ x }}-c$0onf\n",
            "b",
            expect!["refused: no state ID here: rename a state's ID, or a requisite, extend or exclude naming one"],
        );
        check("#- srv/a.sls\na$0:\n  test.nop: [{name: x}]\nb:\n  test.nop: []\n", "b", expect!["refused: `b` is already a state ID in /ws/srv/a.sls"]);
    }

    /// A deterministic generator of small state trees: three SLS files including each other,
    /// states written in every form (`test.nop: []`, a block list, `test: [nop]`, a module
    /// list, a null value, with and without `name`), requisites by bare ID and `test: ID`,
    /// `require_in`, and an `extend` of a state of another file.
    fn tree(seed: u64) -> (String, Vec<String>) {
        let mut x = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        let mut next = |n: u64| {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (x >> 33) % n
        };
        let mut ids: Vec<String> = Vec::new();
        let mut out = String::from(
            "#- salt-analyzer.yaml\nfile_roots: {base: [srv]}\nminions:\n  m: {grains: {os: Debian}}\ndefault_minion: m\n#- srv/top.sls\nbase:\n  '*': [s2]\n",
        );
        for f in 0..3 {
            out.push_str(&format!("#- srv/s{f}.sls\n"));
            if f > 0 {
                out.push_str(&format!("include:\n  - s{}\n", f - 1));
            }
            for k in 0..3 {
                let id = if next(3) == 0 { format!("ß{f}{k}") } else { format!("s{f}_{k}") };
                let mut args: Vec<String> = Vec::new();
                if next(2) == 0 {
                    args.push(format!("name: n{f}{k}"));
                }
                if !ids.is_empty() && next(2) == 0 {
                    let target = &ids[next(ids.len() as u64) as usize];
                    let req = if next(2) == 0 { format!("- {target}") } else { format!("- test: {target}") };
                    args.push(format!("require:\n      {req}"));
                }
                // A state either requires an earlier one or is required by one (`_in`): no cycle.
                if !ids.is_empty() && args.iter().all(|a| !a.starts_with("require")) && next(3) == 0 {
                    let target = &ids[next(ids.len() as u64) as usize];
                    args.push(format!("require_in:\n      - test: {target}"));
                }
                let form = next(3);
                if form == 2 && args.is_empty() {
                    args.push(format!("marker: {f}{k}"));
                }
                let body = match (form, args.is_empty()) {
                    (0, true) => "  test.nop: []\n".to_string(),
                    (1, true) => "  test: [nop]\n".to_string(),
                    (_, _) if next(2) == 0 => format!("  test:\n    - nop\n{}", args.iter().map(|a| format!("    - {a}\n")).collect::<String>()),
                    _ => format!("  test.nop:\n{}", args.iter().map(|a| format!("    - {a}\n")).collect::<String>()),
                };
                out.push_str(&format!("{id}:\n{body}"));
                ids.push(id);
            }
            if f == 2 {
                let target = &ids[next(3) as usize];
                out.push_str(&format!("extend:\n  {target}:\n    test.nop:\n      - extended: {f}\n"));
            }
        }
        (out, ids)
    }

    /// `lowstate` of the fixture's minion as JSON (its errors, when it has them).
    fn lowstate(fixture: &str) -> serde_json::Value {
        let f = Fixture::new(fixture);
        let compiled = f.analysis().snap.compile(model::pipeline::Scope::Highstate);
        let low = compiled.low.expect("a highstate");
        match &low.chunks {
            Some(_) if low.errors().is_empty() => low.chunks_json(),
            _ => serde_json::json!({"errors": low.errors().iter().map(|e| e.message.clone()).collect::<Vec<_>>()}),
        }
    }

    /// Every string equal to `old` becomes `new`, except a `name` (which the rename keeps).
    fn substituted(v: &serde_json::Value, old: &str, new: &str) -> serde_json::Value {
        use serde_json::Value as J;
        match v {
            J::String(s) if s == old => J::String(new.to_string()),
            J::Array(xs) => J::Array(xs.iter().map(|x| substituted(x, old, new)).collect()),
            J::Object(m) => J::Object(
                m.iter()
                    .map(|(k, x)| (if k == old { new.to_string() } else { k.clone() }, if k == "name" { x.clone() } else { substituted(x, old, new) }))
                    .collect(),
            ),
            other => other.clone(),
        }
    }

    /// Rename preserves meaning: on generated trees, renaming any state ID (at its declaration)
    /// gives the lowstate of before with that ID substituted, names and order unchanged.
    #[test]
    fn rename_preserves_the_lowstate() {
        let mut renamed = 0;
        for seed in 0..25 {
            let (fixture, ids) = tree(seed);
            let before = lowstate(&fixture);
            assert!(before.is_array(), "seed {seed}: the generated tree compiles: {before}\n{fixture}");
            assert!(fixture.contains("\n  test: [nop]\n") || fixture.contains("    - nop\n") || seed > 0, "the forms are generated");
            for id in &ids {
                let new = format!("{id}-ℝ💣");
                let marked = fixture.replacen(&format!("\n{id}:\n"), &format!("\n{id}$0:\n"), 1);
                let f = Fixture::new(&marked);
                let (path, offset) = f.cursor();
                let a = f.analysis();
                let change = a.rename(&path, offset, &new).unwrap().unwrap_or_else(|why| panic!("seed {seed}, {id}: {why}\n{fixture}"));
                // The edited tree, as a fixture again.
                let mut files: Vec<(PathBuf, String)> = Vec::new();
                for (p, text) in fixture_files(&fixture) {
                    let mut text = text;
                    let mut edits: Vec<&TextEdit> = change.text_edits.iter().filter(|e| e.path == Path::new("/ws").join(&p)).collect();
                    edits.sort_by_key(|e| std::cmp::Reverse(e.range.start));
                    for e in edits {
                        text.replace_range(e.range.clone(), &e.new_text);
                    }
                    files.push((p, text));
                }
                let after_fixture: String = files.iter().map(|(p, t)| format!("#- {}\n{t}", p.display())).collect();
                let after = lowstate(&after_fixture);
                assert_eq!(after, substituted(&before, id, &new), "seed {seed}, renaming {id}:\n{fixture}\n---\n{after_fixture}");
                renamed += 1;
            }
        }
        assert_eq!(renamed, 25 * 9);
    }

    /// The files of a `#- path` fixture, in order.
    fn fixture_files(fixture: &str) -> Vec<(PathBuf, String)> {
        let mut out: Vec<(PathBuf, String)> = Vec::new();
        for line in fixture.split_inclusive('\n') {
            if let Some(p) = line.strip_prefix("#- ") {
                out.push((PathBuf::from(p.trim()), String::new()));
            } else if let Some((_, t)) = out.last_mut() {
                t.push_str(line);
            }
        }
        out
    }
}
