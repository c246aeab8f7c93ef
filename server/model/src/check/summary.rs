//! Per-file navigation data: the state IDs, include/exclude items, extend keys, requisite
//! references and `salt://` URLs of one SLS file, and the environments, targets and SLS
//! entries of one top file, each with the byte span it was written at.
//!
//! A summary is read from the file alone (no include closure), with the same static renderer
//! the checker uses ([`crate::render::render_static`]): in a templated file only what the
//! template certainly renders is listed. Editors cache one summary per file and revision.

use std::ops::Range;

use crate::render::render_static;
use crate::requisites::{is_requisite_key, REQUISITE_IN};
use crate::state::highstate::resolve_relative;
use crate::value::{Val, V};

/// What one SLS file declares and references.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SlsSummary {
    /// Top-level state declarations in file order.
    pub ids: Vec<StateDecl>,
    pub includes: Vec<IncludeItem>,
    pub excludes: Vec<ExcludeItem>,
    /// Keys of the `extend` mapping.
    pub extends: Vec<ExtendKey>,
    /// Every requisite reference (direct and `_in`), in declarations and in extends.
    pub requisites: Vec<RequisiteRef>,
    /// Every string value that is a `salt://` URL.
    pub urls: Vec<SaltUrl>,
    /// Whether the file uses Jinja (only its certain parts are listed).
    pub templated: bool,
    /// Whether the static layer could not be read at all (YAML error, unanalysable template).
    pub unreadable: bool,
}

/// A top-level state ID.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StateDecl {
    pub id: String,
    /// The ID key as written.
    pub span: Range<usize>,
    /// The whole declaration (key through body).
    pub full_span: Range<usize>,
    pub functions: Vec<StateFunction>,
    /// Values of its `name:` argument and `names:` entries: what requisites may call it.
    pub names: Vec<String>,
}

/// One state module of a declaration, such as `pkg.installed` or `pkg: [installed]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StateFunction {
    pub module: String,
    /// `None` when the function is not written (an invalid declaration).
    pub function: Option<String>,
    /// The module key (or dotted shorthand string) as written.
    pub span: Range<usize>,
    /// The `- installed` item that names the function under a plain module key.
    pub function_span: Option<Range<usize>>,
    /// The arguments given (`- name: value` items), each key as written.
    pub args: Vec<(String, Range<usize>)>,
}

/// One `include:` entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IncludeItem {
    /// The name as written, such as `..http`.
    pub raw: String,
    /// The absolute SLS name (relative names resolved), `None` when it climbs past the top.
    pub resolved: Option<String>,
    /// The environment of a `- env: name` entry; `None` means the including file's env.
    pub env: Option<String>,
    /// The name scalar.
    pub span: Range<usize>,
    /// The whole list item (the `env: name` pair for an env entry).
    pub item_span: Range<usize>,
}

/// One `exclude:` entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExcludeItem {
    /// `sls` for a plain string or `{sls: x}`, `id` for `{id: x}`.
    pub kind: String,
    pub value: String,
    pub span: Range<usize>,
}

/// One key of the `extend` mapping: the ID it extends.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExtendKey {
    pub id: String,
    pub span: Range<usize>,
    pub functions: Vec<StateFunction>,
}

/// One requisite reference such as `- require: [{pkg: nginx}]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RequisiteRef {
    /// The requisite keyword: `require`, `watch_in`, ...
    pub kind: String,
    /// `id` for a bare string, else the key written (`pkg`, `sls`, `id`).
    pub key: String,
    pub value: String,
    /// The value scalar.
    pub span: Range<usize>,
    /// The key scalar (the value's span for a bare string).
    pub key_span: Range<usize>,
    /// The ID whose declaration (or extend entry) holds it.
    pub owner: String,
    /// The state module it is an argument of.
    pub owner_module: String,
    /// Whether it is written under `extend:`.
    pub in_extend: bool,
}

impl RequisiteRef {
    /// Whether this is an `_in` requisite (the reference points at a state that gains a requisite).
    pub fn is_in(&self) -> bool {
        self.kind.ends_with("_in") || self.kind == "use"
    }
}

