//! Rendering the Jinja layer of SLS and top files as Salt's `jinja` renderer does, sandboxed:
//! grains, pillar and opts from the minion profile, the `salt` object whose functions
//! `render::salt_fns` answers (read-only ones from the profile, host-touching ones an inert
//! empty value plus a hint: we never execute a Salt module), imports resolved through the file
//! roots, and a fuel limit.

use std::sync::{Arc, Mutex};

use minijinja::value::{Object, Value as JValue};
use minijinja::{Environment, Error, ErrorKind, UndefinedBehavior};

use crate::render::context::JinjaContext;
use crate::render::salt_fns;
use crate::render::salt_fns::catalog::{ExecFunctions, Missing};
use crate::render::{budget, mutable, tags};

/// A rendered template and what it could not do for real.
pub struct Rendered {
    pub text: String,
    /// Salt functions that were called but not executed.
    pub hints: Vec<String>,
    /// The pillar Salt's functions read (`__pillar__`) as the template left it, when it
    /// changed a value in place (one dict for the run: the files rendered after it see it).
    pub pillar: Option<serde_json::Value>,
    /// The same for the template's `pillar` variable (another dict, one for the run too).
    pub template_pillar: Option<serde_json::Value>,
}

/// Why a template did not render: Jinja's wording (with `; line N` when it has a line, as
/// Salt's `SaltRenderError` says it), and that line (1-based).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RenderFailure {
    pub message: String,
    pub line: Option<usize>,
    /// When the error is inside an imported template: its root-relative path and the line
    /// there (1-based), where Salt reports it.
    pub template: Option<(String, usize)>,
    /// The Salt functions called before the error that were not executed: their real answer
    /// might have taken the template down another path.
    pub inert_calls: Vec<String>,
    /// Why a function the template used is missing, and the code that says so
    /// ([`Missing::reason`]).
    pub reason: Option<(crate::diagnostic::Code, String)>,
}

/// The stack a render runs on. A template can nest values as deep as its fuel lets it loop
/// (`{% set ns.x = [ns.x] %}` a million times: Python builds that too), and minijinja drops,
/// compares and prints nested values by recursion, which on a thread's usual 2-8 MiB stack
/// overflows (an abort, not an error) at about 50,000 levels. The fuel bounds the depth, and
/// this stack holds what the fuel allows; its pages are only reserved until touched.
const RENDER_STACK: usize = 1 << 30;

/// The threads renders run on, one per core, each with [`RENDER_STACK`]: kept for the
/// process, so a render does not fault a fresh stack in; `None` when they cannot be had.
fn render_threads() -> Option<&'static rayon_core::ThreadPool> {
    static POOL: std::sync::OnceLock<Option<rayon_core::ThreadPool>> = std::sync::OnceLock::new();
    POOL.get_or_init(|| rayon_core::ThreadPoolBuilder::new().thread_name(|i| format!("render-{i}")).stack_size(RENDER_STACK).build().ok()).as_ref()
}

/// Render `source` (a template) for `ctx`, on one of the [`render_threads`] (a render inside
/// a render, as `map.data` makes, runs where it is called; without those threads, here).
pub fn render(source: &str, ctx: &JinjaContext) -> Result<Rendered, RenderFailure> {
    match render_threads() {
        Some(threads) => threads.install(|| render_here(source, ctx)),
        None => render_here(source, ctx),
    }
}

fn render_here(source: &str, ctx: &JinjaContext) -> Result<Rendered, RenderFailure> {
    let _deadline = budget::start(ctx.budget);
    let hints = Arc::new(Mutex::new(Vec::new()));
    let mut env = Environment::new();
    // Keeps the sources, so that an error names the expression that failed.
    env.set_debug(true);
    let (source, options) = env_options(source, ctx);
    let syntax = apply_options(&mut env, &options).map_err(describe)?;
    let comments = options.get("line_comment_prefix").and_then(|v| v.as_str()).filter(|p| !p.is_empty()).map(|p| (p.to_string(), syntax.clone()));
    let source = match &comments {
        Some((prefix, syntax)) => strip_line_comments(&source, prefix, syntax),
        None => source,
    };
    let source = source.as_str();
    // `allow_undefined` makes Salt use Jinja's lenient `Undefined` instead of `StrictUndefined`.
    let lenient = ctx.opts.get("allow_undefined").is_some_and(crate::py::builtins::truthy);
    env.set_undefined_behavior(if lenient { UndefinedBehavior::Lenient } else { UndefinedBehavior::Strict });
    if lenient {
        // Jinja2's `Undefined` has length 0.
        for name in ["length", "count"] {
            env.add_filter(name, |v: JValue| if v.is_undefined() { Ok(0) } else { minijinja::filters::length(&v) });
        }
    }
    // Jinja2 drops a template's final line break (imported templates and `import_text` lose
    // theirs); Salt puts the rendered file's back afterwards.
    env.set_keep_trailing_newline(options.get("keep_trailing_newline").is_some_and(crate::py::builtins::truthy));
    // Salt's Jinja never escapes output; minijinja would JSON-escape templates named `*.yaml`
    // or `*.json` (what `import_yaml` renders) by default.
    env.set_auto_escape_callback(|_| minijinja::AutoEscape::None);
    env.set_unknown_method_callback(str_methods);
    // Jinja2 prints a value with Python's `str()` (`[1, 'a']`, `(1, 2)`, `{'k': None}`, `1e+16`),
    // after Salt's finalizer made its dicts YAML-friendly.
    env.set_formatter(|out, state, value| match budget::check().map(|_| value.kind())? {
        minijinja::value::ValueKind::String | minijinja::value::ValueKind::Undefined => minijinja::escape_formatter(out, state, value),
        minijinja::value::ValueKind::Number if value.is_integer() => minijinja::escape_formatter(out, state, value),
        _ => out.write_str(&mutable::printed(value)).map_err(Error::from),
    });
    // Bounds a runaway loop in a user's template instead of hanging the server.
    env.set_fuel(Some(5_000_000));
    let loader = ctx.loader.clone();
    let loader_syntax = syntax.clone();
    let tpldir = Mutex::new(ctx.tplfile.rsplit_once('/').map(|(d, _)| d.to_string()).unwrap_or_default());
    // What each name a template was loaded by resolved to, to place errors inside it.
    let loaded: Arc<Mutex<std::collections::HashMap<String, String>>> = Arc::default();
    let loaded_names = loaded.clone();
    env.set_loader(move |name| {
        budget::check()?;
        let Some(path) = resolve_import(name, &tpldir) else { return Ok(None) };
        if let Ok(mut l) = loaded_names.lock() {
            l.insert(name.to_string(), path.clone());
        }
        let text = loader(&path).map(|text| match &comments {
            Some((prefix, syntax)) => strip_line_comments(&text, prefix, syntax),
            None => text,
        });
        Ok(text.map(|text| super::pyops::rewrite(&mutable::wrap_literals(&tags::rewrite(&text)), &loader_syntax)))
    });
    crate::render::filters::register(&mut env, hints.clone());
    // Templates may mutate what they are given (`{% do pillar.x.update(...) %}`), as Python lets
    // them; each render gets its own copies. Salt's functions read `__pillar__`, and
    // `pillar.get` hands out its values; the `pillar` variable is another dict (Salt 3008: what
    // a template changes through one the other does not see). The files rendered after it see
    // the change through the same one ([`crate::render::carry`]).
    let pillar = mutable::watched(&ctx.pillar);
    let template_pillar = mutable::watched(ctx.template_pillar.as_ref().unwrap_or(&ctx.pillar));
    let missing: Arc<Mutex<Vec<Missing>>> = Arc::default();
    let salt = Arc::new(SaltFunctions { ctx: ctx.clone(), hints: hints.clone(), pillar: pillar.clone(), missing: missing.clone() });
    globals(&mut env, &salt);
    // Salt's SLS and template context has `salt`, `grains`, `pillar` and `opts`; the loader's
    // dunder names (`__salt__`, `__grains__`, ...) are undefined there.
    env.add_global("salt", JValue::from_dyn_object(salt));
    env.add_global("grains", mutable::watched(&ctx.grains));
    env.add_global("pillar", template_pillar.clone());
    env.add_global("opts", mutable::watched(&ctx.opts));
    mutable::register(&mut env);
    super::pyops::register(&mut env);
    tags::register(&mut env);
    if let Some(seen) = ctx.probe.clone() {
        env.add_function(crate::render::probe::PROBE, move |i: usize, v: JValue| {
            if let Ok(mut s) = seen.lock() {
                if s.len() < 100 {
                    s.push((i, v.to_string()));
                }
            }
            Ok::<_, Error>(v)
        });
    }
    if let Some(tallies) = ctx.trace.clone() {
        env.add_function(crate::render::probe::TRACE, move |i: usize, v: JValue| {
            if let Ok(mut t) = tallies.lock() {
                if i < 100_000 {
                    if t.len() <= i {
                        t.resize(i + 1, Default::default());
                    }
                    t[i].record(v.is_true(), v.len(), || mutable::py_str(&v));
                }
            }
            Ok::<_, Error>(v)
        });
    }
    env.add_global("saltenv", ctx.saltenv.clone());
    env.add_global("env", ctx.saltenv.clone());
    for (k, v) in sls_context(&ctx.sls, &ctx.tplfile, &ctx.tplpath, ctx.version) {
        env.add_global(k, v);
    }
    for (k, v) in &ctx.extra {
        env.add_global(k.clone(), mutable::mutable(JValue::from_serialize(v)));
    }
    let source = super::pyops::rewrite(&mutable::wrap_literals(&tags::rewrite(source)), &syntax);
    let place = |e: Error| {
        let missing = missing.lock().map(|m| m.clone()).unwrap_or_default();
        let mut failure = describe_in(e, Some(ctx), &missing);
        failure.inert_calls = hints.lock().map(|h| h.clone()).unwrap_or_default();
        if let Some((name, _)) = failure.template.as_mut() {
            if let Some(path) = loaded.lock().ok().and_then(|l| l.get(name.as_str()).cloned()) {
                *name = path;
            }
        }
        failure
    };
    let tmpl = env.template_from_str(&source).map_err(place)?;
    let mut text = tmpl.render(minijinja::context! {}).map_err(place)?;
    if source.ends_with('\n') {
        text.push('\n');
    }
    let hints = hints.lock().map(|h| h.clone()).unwrap_or_default();
    let changed = |v: &JValue| v.downcast_object_ref::<mutable::Watched>().and_then(mutable::Watched::changed);
    Ok(Rendered { text, hints, pillar: changed(&pillar), template_pillar: changed(&template_pillar) })
}

