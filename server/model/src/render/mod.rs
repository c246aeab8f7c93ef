//! Rendering one SLS file to data: the `jinja|yaml` pipe. Plain files go straight to the YAML
//! loader; templated files need the Jinja layer (not rendered yet: an explicit render error,
//! never a guess).

pub mod budget;
pub mod carry;
pub mod config_lookup;
pub mod context;
pub mod convert;
pub mod data_step;
pub mod errors;
pub mod filters;
pub mod jinja;
pub mod memo;
pub mod mutable;
pub mod probe;
pub mod pyops;
pub mod salt_fns;
pub mod stateconf;
pub mod tags;

use data_step::{clear_spans, render_data_as};
pub use data_step::{load_yaml, render_json, render_yaml};
pub use errors::place_in_template;
use errors::{jinja_error, never_run};

use crate::diagnostic::{Code, SaltError};
use crate::value::{FileId, Loc, Val, V};

/// Whether the text uses Jinja at all (Salt's default delimiters).
pub fn is_templated(text: &str) -> bool {
    text.contains("{%") || text.contains("{{") || text.contains("{#")
}

/// Render through the renderer pipe the file asks for (`#!jinja|yaml` by default): Jinja with
/// `jinja` when the file is templated, then YAML.
pub fn render_with(text: &str, file: FileId, jinja: Option<&crate::render::context::JinjaContext>) -> Result<Val, SaltError> {
    render_with_hints(text, file, jinja).map(|(v, _)| v)
}

/// [`render_with`], and a `not-analysed` hint for every Salt function the template called that
/// was not executed, at the first line of `text` that names it.
pub fn render_with_hints(text: &str, file: FileId, jinja: Option<&crate::render::context::JinjaContext>) -> Result<(Val, Vec<SaltError>), SaltError> {
    render_in_highstate(text, file, jinja, &carry::Carry::default()).map(|o| (o.val, o.hints))
}

/// One SLS file's render inside a highstate: its data, its hints, and what it leaves for the
/// files rendered after it.
pub struct Output {
    pub val: Val,
    pub hints: Vec<SaltError>,
    pub carry: carry::Carry,
}

/// [`render_with_hints`] for a file of a highstate, after the files whose renders left
/// `carry` (the context's pillar is already the carried one, [`carry::Carry::pillar_for`]).
pub fn render_in_highstate(text: &str, file: FileId, jinja: Option<&crate::render::context::JinjaContext>, carry: &carry::Carry) -> Result<Output, SaltError> {
    if let (Some(_), Some(ctx)) = (stateconf::argline(text), jinja) {
        let (val, r, conf) = stateconf::render(text, file, ctx, &carry.stateconf)?;
        let hints = r.hints.iter().map(|h| hint_at(h, text, file)).collect();
        return Ok(Output { val, hints, carry: carry.clone().with_pillars(r.pillar, r.template_pillar).with_stateconf(conf) });
    }
    let mut out = match render_template(text, file, jinja)? {
        Templated::Plain => render_data(text, None, file).map(|val| Output { val, hints: Vec::new(), carry: carry.clone() })?,
        Templated::Rendered(r) => {
            let mut val = render_data(text, Some(&r.text), file)?;
            clear_spans(&mut val, file);
            let hints = r.hints.iter().map(|h| hint_at(h, text, file)).collect();
            Output { val, hints, carry: carry.clone().with_pillars(r.pillar, r.template_pillar) }
        }
    };
    out.hints.extend(gpg_hint(text, file));
    Ok(out)
}

/// The text that starts an encrypted value the `gpg` renderer decrypts.
const PGP_BEGIN: &str = "-----BEGIN PGP MESSAGE-----";