/// A `salt://` URL value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SaltUrl {
    pub url: String,
    /// The path after `salt://`, without the query.
    pub path: String,
    /// `?saltenv=` of the URL, if any.
    pub env: Option<String>,
    pub span: Range<usize>,
}

/// What one top file says.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TopSummary {
    pub envs: Vec<TopEnv>,
    pub templated: bool,
    pub unreadable: bool,
}

/// One environment section of a top file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TopEnv {
    pub env: String,
    pub span: Range<usize>,
    pub targets: Vec<TopTarget>,
}

/// One target of an environment section, with its options and SLS entries.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TopTarget {
    pub target: String,
    pub span: Range<usize>,
    /// `- match: ...`, defaulting to `None` (glob).
    pub matcher: Option<String>,
    pub sls: Vec<TopSls>,
    /// Whether the entries were written as a string instead of a list (`'*': web`).
    pub shorthand: bool,
    /// The value's span (the string for a shorthand).
    pub value_span: Range<usize>,
}

/// One SLS entry of a target.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TopSls {
    pub name: String,
    pub span: Range<usize>,
}

/// Summarise an SLS file. `sls` is its SLS name and `is_init` whether it is an `init.sls`
/// (both used to resolve relative includes); without a name relative includes stay unresolved.
pub fn summarize_sls(text: &str, sls: Option<&str>, is_init: bool) -> SlsSummary {
    let mut out = SlsSummary::default();
    let (root, templated) = match render_static(text, 0) {
        Ok(r) => r,
        Err(_) => {
            out.unreadable = true;
            out.templated = crate::render::is_templated(text);
            return out;
        }
    };
    out.templated = templated;
    let Some(top) = root.as_dict() else { return out };
    for (key, body) in &top.0 {
        match key.as_str() {
            Some("include") => includes(body, sls, is_init, &mut out.includes),
            Some("exclude") => excludes(body, &mut out.excludes),
            Some("extend") => {
                let Some(d) = body.as_dict() else { continue };
                for (id, ext) in &d.0 {
                    let id_s = id.py_str();
                    let functions = functions(ext);
                    out.extends.push(ExtendKey { id: id_s.clone(), span: span(id), functions });
                    state_body(ext, &id_s, true, &mut out);
                }
            }
            _ => {
                let id = key.py_str();
                let full_span = span(key).start..span(body).end.max(span(key).end);
                let decl = StateDecl { id: id.clone(), span: span(key), full_span, functions: functions(body), names: names(body) };
                out.ids.push(decl);
                state_body(body, &id, false, &mut out);
            }
        }
    }
    out
}

/// Summarise a top file.
pub fn summarize_top(text: &str) -> TopSummary {
    let mut out = TopSummary::default();
    let (root, templated) = match render_static(text, 0) {
        Ok(r) => r,
        Err(_) => {
            out.unreadable = true;
            return out;
        }
    };
    out.templated = templated;
    let Some(top) = root.as_dict() else { return out };
    for (env, targets) in &top.0 {
        let mut section = TopEnv { env: env.py_str(), span: span(env), targets: Vec::new() };
        for (target, value) in targets.as_dict().map(|d| d.0.as_slice()).unwrap_or(&[]) {
            let mut t = TopTarget { target: target.py_str(), span: span(target), matcher: None, sls: Vec::new(), shorthand: false, value_span: span(value) };
            match &value.v {
                V::Str(s) => {
                    t.shorthand = true;
                    t.sls.push(TopSls { name: s.clone(), span: span(value) });
                }
                V::List(items) => {
                    for item in items {
                        match &item.v {
                            V::Str(s) => t.sls.push(TopSls { name: s.clone(), span: span(item) }),
                            V::Dict(d) => {
                                if let Some(m) = d.get("match").and_then(Val::as_str) {
                                    t.matcher = Some(m.to_string());
                                }
                            }
                            _ => {}
                        }
                    }
                }
                _ => {}
            }
            section.targets.push(t);
        }
        out.envs.push(section);
    }
    out
}