/// The Jinja environment options Salt's `render_jinja_tmpl` applies: `jinja_sls_env` for an
/// SLS file (a non-empty `sls`), else `jinja_env`; the deprecated `jinja_trim_blocks` and
/// `jinja_lstrip_blocks`; then the file's own `#jinja2: {json}` header on line 1, or on line 2
/// below a renderer shebang. Salt deletes the header line; it is blanked here instead, so every
/// line keeps its number (the rendered data is the same; the text has one more empty line).
fn env_options(source: &str, ctx: &JinjaContext) -> (String, serde_json::Map<String, serde_json::Value>) {
    let mut options = serde_json::Map::new();
    let which = if ctx.sls.is_empty() { "jinja_env" } else { "jinja_sls_env" };
    for deprecated in ["trim_blocks", "lstrip_blocks"] {
        if ctx.opts.get(&format!("jinja_{deprecated}")).is_some_and(crate::py::builtins::truthy) {
            options.insert(deprecated.into(), true.into());
        }
    }
    if let Some(serde_json::Value::Object(set)) = ctx.opts.get(which) {
        options.extend(set.iter().map(|(k, v)| (k.to_lowercase(), v.clone())));
    }
    let mut lines: Vec<&str> = source.split_inclusive('\n').collect();
    let idx = usize::from(lines.first().is_some_and(|l| l.starts_with("#!") && !l.starts_with("#!/")));
    let header = lines.get(idx).and_then(|l| l.strip_prefix("#jinja2:")).map(|payload| payload.trim_end_matches(['\r', '\n']));
    if let Some(serde_json::Value::Object(set)) = header.filter(|p| !p.trim().is_empty()).and_then(|p| serde_json::from_str(p).ok()) {
        options.extend(set.into_iter().map(|(k, v)| (k.to_lowercase(), v)));
        let ending = &lines[idx][lines[idx].trim_end_matches(['\r', '\n']).len()..];
        lines[idx] = ending;
        return (lines.concat(), options);
    }
    (source.to_string(), options)
}

/// Applies the options Jinja2 knows (`jinja2.defaults`) that minijinja has: the delimiters,
/// line statement and comment prefixes, `trim_blocks` and `lstrip_blocks`. Returns the syntax,
/// which our own source rewrites must parse with too.
fn apply_options(env: &mut Environment<'_>, options: &serde_json::Map<String, serde_json::Value>) -> Result<minijinja::syntax::SyntaxConfig, Error> {
    let text = |k: &str| options.get(k).and_then(|v| v.as_str());
    let mut syntax = minijinja::syntax::SyntaxConfig::builder();
    let pair = |a: &str, b: &str, da: &'static str, db: &'static str| (text(a).unwrap_or(da).to_string(), text(b).unwrap_or(db).to_string());
    let (bs, be) = pair("block_start_string", "block_end_string", "{%", "%}");
    let (vs, ve) = pair("variable_start_string", "variable_end_string", "{{", "}}");
    let (cs, ce) = pair("comment_start_string", "comment_end_string", "{#", "#}");
    syntax.block_delimiters(bs, be).variable_delimiters(vs, ve).comment_delimiters(cs, ce);
    if let Some(p) = text("line_statement_prefix") {
        syntax.line_statement_prefix(p.to_string());
    }
    let syntax = syntax.build()?;
    env.set_syntax(syntax.clone());
    let flag = |k: &str| options.get(k).is_some_and(crate::py::builtins::truthy);
    env.set_trim_blocks(flag("trim_blocks"));
    env.set_lstrip_blocks(flag("lstrip_blocks"));
    Ok(syntax)
}