/// The `gpg` renderer (`salt/renderers/gpg.py`) decrypts each PGP message in the data with the
/// master's keys and leaves everything else as it is. salt-analyzer has no keys and runs no
/// `gpg`: the data goes through unchanged, each encrypted value as its ciphertext (what Salt
/// gives with `gpg_decrypt_must_succeed: False`), and a file holding any says so once.
fn gpg_hint(text: &str, file: FileId) -> Option<SaltError> {
    if !renderer_pipe(text).iter().any(|p| p == "gpg") {
        return None;
    }
    let at = text.find(PGP_BEGIN)?;
    let at = syntax::line_index::line_start(text, at);
    Some(
        SaltError::new(
            Code::NotAnalysed,
            "encrypted values (`gpg` renderer) are analysed as their ciphertext: salt-analyzer has no keys and runs no `gpg`, so their plaintext is not known",
        )
        .at(Some(Loc { file, span: at..at })),
    )
}

/// A hint about a function (`` `salt['cmd.run']` is not executed ... ``) placed at the first
/// line of the template that names the function, else at its start.
fn hint_at(hint: &str, text: &str, file: FileId) -> SaltError {
    let name = hint.split_once("['").and_then(|(_, r)| r.split_once("']")).map(|(n, _)| n);
    let at = name.and_then(|n| text.find(n)).map_or(0, |o| syntax::line_index::line_start(text, o));
    SaltError::new(Code::NotAnalysed, hint.to_string()).at(Some(Loc { file, span: at..at }))
}

/// The renderer pipe a file asks for on its first line (`#!jinja|yaml`, `#!py`, `#!yaml | gpg`),
/// else Salt's default `jinja|yaml` (`salt/template.py` `check_render_pipe_str`).
pub fn renderer_pipe(text: &str) -> Vec<String> {
    match text.lines().next().and_then(|l| l.strip_prefix("#!")) {
        Some(line) => line.split('|').map(|p| p.split_whitespace().next().unwrap_or("").to_string()).collect(),
        None => vec!["jinja".into(), "yaml".into()],
    }
}

/// The first renderer of the file's pipe that salt-analyzer never runs (anything but `jinja`,
/// `yaml`, `json` and `gpg`, whose encrypted values stay ciphertext, [`gpg_hint`]): `py` and
/// `pyobjects` would execute Python, `mako` is another template language.
pub fn unsupported_renderer(text: &str) -> Option<String> {
    renderer_pipe(text).into_iter().find(|p| !matches!(p.as_str(), "jinja" | "yaml" | "json" | "gpg"))
}

/// The hint for a file whose renderer is never run here: never at all, or (a `#!stateconf`
/// file, [`stateconf`]) only in a minion's highstate.
fn not_analysed(renderer: &str, text: &str, file: FileId) -> SaltError {
    if stateconf::argline(text).is_none() {
        return never_run(renderer, file);
    }
    SaltError::new(
        Code::NotAnalysed,
        "not analysed on its own: a `stateconf` file is rendered only within a minion's highstate (what it declares depends on its SLS name and the files rendered before it), where its findings are the minion's",
    )
    .at(Some(Loc { file, span: 0..0 }))
}

/// What the template step of a file's renderer pipe gave.
pub enum Templated {
    /// The pipe has no Jinja step, or the text has no Jinja: the YAML step reads the text.
    Plain,
    /// The Jinja step's output.
    Rendered(crate::render::jinja::Rendered),
}

/// The template step of the renderer pipe `text` asks for (its `#!` line, else `jinja|yaml`):
/// an unsupported renderer and a Jinja error are render errors, a Jinja error at its line.
pub fn render_template(text: &str, file: FileId, jinja: Option<&crate::render::context::JinjaContext>) -> Result<Templated, SaltError> {
    let pipe = renderer_pipe(text);
    if let Some(other) = unsupported_renderer(text) {
        return Err(not_analysed(&other, text, file));
    }
    if !(pipe.iter().any(|p| p == "jinja") && is_templated(text)) {
        return Ok(Templated::Plain);
    }
    let Some(ctx) = jinja else {
        return Err(SaltError::new(Code::RenderError, "this SLS file uses Jinja, which salt-analyzer does not render yet").at(Some(Loc { file, span: 0..0 })));
    };
    crate::render::jinja::render(text, ctx).map(Templated::Rendered).map_err(|e| jinja_error(e, text, file))
}