/// The byte span a value was written at (`0..0` for synthesised values).
fn span(v: &Val) -> Range<usize> {
    v.at.as_ref().map(|l| l.span.clone()).unwrap_or(0..0)
}

fn includes(body: &Val, sls: Option<&str>, is_init: bool, out: &mut Vec<IncludeItem>) {
    for item in body.as_list().map(Vec::as_slice).unwrap_or(&[]) {
        let (env, name, item_span) = match &item.v {
            // Salt pops the last pair of a mapping entry.
            V::Dict(d) => match d.0.last() {
                Some((k, v)) => (Some(k.py_str()), v, span(k).start..span(v).end),
                None => continue,
            },
            _ => (None, item, span(item)),
        };
        let Some(raw) = name.as_str() else { continue };
        let resolved = match sls {
            Some(sls) => resolve_relative(sls, is_init, raw),
            None if !raw.starts_with('.') => Some(raw.to_string()),
            None => None,
        };
        out.push(IncludeItem { raw: raw.to_string(), resolved, env, span: span(name), item_span });
    }
}

fn excludes(body: &Val, out: &mut Vec<ExcludeItem>) {
    for item in body.as_list().map(Vec::as_slice).unwrap_or(&[]) {
        match &item.v {
            V::Str(s) => out.push(ExcludeItem { kind: "sls".into(), value: s.clone(), span: span(item) }),
            V::Dict(d) if d.len() == 1 => {
                let (k, v) = &d.0[0];
                if let Some(value) = v.as_str() {
                    out.push(ExcludeItem { kind: k.py_str(), value: value.to_string(), span: span(v) });
                }
            }
            _ => {}
        }
    }
}

/// The state modules of a declaration body.
fn functions(body: &Val) -> Vec<StateFunction> {
    let mut out = Vec::new();
    match &body.v {
        V::Str(s) => {
            let (module, function) = split_fun(s);
            out.push(StateFunction { module, function, span: span(body), function_span: None, args: Vec::new() });
        }
        V::Dict(d) => {
            for (k, run) in &d.0 {
                let Some(key) = k.as_str() else { continue };
                if key.starts_with("__") {
                    continue;
                }
                let (module, mut function) = split_fun(key);
                let mut function_span = None;
                if function.is_none() {
                    function = match &run.v {
                        V::List(args) => args.iter().find_map(|a| {
                            let f = a.as_str()?;
                            function_span = Some(span(a));
                            Some(f.to_string())
                        }),
                        V::Str(s) => Some(s.clone()),
                        _ => None,
                    };
                }
                let args = run
                    .as_list()
                    .into_iter()
                    .flatten()
                    .filter_map(|a| a.as_dict().filter(|d| d.len() == 1))
                    .filter_map(|d| d.0[0].0.as_str().map(|name| (name.to_string(), span(&d.0[0].0))))
                    .collect();
                out.push(StateFunction { module, function, span: span(k), function_span, args });
            }
        }
        _ => {}
    }
    out
}

fn split_fun(s: &str) -> (String, Option<String>) {
    match s.split_once('.') {
        Some((m, f)) => (m.to_string(), Some(f.split('.').next().unwrap_or("").to_string())),
        None => (s.to_string(), None),
    }
}

/// `name:` and `names:` values of a declaration.
fn names(body: &Val) -> Vec<String> {
    let mut out = Vec::new();
    for (_, run) in body.as_dict().map(|d| d.0.as_slice()).unwrap_or(&[]) {
        for arg in run.as_list().map(Vec::as_slice).unwrap_or(&[]) {
            let Some(d) = arg.as_dict() else { continue };
            for (k, v) in &d.0 {
                match k.as_str() {
                    Some("name") => {
                        if let Some(s) = v.as_str() {
                            push_unique(&mut out, s);
                        }
                    }
                    Some("names") => {
                        for n in v.as_list().map(Vec::as_slice).unwrap_or(&[]) {
                            let name = match &n.v {
                                V::Str(s) => Some(s.as_str()),
                                V::Dict(nd) => nd.first_key_str(),
                                _ => None,
                            };
                            if let Some(s) = name {
                                push_unique(&mut out, s);
                            }
                        }
                    }
                    _ => {}
                }
            }
        }
    }
    out
}