/// Jinja2's line comments (`line_comment_prefix`), which minijinja removes with their line
/// break: outside tags, the prefix, the spaces before it and the rest of its line go, and the
/// line break stays (`jinja2/lexer.py`: the comment ends before `\n`).
fn strip_line_comments(src: &str, prefix: &str, syntax: &minijinja::syntax::SyntaxConfig) -> String {
    let pairs = [syntax.block_delimiters(), syntax.variable_delimiters(), syntax.comment_delimiters()];
    let mut out = String::with_capacity(src.len());
    let mut rest = src;
    while !rest.is_empty() {
        if let Some((start, end)) = pairs.iter().find(|(start, _)| rest.starts_with(&**start)) {
            let close = rest[start.len()..].find(&**end).map_or(rest.len(), |i| start.len() + i + end.len());
            out.push_str(&rest[..close]);
            rest = &rest[close..];
        } else if rest.starts_with(prefix) {
            let kept = out.trim_end_matches([' ', '\t']).len();
            out.truncate(kept);
            rest = &rest[rest.find('\n').unwrap_or(rest.len())..];
        } else {
            let c = rest.chars().next().map_or(1, char::len_utf8);
            out.push_str(&rest[..c]);
            rest = &rest[c..];
        }
    }
    out
}

/// The path an import names, as `SaltCacheLoader.get_source` (`salt/utils/jinja.py`)
/// finds it: a name starting with `./` or `../` is relative to the loader's current `tpldir`
/// (the rendered file's directory, then the directory of the last file imported by an absolute
/// name: Salt keeps it in the environment's globals), and may not climb out of the file roots;
/// any other name is relative to the roots and makes its directory the current `tpldir`.
fn resolve_import(name: &str, tpldir: &Mutex<String>) -> Option<String> {
    // The loader takes paths relative to the roots: `salt://x` is a template named so, which
    // does not exist (`TemplateNotFound`).
    if name.contains("://") {
        return None;
    }
    if matches!(name.split('/').next(), Some(".") | Some("..")) {
        let base = tpldir.lock().ok()?.clone();
        let mut parts: Vec<&str> = Vec::new();
        for part in base.split('/').chain(name.split('/')) {
            match part {
                "" | "." => {}
                ".." => {
                    // `os.path.normpath` keeps a leading `..`, which Salt then refuses.
                    parts.pop()?;
                }
                p => parts.push(p),
            }
        }
        return Some(parts.join("/"));
    }
    if let Ok(mut dir) = tpldir.lock() {
        *dir = name.rsplit_once('/').map(|(d, _)| d.to_string()).unwrap_or_default();
    }
    Some(name.to_string())
}

/// `salt.utils.templates.generate_sls_context(tplpath, sls)`: the file's name relative to its
/// root is the tail of its path that the SLS name spells (`/formulas/x` keeps its slash:
/// `tplfile` `/formulas/x.sls`, `tpldir` `/formulas`; `pkg.`, what `include: [.]` names, is
/// `pkg`). A top file (no SLS name) is its base name; a file the name does not spell is not an
/// SLS being processed, where Salt sets only `tplfile` and `tpldir` (the name's parent) and we
/// keep the file's own directory for the rest.
fn sls_context(sls: &str, tplfile: &str, tplpath: &str, version: crate::version::SaltVersion) -> Vec<(&'static str, String)> {
    let slspath = sls.replace('.', "/");
    // 3008 strips the trailing `/` of `pkg.`'s path; 3006 and 3007 keep it, so `pkg.` spells
    // neither `pkg/.sls` nor `pkg//init.sls`.
    let slspath = if version >= crate::version::SaltVersion::V3008 { slspath.trim_end_matches('/') } else { slspath.as_str() };
    let tail = |n: usize| -> String {
        let chars: Vec<char> = tplpath.chars().collect();
        chars[chars.len().saturating_sub(n)..].iter().collect()
    };
    let template = if sls.is_empty() {
        Some(tplpath.rsplit('/').next().unwrap_or(tplpath).to_string())
    } else if tplpath.ends_with(&format!("{slspath}.sls")) {
        Some(tail(4 + slspath.chars().count()))
    } else if tplpath.ends_with(&format!("{slspath}/init.sls")) {
        Some(tail(9 + slspath.chars().count()))
    } else {
        None
    };
    let (tplfile, dir) = match template {
        Some(t) => {
            let dir = t.rsplit_once('/').map(|(d, _)| d.to_string()).unwrap_or_default();
            (t, dir)
        }
        // 3006 and 3007 ("Failed to determine proper template path"): the whole path, and its
        // directory for the rest.
        None if version < crate::version::SaltVersion::V3008 && !tplpath.is_empty() => {
            (tplpath.to_string(), tplpath.rsplit_once('/').map(|(d, _)| d.to_string()).unwrap_or_default())
        }
        // Not an SLS this name loads (a managed file's template): the file's own directory.
        None => (tplfile.to_string(), tplfile.rsplit_once('/').map(|(d, _)| d.to_string()).unwrap_or_default()),
    };
    vec![
        ("sls", sls.to_string()),
        ("tplfile", tplfile),
        ("tplpath", tplpath.to_string()),
        ("tpldir", if dir.is_empty() { ".".into() } else { dir.clone() }),
        ("tpldot", dir.replace('/', ".")),
        ("slspath", dir.clone()),
        ("slsdotpath", dir.replace('/', ".")),
        ("slscolonpath", dir.replace('/', ":")),
        ("sls_path", dir.replace('/', "_")),
    ]
}

/// The name minijinja gives the template rendered from a string.
const TOP: &str = "<string>";

fn describe(e: Error) -> RenderFailure {
    describe_in(e, None, &[])
}