/// The data step of the file's renderer pipe (`yaml`, or `json`) on `rendered` (the Jinja
/// output) or, for a plain file, on `text` itself. An error in rendered text is placed at the
/// same line number of the file, as Salt reports it, and quotes the rendered line.
pub fn render_data(text: &str, rendered: Option<&str>, file: FileId) -> Result<Val, SaltError> {
    let data = renderer_pipe(text).into_iter().rfind(|r| r == "json" || r == "yaml");
    render_data_as(data.is_some_and(|r| r == "json"), text, rendered, file)
}

/// Render for static analysis: plain files as Salt would; templated files through the Jinja
/// mask, keeping only what is certain to be rendered as written (see [`prune_templated`]).
/// Returns the value and whether the file was templated.
pub fn render_static(text: &str, file: FileId) -> Result<(Val, bool), SaltError> {
    if let Some(other) = unsupported_renderer(text) {
        return Err(not_analysed(&other, text, file));
    }
    if renderer_pipe(text).iter().all(|p| p != "jinja") || !is_templated(text) {
        return render_yaml(text, file).map(|v| (v, false));
    }
    let mut masked = syntax::jinja::mask(text);
    // A macro's, a `call`'s or a block `set`'s body is not output where it stands.
    masked.blank_detached_bodies(text);
    let Ok((node, _dups)) = syntax::yaml::load_with(&masked.text, true) else {
        // The template's static layer is not YAML by itself (a macro, a loop building keys):
        // nothing can be said without rendering it.
        return Err(SaltError::new(Code::RenderError, "the template cannot be analysed without rendering it").at(Some(Loc { file, span: 0..0 })));
    };
    let mut v = Val::from_node(&node, file);
    if !v.truthy() {
        v = Val { v: V::Dict(Default::default()), at: v.at };
    }
    prune_templated(&mut v, &masked);
    Ok((v, true))
}

fn span(v: &Val) -> std::ops::Range<usize> {
    v.at.as_ref().map(|l| l.span.clone()).unwrap_or(0..0)
}

/// Whether a value is unsure in a template: it overlaps a Jinja block or sits in a branch/loop.
/// A block collection's span runs on to the next token, over the blank lines and masked
/// statements after it (`{% set %}` on the line after a state): those are not part of it.
fn unsure(v: &Val, m: &syntax::jinja::Masked) -> bool {
    let s = span(v);
    let end = m.text.get(s.clone()).map_or(s.end, |t| s.start + t.trim_end().len());
    m.in_control_flow(s.start) || (s.start < end && m.overlaps(s.start..end))
}

/// Drop every declaration, argument, include and requisite whose text depends on Jinja,
/// so the checker only reasons about what the template certainly renders.
pub fn prune_templated(v: &mut Val, m: &syntax::jinja::Masked) {
    let text_end = m.text.len();
    let Some(top) = v.as_dict_mut() else { return };
    top.0.retain(|(k, _)| !unsure(k, m));
    // An entry whose value the mask left empty but whose lines hold Jinja (a macro call that
    // writes the body, `{{ body | yaml }}`) has a body only rendering knows.
    let ends = entry_ends(&top.0, text_end);
    let written: Vec<bool> = top.0.iter().zip(&ends).map(|((k, body), end)| empty_but_templated(k, body, *end, m)).collect();
    let mut i = 0;
    top.0.retain(|_| {
        i += 1;
        !written[i - 1]
    });
    let ends = entry_ends(&top.0, text_end);
    for ((k, body), end) in top.0.iter_mut().zip(ends) {
        match k.as_str() {
            Some("include") | Some("exclude") => {
                if let Some(l) = body.as_list_mut() {
                    l.retain(|item| !unsure(item, m));
                }
            }
            Some("extend") => {
                if let Some(d) = body.as_dict_mut() {
                    d.0.retain(|(k, _)| !unsure(k, m));
                    let ends = entry_ends(&d.0, end);
                    for ((_, b), end) in d.0.iter_mut().zip(ends) {
                        prune_body(b, end, m);
                    }
                }
            }
            _ => prune_body(body, end, m),
        }
    }
    top.0.retain(|(_, body)| !(body.as_str().is_some() && unsure(body, m)));
}