fn push_unique(out: &mut Vec<String>, s: &str) {
    if !out.iter().any(|x| x == s) {
        out.push(s.to_string());
    }
}

/// Requisites and URLs of one declaration (or extend entry) body.
fn state_body(body: &Val, owner: &str, in_extend: bool, out: &mut SlsSummary) {
    collect_urls(body, &mut out.urls);
    let Some(d) = body.as_dict() else { return };
    for (k, run) in &d.0 {
        let Some(key) = k.as_str() else { continue };
        if key.starts_with("__") {
            continue;
        }
        let module = key.split('.').next().unwrap_or(key).to_string();
        for arg in run.as_list().map(Vec::as_slice).unwrap_or(&[]) {
            let Some(ad) = arg.as_dict() else { continue };
            for (rk, refs) in &ad.0 {
                let kind = rk.py_str();
                if !is_requisite_key(&kind) {
                    continue;
                }
                let mut push = |key: String, key_span: Range<usize>, value: &Val| {
                    let Some(v) = value.as_str() else { return };
                    out.requisites.push(RequisiteRef {
                        kind: kind.clone(),
                        key,
                        value: v.to_string(),
                        span: span(value),
                        key_span,
                        owner: owner.to_string(),
                        owner_module: module.clone(),
                        in_extend,
                    });
                };
                let items: Vec<&Val> = match &refs.v {
                    V::List(l) => l.iter().collect(),
                    // An `_in` value may be a single `{mod: T}` map (`State.requisite_in` accepts it).
                    V::Dict(_) if REQUISITE_IN.contains(&kind.as_str()) => vec![refs],
                    _ => Vec::new(),
                };
                for item in items {
                    match &item.v {
                        V::Str(_) => push("id".into(), span(item), item),
                        V::Dict(rd) => {
                            for (rk2, rv) in &rd.0 {
                                let key = rk2.py_str();
                                let key = key.split('.').next().unwrap_or("").to_string();
                                push(key, span(rk2), rv);
                            }
                        }
                        _ => {}
                    }
                }
            }
        }
    }
}