/// [`describe`], naming what is undefined from the render's context when there is one, and
/// the `salt` functions the template looked up and the minion lacks (`missing`).
fn describe_in(e: Error, ctx: Option<&JinjaContext>, missing: &[Missing]) -> RenderFailure {
    let mut reason = None;
    let mut message = match missing_in(&e, missing) {
        Some(m) => {
            reason = m.reason.clone().map(|r| (m.code, r));
            format!("Jinja variable {}", m.message())
        }
        None if e.kind() == ErrorKind::UndefinedError => format!("Jinja variable {}", undefined(&e, ctx)),
        None => e.to_string(),
    };
    if let Some(line) = e.line() {
        message = format!("{message}; line {line}");
    }
    // The innermost error raised inside an imported template: where Salt reports it.
    let mut template = e.name().filter(|n| *n != TOP).zip(e.line()).map(|(n, l)| (n.to_string(), l));
    // An error inside an imported template is wrapped ("could not render include"): say what
    // went wrong there, and where.
    let mut inner: Option<&(dyn std::error::Error + 'static)> = std::error::Error::source(&e);
    while let Some(cause) = inner {
        match cause.downcast_ref::<Error>() {
            Some(c) => {
                let at = match (c.name(), c.line()) {
                    (Some(n), Some(l)) => format!(" ({n}, line {l})"),
                    _ => String::new(),
                };
                if let (Some(n), Some(l)) = (c.name().filter(|n| *n != TOP), c.line()) {
                    template = Some((n.to_string(), l));
                }
                let what = match (missing_in(c, missing), c.kind()) {
                    (Some(m), _) => {
                        reason = m.reason.clone().map(|r| (m.code, r));
                        format!("Jinja variable {}", m.message())
                    }
                    (None, ErrorKind::UndefinedError) => format!("Jinja variable {}", undefined(c, ctx)),
                    (None, _) => c.detail().map(str::to_string).unwrap_or_else(|| c.kind().to_string()),
                };
                message = format!("{message}: {what}{at}");
            }
            None => message = format!("{message}: {cause}"),
        }
        inner = cause.source();
    }
    RenderFailure { message, line: e.line(), template, inert_calls: Vec::new(), reason }
}

/// The lookup of a function the minion lacks that failed as `e`: the last one whose key the
/// failing expression names (`salt['nope.fn']()`, `salt.nope.fn()`, `salt.test.nope()`). A
/// lookup that only tested it (`salt['x.y'] is defined`) is not named by a later error.
fn missing_in<'m>(e: &Error, missing: &'m [Missing]) -> Option<&'m Missing> {
    // Using an undefined value: printing it, or (minijinja's words) calling it or a method of it.
    let undefined =
        e.kind() == ErrorKind::UndefinedError || e.detail().is_some_and(|d| d.contains("value of type undefined") || d.starts_with("undefined has no method"));
    if !undefined || missing.is_empty() {
        return None;
    }
    // The span may start inside the chain (`.fn('x')` of `salt.nope.fn('x')`): widen it.
    let (src, r) = e.template_source().zip(e.range())?;
    let start = src.get(..r.start)?.trim_end_matches(|c: char| c.is_alphanumeric() || c == '_' || c == '.').len();
    let text = src.get(start..r.end)?;
    missing.iter().rev().find(|m| {
        let quoted = [format!("'{}'", m.key), format!("\"{}\"", m.key), format!(".{}", m.key)];
        quoted.iter().any(|q| text.contains(q.as_str()))
    })
}

/// What is undefined, in Jinja2's words under Salt: `'home_base' is undefined` for a name,
/// `'dict object' has no attribute 'workers'` for a key a mapping lacks. The failing span is
/// the whole expression, so its chains (`a.b['c']`) are walked: a root the template never
/// defined is the undefined name; a chain from `grains` or `pillar` is followed through the
/// context's data to the key that is missing; a local one step deep (`d.k`) lacks that key.
fn undefined(e: &Error, ctx: Option<&JinjaContext>) -> String {
    if let Some(named) = ctx.and_then(|ctx| undefined_in_chain(e, ctx)) {
        return named;
    }
    undefined_name(e)
}

fn undefined_in_chain(e: &Error, ctx: &JinjaContext) -> Option<String> {
    let src = e.template_source()?;
    let r = e.range()?;
    // The span may start inside a chain (`.os.x` of `grains.os.x`), or be a filter's name
    // (`yaml` of `nope | yaml`): widen it to the chains before.
    let mut start = r.start;
    loop {
        start = src[..start].trim_end_matches(|c: char| c.is_alphanumeric() || c == '_' || c == '.').len();
        match src[..start].trim_end().strip_suffix('|') {
            Some(before) => start = before.trim_end().len(),
            None => break,
        }
    }
    let text = src.get(start..r.end)?;
    let debug = e.display_debug_info().to_string();
    let defined = |name: &str| debug.lines().any(|l| l.strip_prefix("    ").and_then(|l| l.strip_prefix(name)).is_some_and(|rest| rest.starts_with(':')));
    for (root, path) in chains(text) {
        let data = match root.as_str() {
            "grains" => Some(ctx.grains.first_step(path.first().map(String::as_str))),
            "pillar" => Some(ctx.pillar.first_step(path.first().map(String::as_str))),
            _ => None,
        };
        let Some(mut value) = data else {
            if !defined(&root) {
                return Some(format!("'{root}' is undefined"));
            }
            // A local one key deep that prints as a mapping.
            let dict = debug.lines().any(|l| l.strip_prefix("    ").and_then(|l| l.strip_prefix(root.as_str())).is_some_and(|rest| rest.starts_with(": {")));
            if let [key] = path.as_slice() {
                if dict {
                    return Some(format!("'dict object' has no attribute '{key}'"));
                }
            }
            continue;
        };
        for (depth, key) in path.iter().enumerate() {
            match value.get(key) {
                Some(next) if value.is_object() => value = next,
                _ => {
                    let what = match value {
                        serde_json::Value::Object(_) if depth == 0 => top_mapping_type(ctx.version, &root),
                        serde_json::Value::Object(_) => "'dict object'",
                        serde_json::Value::Array(_) => "'list object'",
                        serde_json::Value::String(_) => "'str object'",
                        serde_json::Value::Bool(_) => "'bool object'",
                        serde_json::Value::Number(n) if n.is_f64() => "'float object'",
                        serde_json::Value::Number(_) => "'int object'",
                        serde_json::Value::Null => "'None'",
                    };
                    let mut message = format!("{what} has no attribute '{key}'");
                    if root == "grains" && depth == 0 {
                        message.push_str(&format!(
                            " (the grain '{key}' is not in this profile; on a minion Salt's core grains may set it: add it to the profile, or use `grains_file`)"
                        ));
                    }
                    return Some(message);
                }
            }
        }
    }
    None
}

/// What Jinja calls the `grains` or `pillar` mapping of an SLS render in its "has no attribute"
/// message: Salt 3008 hands both over as `salt.utils.optsdict.DictProxy`; 3007 as plain dicts;
/// 3006 the grains as a dict and the pillar in the loader's
/// `salt.utils.context.NamespacedDictWrapper`.
fn top_mapping_type(version: crate::version::SaltVersion, root: &str) -> &'static str {
    use crate::version::SaltVersion::*;
    match (version, root) {
        (V3008, _) => "'salt.utils.optsdict.DictProxy object'",
        (V3006, "pillar") => "'salt.utils.context.NamespacedDictWrapper object'",
        _ => "'dict object'",
    }
}