/// Where each entry of a mapping ends: where the next key starts, the last at `end`.
fn entry_ends(entries: &[(Val, Val)], end: usize) -> Vec<usize> {
    let mut out: Vec<usize> = entries.iter().skip(1).map(|(k, _)| span(k).start).collect();
    out.push(end);
    out
}

/// Whether `key`'s value is empty in the masked text while a Jinja block sits between the key
/// and `end` (the next key): the value is whatever that block writes.
fn empty_but_templated(key: &Val, value: &Val, end: usize, m: &syntax::jinja::Masked) -> bool {
    let empty = matches!(value.v, V::None) || value.as_str() == Some("");
    let from = span(key).end;
    empty && m.blocks.iter().any(|b| b.range.start >= from && b.range.start < end)
}

fn prune_body(body: &mut Val, end: usize, m: &syntax::jinja::Masked) {
    let Some(d) = body.as_dict_mut() else { return };
    d.0.retain(|(k, v)| !(unsure(k, m) || v.as_str().is_some() && unsure(v, m)));
    // `pkgrepo.managed:` followed by `{{ format_kwargs(args) }}`: the arguments are written by
    // Jinja, not missing.
    let ends = entry_ends(&d.0, end);
    let written: Vec<bool> = d.0.iter().zip(&ends).map(|((k, run), end)| empty_but_templated(k, run, *end, m)).collect();
    let mut i = 0;
    d.0.retain(|_| {
        i += 1;
        !written[i - 1]
    });
    for (_, run) in d.0.iter_mut() {
        let Some(args) = run.as_list_mut() else { continue };
        args.retain(|a| !(a.as_dict().is_none() && unsure(a, m) || unsure_key(a, m) || unsure_scalar_value(a, m)));
        for a in args.iter_mut() {
            let Some(ad) = a.as_dict_mut() else { continue };
            for (k, val) in ad.0.iter_mut() {
                if crate::requisites::is_requisite_key(&k.py_str()) {
                    if let Some(l) = val.as_list_mut() {
                        l.retain(|r| !unsure(r, m));
                    }
                }
            }
        }
    }
}

/// An argument whose value is a scalar Jinja writes (`- names: {{ list or [...] }}`): its
/// rendered value may be a list, a mapping or anything else.
fn unsure_scalar_value(a: &Val, m: &syntax::jinja::Masked) -> bool {
    a.as_dict().is_some_and(|d| d.0.iter().any(|(_, v)| !matches!(v.v, V::List(_) | V::Dict(_)) && unsure(v, m)))
}

fn unsure_key(a: &Val, m: &syntax::jinja::Masked) -> bool {
    a.as_dict().is_some_and(|d| d.keys().any(|k| unsure(k, m)))
}

#[cfg(test)]
mod gpg_tests {
    use super::*;

    #[test]
    fn gpg_values_stay_ciphertext_with_one_hint() {
        let text = "#!yaml|gpg\nß: plain\nsecret: |\n  -----BEGIN PGP MESSAGE-----\n  hQEMA💣\n  -----END PGP MESSAGE-----\n";
        let (val, hints) = render_with_hints(text, 0, None).unwrap();
        assert_eq!(val.to_json(), serde_json::json!({"ß": "plain", "secret": "-----BEGIN PGP MESSAGE-----\nhQEMA💣\n-----END PGP MESSAGE-----\n"}));
        let spans: Vec<_> = hints.iter().map(|h| (h.code, h.loc.as_ref().map(|l| l.span.clone()))).collect();
        assert_eq!(spans, [(Code::NotAnalysed, Some(text.find("  -----BEGIN").unwrap()..text.find("  -----BEGIN").unwrap()))]);
        // No encrypted value, no hint; no `gpg` in the pipe, no hint either.
        assert!(render_with_hints("#!yaml|gpg\na: 1\n", 0, None).unwrap().1.is_empty());
        assert!(render_with_hints("a: '-----BEGIN PGP MESSAGE-----'\n", 0, None).unwrap().1.is_empty());
    }
}