fn collect_urls(v: &Val, out: &mut Vec<SaltUrl>) {
    match &v.v {
        V::Str(s) => {
            if let Some(rest) = s.strip_prefix("salt://") {
                let (path, query) = rest.split_once('?').unwrap_or((rest, ""));
                let env = query.split('&').find_map(|kv| kv.strip_prefix("saltenv=").or_else(|| kv.strip_prefix("env="))).map(str::to_string);
                out.push(SaltUrl { url: s.clone(), path: path.to_string(), env, span: span(v) });
            }
        }
        V::List(l) => l.iter().for_each(|x| collect_urls(x, out)),
        V::Dict(d) => d.0.iter().for_each(|(_, x)| collect_urls(x, out)),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use expect_test::expect;

    use super::*;

    fn show(text: &str, spans: &[Range<usize>]) -> String {
        spans.iter().map(|s| format!("{:?}", &text[s.clone()])).collect::<Vec<_>>().join(" ")
    }

    #[test]
    fn everything_an_sls_file_declares() {
        let text = r#"include:
  - ..http
  - dev: tools
  - 'quoted.ß'
exclude:
  - old
  - id: gone
extend:
  web_id:
    service:
      - watch:
        - file: conf
nginx:
  pkg.installed:
    - name: nginx-ℝ
    - require:
      - sls: base.repo
      - plain_id
  file.managed:
    - source: salt://web/files/nginx.conf?saltenv=dev
    - require_in:
        service: web_id
short: test.nop
"#;
        let s = summarize_sls(text, Some("example.dev.virtual"), false);
        let mut out = String::new();
        for i in &s.includes {
            out.push_str(&format!("include {} -> {:?} env {:?} at {}\n", i.raw, i.resolved, i.env, show(text, &[i.span.clone(), i.item_span.clone()])));
        }
        for e in &s.excludes {
            out.push_str(&format!("exclude {} {} at {}\n", e.kind, e.value, show(text, std::slice::from_ref(&e.span))));
        }
        for e in &s.extends {
            out.push_str(&format!("extend {} at {}\n", e.id, show(text, std::slice::from_ref(&e.span))));
        }
        for d in &s.ids {
            let funs: Vec<String> = d
                .functions
                .iter()
                .map(|f| format!("{}.{}@{}", f.module, f.function.as_deref().unwrap_or("?"), show(text, std::slice::from_ref(&f.span))))
                .collect();
            out.push_str(&format!("id {} at {} names {:?} funs {}\n", d.id, show(text, std::slice::from_ref(&d.span)), d.names, funs.join(" ")));
        }
        for r in &s.requisites {
            out.push_str(&format!(
                "req {} {}: {} owner {}/{} extend {} at {}\n",
                r.kind,
                r.key,
                r.value,
                r.owner,
                r.owner_module,
                r.in_extend,
                show(text, &[r.key_span.clone(), r.span.clone()])
            ));
        }
        for u in &s.urls {
            out.push_str(&format!("url {} env {:?} at {}\n", u.path, u.env, show(text, std::slice::from_ref(&u.span))));
        }
        expect![[r#"
            include ..http -> Some("example.http") env None at "..http" "..http"
            include tools -> Some("tools") env Some("dev") at "tools" "dev: tools"
            include quoted.ß -> Some("quoted.ß") env None at "'quoted.ß'" "'quoted.ß'"
            exclude sls old at "old"
            exclude id gone at "gone"
            extend web_id at "web_id"
            id nginx at "nginx" names ["nginx-ℝ"] funs pkg.installed@"pkg.installed" file.managed@"file.managed"
            id short at "short" names [] funs test.nop@"test.nop"
            req watch file: conf owner web_id/service extend true at "file" "conf"
            req require sls: base.repo owner nginx/pkg extend false at "sls" "base.repo"
            req require id: plain_id owner nginx/pkg extend false at "plain_id" "plain_id"
            req require_in service: web_id owner nginx/file extend false at "service" "web_id"
            url web/files/nginx.conf env Some("dev") at "salt://web/files/nginx.conf?saltenv=dev"
        "#]]
        .assert_eq(&out);
    }

    #[test]
    fn top_files() {
        let text = "base:\n  '*':\n    - common\n  'web*':\n    - match: glob\n    - web\ndev:\n  'db': db.server\n";
        let t = summarize_top(text);
        let mut out = String::new();
        for e in &t.envs {
            out.push_str(&format!("env {} at {}\n", e.env, show(text, std::slice::from_ref(&e.span))));
            for tg in &e.targets {
                let sls: Vec<String> = tg.sls.iter().map(|s| format!("{}@{}", s.name, show(text, std::slice::from_ref(&s.span)))).collect();
                out.push_str(&format!("  target {} match {:?} shorthand {} sls {}\n", tg.target, tg.matcher, tg.shorthand, sls.join(" ")));
            }
        }
        expect![[r#"
            env base at "base"
              target * match None shorthand false sls common@"common"
              target web* match Some("glob") shorthand false sls web@"web"
            env dev at "dev"
              target db match None shorthand true sls db.server@"db.server"
        "#]]
        .assert_eq(&out);
    }

    #[test]
    fn templated_and_broken_files() {
        let text = "{% set x = 1 %}\ninclude:\n  - common\n{% if x %}\n  - maybe\n{% endif %}\nid_{{ x }}:\n  test.nop: []\nsure:\n  test.nop: []\n";
        let s = summarize_sls(text, Some("t"), false);
        assert!(s.templated);
        assert_eq!(s.includes.iter().map(|i| i.raw.as_str()).collect::<Vec<_>>(), ["common"]);
        assert_eq!(s.ids.iter().map(|i| i.id.as_str()).collect::<Vec<_>>(), ["sure"]);
        let s = summarize_sls("a: [1,\n", Some("b"), false);
        assert!(s.unreadable);
        assert!(s.ids.is_empty());
    }
}