/// The name chains of an expression's text (`grains.os`, `pillar['a']["b"]`), each as its
/// root name and the keys after it; chains that call something stop before the call, and
/// names of filters and tests, keywords and text inside string literals are skipped.
fn chains(text: &str) -> Vec<(String, Vec<String>)> {
    const KEYWORDS: &[&str] =
        &["if", "elif", "else", "for", "in", "and", "or", "not", "is", "set", "true", "false", "none", "True", "False", "None", "do", "with"];
    let b = text.as_bytes();
    let ident = |i: usize| {
        let mut j = i;
        while j < b.len() && (b[j].is_ascii_alphanumeric() || b[j] == b'_') {
            j += 1;
        }
        j
    };
    let string = |i: usize| {
        let q = b[i];
        let mut j = i + 1;
        while j < b.len() && b[j] != q {
            j += if b[j] == b'\\' { 2 } else { 1 };
        }
        (j < b.len()).then(|| (text[i + 1..j].to_string(), j + 1))
    };
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c == b'\'' || c == b'"' {
            i = string(i).map_or(b.len(), |(_, end)| end);
            continue;
        }
        if !(c.is_ascii_alphabetic() || c == b'_') || (i > 0 && (b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_' || b[i - 1] == b'.')) {
            i += 1;
            continue;
        }
        let end = ident(i);
        let root = &text[i..end];
        let before = text[..i].trim_end();
        let skip = KEYWORDS.contains(&root) || before.ends_with('|') || before.ends_with(" is") || before.ends_with(" is not");
        let mut path = Vec::new();
        let mut j = end;
        loop {
            if j < b.len() && b[j] == b'.' && j + 1 < b.len() && (b[j + 1].is_ascii_alphabetic() || b[j + 1] == b'_') {
                let k = ident(j + 1);
                path.push(text[j + 1..k].to_string());
                j = k;
            } else if j + 1 < b.len() && b[j] == b'[' && (b[j + 1] == b'\'' || b[j + 1] == b'"') {
                match string(j + 1) {
                    Some((key, after)) if b.get(after) == Some(&b']') => {
                        path.push(key);
                        j = after + 1;
                    }
                    _ => break,
                }
            } else {
                break;
            }
        }
        if b.get(j) == Some(&b'(') {
            // A call: what it returns is not known here; nor is its root's path.
            if path.pop().is_none() {
                i = j;
                continue;
            }
        }
        if !skip {
            out.push((root.to_string(), path));
        }
        i = j.max(i + 1);
    }
    out
}

/// What is undefined, in Jinja2's words when the failing expression is a plain name
/// (`'home_base' is undefined`).
fn undefined_name(e: &Error) -> String {
    // The failing span is the undefined name only when it is a name in its own right: not
    // a filter's or test's name (`x | yaml`), nor an attribute (`a.b`).
    let expr = e
        .template_source()
        .zip(e.range())
        .filter(|(src, r)| !src.get(..r.start).unwrap_or("").trim_end().ends_with(['|', '.']) && !src.get(..r.start).unwrap_or("").trim_end().ends_with(" is"))
        .and_then(|(src, r)| src.get(r))
        .map(str::trim)
        .unwrap_or("");
    let ident = |s: &str| !s.is_empty() && s.chars().all(|c| c.is_alphanumeric() || c == '_') && !s.starts_with(|c: char| c.is_ascii_digit());
    if ident(expr) {
        return format!("'{expr}' is undefined");
    }
    e.detail().unwrap_or("is undefined").to_string()
}

/// Python `str` methods formulas call that minijinja's Python compatibility lacks
/// (`partition`, `rpartition`, `rsplit`, `zfill`, `ljust`, `rjust`, `center`, `swapcase`,
/// `istitle`, `removeprefix`, `removesuffix`, `index`, `rindex`) or answers otherwise
/// (`capitalize` and `title`, which title-case `ß` as `Ss`; `find` and `rfind`, which count
/// characters, not bytes); everything else goes to it.
fn str_methods(state: &minijinja::State, value: &JValue, method: &str, args: &[JValue]) -> Result<JValue, Error> {
    budget::check()?;
    if let Some(s) = value.as_str() {
        let arg = |i: usize| args.get(i).and_then(|a| a.as_str().map(str::to_string));
        let triple = |a: &str, b: &str, c: &str| JValue::from(vec![JValue::from(a), JValue::from(b), JValue::from(c)]);
        match method {
            "partition" | "rpartition" => {
                let sep = arg(0).filter(|sep| !sep.is_empty()).ok_or_else(|| Error::new(ErrorKind::InvalidOperation, "empty separator"))?;
                let found = if method == "partition" { s.find(&sep) } else { s.rfind(&sep) };
                return Ok(match (found, method) {
                    (Some(i), _) => triple(&s[..i], &sep, &s[i + sep.len()..]),
                    (None, "partition") => triple(s, "", ""),
                    (None, _) => triple("", "", s),
                });
            }
            "rsplit" => {
                let max = args.get(1).and_then(|m| i64::try_from(m.clone()).ok()).unwrap_or(-1);
                let mut parts: Vec<String> = match arg(0) {
                    Some(sep) if max >= 0 => s.rsplitn(max as usize + 1, sep.as_str()).map(str::to_string).collect(),
                    Some(sep) => s.rsplit(sep.as_str()).map(str::to_string).collect(),
                    None if max >= 0 => {
                        // Whitespace runs, from the right, at most `max` splits.
                        let mut out: Vec<String> = Vec::new();
                        let mut rest = s.trim_end();
                        while (out.len() as i64) < max {
                            match rest.rfind(char::is_whitespace) {
                                Some(i) => {
                                    out.push(rest[i..].trim_start().to_string());
                                    rest = rest[..i].trim_end();
                                }
                                None => break,
                            }
                        }
                        if !rest.is_empty() {
                            out.push(rest.to_string());
                        }
                        out
                    }
                    None => s.split_whitespace().rev().map(str::to_string).collect(),
                };
                parts.reverse();
                return Ok(JValue::from(parts));
            }
            "capitalize" if args.is_empty() => return Ok(JValue::from(crate::py::builtins::capitalize(s))),
            "ljust" | "rjust" | "center" => {
                use crate::py::builtins::{pad, Align};
                let width = args
                    .first()
                    .and_then(|w| i64::try_from(w.clone()).ok())
                    .ok_or_else(|| Error::new(ErrorKind::InvalidOperation, format!("{method}() takes an integer width")))?;
                if width > 1 << 20 {
                    return Err(Error::new(ErrorKind::InvalidOperation, "width too big"));
                }
                let fill = match args.get(1) {
                    None => ' ',
                    Some(f) => {
                        let mut chars = f.as_str().map(str::chars).into_iter().flatten();
                        match (chars.next(), chars.next()) {
                            (Some(c), None) => c,
                            _ => return Err(Error::new(ErrorKind::InvalidOperation, "The fill character must be exactly one character long")),
                        }
                    }
                };
                let align = match method {
                    "ljust" => Align::Left,
                    "rjust" => Align::Right,
                    _ => Align::Center,
                };
                return Ok(JValue::from(pad(s, width.max(0) as usize, fill, align)));
            }
            "swapcase" if args.is_empty() => return Ok(JValue::from(crate::py::builtins::swapcase(s))),
            "istitle" if args.is_empty() => return Ok(JValue::from(crate::py::builtins::istitle(s))),
            "removeprefix" | "removesuffix" => {
                let affix = arg(0).ok_or_else(|| Error::new(ErrorKind::InvalidOperation, format!("{method}() argument must be str")))?;
                let rest = if method == "removeprefix" { s.strip_prefix(affix.as_str()) } else { s.strip_suffix(affix.as_str()) };
                return Ok(JValue::from(rest.unwrap_or(s)));
            }
            "find" | "rfind" | "index" | "rindex" => {
                let sub = arg(0).ok_or_else(|| Error::new(ErrorKind::InvalidOperation, format!("{method}() argument must be str")))?;
                let bound = |i: usize| args.get(i).filter(|v| !v.is_none()).and_then(|v| i64::try_from(v.clone()).ok());
                let at = crate::py::builtins::find(s, &sub, bound(1), bound(2), method.starts_with('r'));
                if at < 0 && method.ends_with("index") {
                    return Err(Error::new(ErrorKind::InvalidOperation, "substring not found"));
                }
                return Ok(JValue::from(at));
            }
            "title" if args.is_empty() => return Ok(JValue::from(crate::py::builtins::title(s))),
            "zfill" => {
                let width = args.first().and_then(|w| usize::try_from(w.clone()).ok()).unwrap_or(0);
                if width > 1 << 20 {
                    return Err(Error::new(ErrorKind::InvalidOperation, "width too big"));
                }
                let len = s.chars().count();
                if len >= width {
                    return Ok(JValue::from(s));
                }
                let (sign, digits) = if s.starts_with(['+', '-']) { s.split_at(1) } else { ("", s) };
                return Ok(JValue::from(format!("{sign}{}{digits}", "0".repeat(width - len))));
            }
            _ => {}
        }
    }
    minijinja_contrib::pycompat::unknown_method_callback(state, value, method, args)
}

/// The `salt` object: `salt['mod.fun'](...)` and `salt.mod.fun(...)`.
#[derive(Debug)]
struct SaltFunctions {
    ctx: JinjaContext,
    hints: Arc<Mutex<Vec<String>>>,
    pillar: JValue,
    /// The lookups of functions the minion lacks, for the error that names one.
    missing: Arc<Mutex<Vec<Missing>>>,
}

impl Object for SaltFunctions {
    /// Salt's loader is not a `Mapping` to Jinja's `is mapping` test.
    fn repr(self: &Arc<Self>) -> minijinja::value::ObjectRepr {
        minijinja::value::ObjectRepr::Plain
    }
    /// A function or module the minion lacks is undefined (Salt's loader raises `KeyError`,
    /// and Jinja makes that its `StrictUndefined`).
    fn get_value(self: &Arc<Self>, key: &JValue) -> Option<JValue> {
        let name = key.as_str()?.to_string();
        if name.contains('.') {
            if let Some(m) = self.exec().and_then(|e| e.item(&name)).filter(|_| !self.pinned(&name)) {
                return self.lacks(m);
            }
            return Some(function(self.clone(), name));
        }
        if let Some(m) = self.exec().and_then(|e| e.module(&name)).filter(|_| !self.pinned_module(&name)) {
            return self.lacks(m);
        }
        // `salt.pillar` then `.get`: a namespace object.
        Some(JValue::from_object(Namespace { salt: self.clone(), module: name }))
    }
}

#[derive(Debug)]
struct Namespace {
    salt: Arc<SaltFunctions>,
    module: String,
}

impl Object for Namespace {
    fn get_value(self: &Arc<Self>, key: &JValue) -> Option<JValue> {
        let function = key.as_str()?;
        if let Some(m) = self.lacks(function) {
            return self.salt.lacks(m);
        }
        Some(self::function(self.salt.clone(), format!("{}.{function}", self.module)))
    }
    /// `salt.pillar.get(...)` is a method call on the namespace: answer it directly, before
    /// the Python-compatibility methods (`dict.get`) could claim it.
    fn call_method(self: &Arc<Self>, _state: &minijinja::State<'_, '_>, method: &str, args: &[JValue]) -> Result<JValue, Error> {
        if let Some(m) = self.lacks(method) {
            let message = m.message();
            self.salt.lacks(m);
            return Err(Error::new(ErrorKind::UndefinedError, message));
        }
        self.salt.invoke(&format!("{}.{method}", self.module), args)
    }
}

impl Namespace {
    /// `function` is not in this module of the minion.
    fn lacks(&self, function: &str) -> Option<Missing> {
        let name = format!("{}.{function}", self.module);
        self.salt.exec()?.attribute(&self.module, function).filter(|_| !self.salt.pinned(&name))
    }
}

fn function(salt: Arc<SaltFunctions>, name: String) -> JValue {
    JValue::from_function(move |args: &[JValue]| -> Result<JValue, Error> { salt.invoke(&name, args) })
}

/// The globals Salt adds to every Jinja environment (`salt/utils/templates.py`
/// `render_jinja_tmpl` and the `@jinja_global` functions): `ifelse`, `raise` and
/// `show_full_context` (`odict` is with the mutable dicts, in `mutable.rs`).
fn globals(env: &mut Environment<'_>, salt: &Arc<SaltFunctions>) {
    let s = salt.clone();
    env.add_function("ifelse", move |args: &[JValue]| {
        let positional = args.iter().filter(|v| !v.is_kwargs()).count();
        match positional {
            1 => s.invoke("match.ifelse", args),
            n if n % 2 == 0 => s.invoke("match.ifelse", args),
            _ => Err(Error::new(ErrorKind::InvalidOperation, "name '__context__' is not defined")),
        }
    });
    // `salt.utils.jinja.jinja_raise`: a `TemplateError` with the message.
    env.add_function("raise", |msg: JValue| -> Result<JValue, Error> { Err(Error::new(ErrorKind::InvalidOperation, mutable::py_str(&msg))) });
    env.add_function("show_full_context", |state: &minijinja::State<'_, '_>| -> JValue {
        let mut names: Vec<String> = state.known_variables().into_iter().map(|n| n.to_string()).collect();
        names.sort();
        let map: indexmap::IndexMap<JValue, JValue> = names
            .into_iter()
            .filter_map(|n| state.lookup(&n).filter(|v| !matches!(v.kind(), minijinja::value::ValueKind::Invalid)).map(|v| (JValue::from(n), v)))
            .collect();
        JValue::from_object(mutable::MDict(Mutex::new(map), false))
    });
}

impl SaltFunctions {
    fn exec(&self) -> Option<&ExecFunctions> {
        self.ctx.exec.as_deref()
    }

    /// The profile pins answers for `name` (`functions:`): the user says it exists.
    fn pinned(&self, name: &str) -> bool {
        self.ctx.functions.get(name).is_some()
    }

    fn pinned_module(&self, module: &str) -> bool {
        self.ctx.functions.as_object().is_some_and(|f| f.keys().any(|k| k.split_once('.').is_some_and(|(m, _)| m == module)))
    }

    /// Records the lookup of something the minion lacks; it is undefined.
    fn lacks(&self, m: Missing) -> Option<JValue> {
        if let Ok(mut all) = self.missing.lock() {
            all.push(m);
        }
        None
    }

    fn invoke(&self, name: &str, args: &[JValue]) -> Result<JValue, Error> {
        budget::check()?;
        salt_fns::call(&self.ctx, &self.hints, Some(&self.pillar), name, args)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ctx() -> JinjaContext {
        JinjaContext {
            grains: crate::workspace::facts::Data::new(crate::workspace::facts::Which::Grains, serde_json::json!({"os": "Debian", "roles": ["web"]})),
            pillar: crate::workspace::facts::Data::new(crate::workspace::facts::Which::Pillar, serde_json::json!({"db": {"port": 6432}})),
            opts: crate::workspace::facts::Data::new(crate::workspace::facts::Which::Opts, serde_json::json!({})),
            saltenv: "base".into(),
            sls: "web.tls".into(),
            tplfile: "web/tls.sls".into(),
            tplpath: "/srv/salt/web/tls.sls".into(),
            loader: Arc::new(|name| (name == "map.jinja").then(|| "{% set port = 80 %}".to_string())),
            probe: None,
            trace: None,
            matcher: None,
            map_data: None,
            extra: Vec::new(),
            functions: serde_json::Value::Null,
            list_states: None,
            template_pillar: None,
            budget: budget::DEFAULT,
            version: Default::default(),
            exec: None,
        }
    }

    #[test]
    fn an_undefined_grain_or_pillar_key_names_the_mapping_each_release_hands_over() {
        use crate::version::SaltVersion::*;
        let said = |version, src: &str| render(src, &JinjaContext { version, ..ctx() }).err().map(|e| e.message).unwrap_or_default();
        for (version, grains, pillar) in [
            (V3008, "'salt.utils.optsdict.DictProxy object'", "'salt.utils.optsdict.DictProxy object'"),
            (V3007, "'dict object'", "'dict object'"),
            (V3006, "'dict object'", "'salt.utils.context.NamespacedDictWrapper object'"),
        ] {
            let g = said(version, "x: {{ grains.zz }}\n");
            assert!(g.contains(&format!("{grains} has no attribute 'zz'")), "{version}: {g}");
            let p = said(version, "x: {{ pillar.nosuch }}\n");
            assert!(p.contains(&format!("{pillar} has no attribute 'nosuch'")), "{version}: {p}");
        }
    }

    #[test]
    fn a_render_past_its_wall_clock_budget_stops_with_one_error() {
        // Heavy work in our own filters, well within the fuel: it renders in full under the
        // default budget, and stops at the first filter call past a budget of zero (a real
        // budget is seconds; zero makes the test independent of the machine's speed).
        let src = "ok: 1\n{% set big = range(300) | list %}{% for i in range(40) %}{% set y = big | yaml | load_yaml | json %}{% if loop.last %}done: {{ y | length }}{% endif %}{% endfor %}\n";
        let full = render(src, &ctx()).map(|r| r.text);
        assert!(full.as_ref().is_ok_and(|t| t.ends_with("done: 1390\n")), "{full:?}");
        let slow = JinjaContext { budget: std::time::Duration::ZERO, ..ctx() };
        let e = render(src, &slow).err().unwrap();
        assert_eq!(e.line, Some(2), "{e:?}");
        assert!(e.message.contains("rendering this file took longer than the 0 ms salt-analyzer gives one file, so it was stopped"), "{e:?}");
        // As the compile reports it: one render error at the file, at that line.
        let err = crate::render::render_with(src, 7, Some(&slow)).unwrap_err();
        assert_eq!((err.code, err.loc.map(|l| (l.file, l.span.start))), (crate::diagnostic::Code::RenderError, Some((7, 6))));
        // The deadline ends with the render: the next one on this thread has its own.
        assert!(render(src, &ctx()).is_ok());
    }

    #[test]
    fn values_nested_as_deep_as_the_fuel_allows_are_dropped_compared_and_printed() {
        // Found by fuzzing (render_template): a namespace carrying a list into itself 100,000
        // times overflowed the stack when minijinja dropped the value (the process aborted).
        // Python builds and drops such values; printing one raises RecursionError there, and
        // prints as deep as it goes here.
        for (src, want) in [
            ("{% set ns = namespace(x=[]) %}{% for i in range(100000) %}{% set ns.x = [ns.x] %}{% endfor %}ok", Some("ok")),
            ("{% set ns = namespace(x=[]) %}{% for i in range(100000) %}{% set ns.x = [ns.x] | list %}{% endfor %}{{ ns.x == ns.x }}", Some("True")),
            ("{% set l = [] %}{% set ns = namespace(c=l) %}{% for i in range(100000) %}{% set n = {} %}{% do ns.c.update({'k': n}) %}{% set ns.c = n %}{% endfor %}{{ (l | json)[:3] }}", None),
        ] {
            let got = render(src, &ctx());
            match want {
                Some(w) => assert_eq!(got.map(|r| r.text).as_deref(), Ok(w), "{src}"),
                None => drop(got),
            }
        }
    }

    #[test]
    fn chains_of_an_expression() {
        let got = chains("if grains.os['x'] == d.k and 'a.b' | f(z) is defined and s.get('k').m and not q(1)");
        let want: Vec<(String, Vec<String>)> =
            vec![("grains".into(), vec!["os".into(), "x".into()]), ("d".into(), vec!["k".into()]), ("z".into(), vec![]), ("s".into(), vec![])];
        assert_eq!(got, want);
    }

    #[test]
    fn regex_replace_is_python_re_sub() {
        // Python: re.sub('(\\w+)@(\\w+)', r'\2 at \g<1>', 'ß@x, y@z') == 'x at ß, z at y'
        // (in a Jinja string literal the backslashes are doubled, as in Python's).
        let src = r"{{ 'ß@x, y@z' | regex_replace('(\\w+)@(\\w+)', '\\2 at \\g<1>') }} {{ 'AbA' | regex_replace('a', '-', ignorecase=True) }}";
        assert_eq!(render(src, &ctx()).unwrap().text, "x at ß, z at y -b-");
    }

    #[test]
    fn values_print_as_salt_prints_them() {
        // Salt 3008.4's render_jinja_tmpl: str() after SerializerExtension.finalizer, whose
        // PrintableDict writes a string value with a break or a tab as YAML double quotes.
        let src = r#"{{ {'a': 'x\ty ß💣 "q" \\'} }}|{{ {'k': {'n': 'a\nb'}, 'l': ['a\nb']} }}|{{ {'a': 1.0} | string }}|{{ [{'a': 'x\ny'}] }}|{{ ({'a': 'x\ny'},) }}|{{ {'a': (1, 2)} }}|{{ none }}|{{ 1e16 }}|{{ [none, true, "it's"] }}|{{ {'x': 1} | items | list }}|{{ (1, 2) | is_list }}"#;
        assert_eq!(
            render(src, &ctx()).unwrap().text,
            r#"{'a': "x\ty ß\U0001F4A3 \"q\" \\"}|{'k': {'n': "a\nb"}, 'l': ['a\nb']}|{'a': 1.0}|[{'a': "x\ny"}]|({'a': "x\ny"},)|{'a': (1, 2)}|None|1e+16|[None, True, "it's"]|[('x', 1)]|False"#
        );
    }

    #[test]
    fn more_str_methods() {
        // Python 3.11 (Salt 3008.4's render_jinja_tmpl).
        let src = "{{ 'ßa'.find('a') }}|{{ 'ßaxa'.rfind('a') }}|{{ 'ßaxa'.find('a', 2) }}|{{ 'ßaxa'.find('a', -1) }}|{{ 'ßaxa'.find('a', 0, 1) }}|{{ 'abc'.index('b') }}|{{ 'abcb'.rindex('b') }}|{{ 'x'.ljust(3, '-') }}|{{ 'x'.rjust(3) }}|{{ 'ab'.center(5, '*') }}|{{ 'AbCß'.swapcase() }}|{{ 'Ab Cd'.istitle() }}|{{ 'AB'.istitle() }}|{{ 'ab'.removeprefix('a') }}|{{ 'ab'.removesuffix('x') }}|{{ 'x'.find('') }}|{{ 'x'.rfind('') }}|{{ 'ab'.find('b', 5) }}|{{ 'x'.find('', 5) }}";
        assert_eq!(render(src, &ctx()).unwrap().text, "1|3|3|3|-1|1|3|x--|  x|**ab*|aBcSS|True|False|b|ab|0|1|-1|-1");
        assert!(render("{{ 'abc'.index('z') }}", &ctx()).err().is_some_and(|e| e.message.contains("substring not found")));
        assert!(render("{{ 'x'.ljust(3, '--') }}", &ctx()).err().is_some_and(|e| e.message.contains("The fill character must be exactly one character long")));
        for huge in ["{{ 'x'.zfill(99999999999) }}", "{{ 'x'.center(99999999999) }}"] {
            assert!(render(huge, &ctx()).err().is_some_and(|e| e.message.contains("width too big")), "{huge}");
        }
    }

    #[test]
    fn salts_globals() {
        // Salt 3008.4's render_jinja_tmpl.
        let src = "{% set od = odict([('z', 1), ('a', {'y': 2, 'b': 3})], q=5) %}{{ od | string }}|{{ od }}|{{ od | yaml }}|{{ od | yaml(False) }}|{{ {'b': od, 'a': 1} | yaml }}|{{ odict() | string }}|{{ od | json }}|{{ od | tojson }}|{{ od.copy() | yaml }}|{{ ifelse('x') }}";
        assert_eq!(
            render(src, &ctx()).unwrap().text,
            "OrderedDict([('z', 1), ('a', {'y': 2, 'b': 3}), ('q', 5)])|{'z': 1, 'a': {'y': 2, 'b': 3}, 'q': 5}|{z: 1, a: {b: 3, y: 2}, q: 5}|z: 1\na:\n  b: 3\n  y: 2\nq: 5|{a: 1, b: {z: 1, a: {b: 3, y: 2}, q: 5}}|OrderedDict()|{\"a\": {\"b\": 3, \"y\": 2}, \"q\": 5, \"z\": 1}|{\"z\": 1, \"a\": {\"y\": 2, \"b\": 3}, \"q\": 5}|{z: 1, a: {b: 3, y: 2}, q: 5}|x"
        );
        assert!(render("{{ raise('boom ß') }}", &ctx()).err().is_some_and(|e| e.message.contains("boom ß")));
        // The global, unlike salt['match.ifelse'], has no `__context__` in Salt.
        assert!(render("{{ ifelse('G@os:Debian', 'apt', 'yum') }}", &ctx()).err().is_some_and(|e| e.message.contains("name '__context__' is not defined")));
    }

    #[test]
    fn str_methods_minijinja_lacks() {
        // Python: 'a/b/c'.rpartition('/') == ('a/b', '/', 'c'); 'x'.partition('/') ==
        // ('x', '', ''); 'a b  c'.rsplit(None, 1) == ['a b', 'c']; '-7'.zfill(4) == '-007'.
        let src = "{{ 'a/b/c'.rpartition('/') | join('|') }} {{ 'x'.partition('/') | join('|') }} {{ 'a b  c'.rsplit(none, 1) | join('|') }} {{ 'a.b.c'.rsplit('.', 1) | join('|') }} {{ '-7'.zfill(4) }} {{ 'ß💣'.rpartition('x') | join('|') }}";
        assert_eq!(render(src, &ctx()).unwrap().text, "a/b|/|c x|| a b|c a.b|c -007 ||ß💣");
    }

    #[test]
    fn relative_imports_follow_the_loaders_tpldir() {
        let dir = Mutex::new("web/tls".to_string());
        assert_eq!(resolve_import("./map.jinja", &dir).as_deref(), Some("web/tls/map.jinja"));
        assert_eq!(resolve_import("../lib/ß.jinja", &dir).as_deref(), Some("web/lib/ß.jinja"));
        assert_eq!(resolve_import("../../../x.jinja", &dir), None);
        // A salt:// name is a template Salt's loader does not find.
        assert_eq!(resolve_import("salt://common/map.jinja", &dir), None);
        // An absolute import moves the directory relative names start from.
        assert_eq!(resolve_import("common/map.jinja", &dir).as_deref(), Some("common/map.jinja"));
        assert_eq!(resolve_import("./defaults.yaml", &dir).as_deref(), Some("common/defaults.yaml"));
    }

    #[test]
    fn renders_like_salt() {
        let src = "{% from 'map.jinja' import port %}{% for r in grains['roles'] %}{{ r }}_{{ port }}:\n  test.nop\n{% endfor %}db: {{ salt['pillar.get']('db:port', 5432) }} {{ salt.pillar.get('no:such', 'd') }}{{ grains.get('nope', '') }} {{ salt['cmd.run']('rm -rf /') }}|{{ slspath }}|{{ sls_path }}\n";
        let r = render(src, &ctx()).unwrap();
        assert_eq!(r.text, "web_80:\n  test.nop\ndb: 6432 d |web|web\n");
        assert_eq!(sls_context("init", "init.sls", "/srv/salt/init.sls", crate::version::SaltVersion::V3008)[5].1, "");
        // Checked in Salt 3008: the context of `/formulas/common/base` and of `pkg.`.
        let of = |sls, rel, path| sls_context(sls, rel, path, crate::version::SaltVersion::V3008).into_iter().map(|(_, v)| v).collect::<Vec<_>>();
        expect_test::expect![[r#"
            [
                "/formulas/common/base",
                "/formulas/common/base.sls",
                "/srv/formulas/common/base.sls",
                "/formulas/common",
                ".formulas.common",
                "/formulas/common",
                ".formulas.common",
                ":formulas:common",
                "_formulas_common",
            ]
        "#]]
        .assert_debug_eq(&of("/formulas/common/base", "formulas/common/base.sls", "/srv/formulas/common/base.sls"));
        assert_eq!(of("pkg.", "pkg/init.sls", "/srv/pkg/init.sls")[1..6], ["pkg/init.sls", "/srv/pkg/init.sls", "pkg", "pkg", "pkg"]);
        assert_eq!(r.hints.len(), 1);
        let e = render("ok\n{{ nope }}", &ctx()).err().unwrap();
        assert!(e.message.contains("undefined"), "{e:?}");
        assert_eq!(e.line, Some(2));
        let e = render("{% for i in range(10000) %}{% for j in range(10000) %}{% endfor %}{% endfor %}", &ctx()).err().unwrap();
        assert!(e.message.contains("fuel"), "{e:?}");
    }
}
