//! Salt's custom Jinja tags (`salt/utils/jinja.py` `SerializerExtension.parse`), which minijinja
//! has no way to register, by a source rewrite to tags it has. Each rewrite replaces the tag in
//! place (whitespace-control markers kept) and never adds or removes a line break, so every
//! error keeps the template's own line:
//!
//! - `{% import_yaml "f.yaml" as x %}` (`import_json`, `import_text`): Salt imports the file as a
//!   template (rendered without the importer's variables), then loads its output; here
//!   `{% set x = __salt_import("yaml", "f.yaml") %}`.
//! - `{% load_yaml as x %}...{% endload %}` (`load_json`, `load_text`): the block's rendered
//!   text, loaded; here a `set` block, then `{% set x = __salt_load("yaml", x) %}`.
//! - `{% profile as 'label' %}...{% endprofile %}`: only the body (Salt logs its timing).
//! - `{% do EXPR %}` (Jinja2's `do` extension, which Salt enables): Jinja2 takes any
//!   expression (`{% do d.pop('k') if c %}`), minijinja only a call; here
//!   `{% set __salt_do = EXPR %}`, which evaluates it the same way.
//! - A macro whose body uses `varargs` (Jinja2 then takes extra positional arguments into that
//!   tuple; minijinja has no such variable and refuses them): its parameters get
//!   [`VARARGS_SLOTS`] more, defaulting to an unset marker, and its body starts with
//!   `{% set varargs = __salt_varargs(...) %}`, the ones passed.

use minijinja::value::Value;
use minijinja::{Environment, Error, ErrorKind, State};
use syntax::jinja::{mask, JinjaKind};

/// The functions the rewritten tags call.
const IMPORT: &str = "__salt_import";
const LOAD: &str = "__salt_load";
const VARARGS: &str = "__salt_varargs";
/// How many extra positional arguments a `varargs` macro takes (jenkins-formula passes one).
const VARARGS_SLOTS: usize = 8;
/// The default of an extra slot no argument filled.
const UNSET: &str = "__salt_unset_vararg__";

/// Registers the functions [`rewrite`] calls.
pub fn register(env: &mut Environment<'_>) {
    env.add_function(VARARGS, |args: minijinja::value::Rest<Value>| -> Value {
        let passed: Vec<Value> = args.0.into_iter().filter(|v| v.as_str() != Some(UNSET)).collect();
        crate::render::mutable::mutable(Value::from(passed))
    });
    env.add_function(IMPORT, |state: &State, kind: String, name: String| -> Result<Value, Error> {
        let tmpl = state.env().get_template(&name)?;
        // Salt's `import` gives the imported template the environment's globals only.
        let text = tmpl.render(())?;
        load(&kind, &text)
    });
    env.add_function(LOAD, |kind: String, text: String| load(&kind, &text));
}

/// `text` loaded as Salt's `load_yaml`, `load_json` or `load_text` filter loads it.
pub fn load(kind: &str, text: &str) -> Result<Value, Error> {
    let value = match kind {
        "yaml" => {
            let node = syntax::yaml::load(text).map_err(|e| Error::new(ErrorKind::InvalidOperation, format!("load_yaml: {}", e.message)))?;
            Value::from_serialize(crate::value::Val::from_node(&node, 0).to_json())
        }
        "json" => {
            let v: serde_json::Value = serde_json::from_str(text).map_err(|e| Error::new(ErrorKind::InvalidOperation, format!("load_json: {e}")))?;
            Value::from_serialize(v)
        }
        _ => Value::from(text),
    };
    Ok(crate::render::mutable::mutable(value))
}

/// The template with Salt's custom tags rewritten (see the module documentation); text with
/// none of them is returned as it is.
pub fn rewrite(src: &str) -> String {
    if !src.contains("import_") && !src.contains("load_") && !src.contains("profile") && !src.contains("do ") && !src.contains("varargs") {
        return src.to_string();
    }
    let masked = mask(src);
    let varargs_macros = macros_using_varargs(src, &masked.blocks);
    let mut out = String::with_capacity(src.len() + 64);
    let mut last = 0;
    // Open `load_*` blocks: (kind, name).
    let mut open: Vec<(String, String)> = Vec::new();
    for b in &masked.blocks {
        if b.kind != JinjaKind::Statement {
            continue;
        }
        let Some(keyword) = b.keyword.as_deref() else { continue };
        let tag = &src[b.range.clone()];
        let Some((left, inner, right)) = split_tag(tag) else { continue };
        let rest = inner.trim_start().strip_prefix(keyword).unwrap_or("").trim();
        let replacement = match keyword {
            "import_yaml" | "import_json" | "import_text" => {
                let Some((what, name)) = rest.rsplit_once(" as ") else { continue };
                let name = name.trim().trim_end_matches("without context").trim_end_matches("with context").trim();
                format!("{left} set {name} = {IMPORT}(\"{}\", {}) {right}", &keyword[7..], what.trim())
            }
            "load_yaml" | "load_json" | "load_text" => {
                let Some(name) = rest.strip_prefix("as ").map(str::trim) else { continue };
                open.push((keyword[5..].to_string(), name.to_string()));
                format!("{left} set {name} {right}")
            }
            "endload" => {
                let Some((kind, name)) = open.pop() else { continue };
                format!("{left} endset {right}{{% set {name} = {LOAD}(\"{kind}\", {name}) %}}")
            }
            "do" if !rest.is_empty() => format!("{left} set __salt_do = {rest} {right}"),
            "macro" if varargs_macros.contains(&b.range.start) => {
                let Some(params) = rest.strip_suffix(')') else { continue };
                let slots: Vec<String> = (0..VARARGS_SLOTS).map(|i| format!("__va{i}")).collect();
                let sep = if params.trim_end().ends_with('(') { "" } else { ", " };
                let with_defaults: Vec<String> = slots.iter().map(|s| format!("{s}='{UNSET}'")).collect();
                format!("{left} macro {params}{sep}{}) %}}{{% set varargs = {VARARGS}({}) {right}", with_defaults.join(", "), slots.join(", "))
            }
            "profile" => format!("{left} if true {right}"),
            "endprofile" => format!("{left} endif {right}"),
            _ => continue,
        };
        out.push_str(&src[last..b.range.start]);
        out.push_str(&replacement);
        last = b.range.end;
    }
    out.push_str(&src[last..]);
    out
}

/// The start offsets of the `macro` tags whose body (up to the matching `endmacro`) says
/// `varargs`.
fn macros_using_varargs(src: &str, blocks: &[syntax::jinja::JinjaBlock]) -> Vec<usize> {
    if !src.contains("varargs") {
        return Vec::new();
    }
    let mut open: Vec<(usize, usize)> = Vec::new();
    let mut out = Vec::new();
    for b in blocks.iter().filter(|b| b.kind == JinjaKind::Statement) {
        match b.keyword.as_deref() {
            Some("macro") => open.push((b.range.start, b.range.end)),
            Some("endmacro") => {
                if let Some((start, body)) = open.pop() {
                    if src.get(body..b.range.start).is_some_and(|t| t.contains("varargs")) {
                        out.push(start);
                    }
                }
            }
            _ => {}
        }
    }
    out
}

/// A statement tag as its opening delimiter (with its whitespace marker), its inside, and its
/// closing delimiter.
fn split_tag(tag: &str) -> Option<(&str, &str, &str)> {
    let open = if tag[2..].starts_with(['-', '+']) { 3 } else { 2 };
    let body = tag.strip_suffix("%}")?;
    let close = if body.len() > open && body.ends_with(['-', '+']) { 3 } else { 2 };
    let inner = tag.get(open..tag.len() - close)?;
    Some((&tag[..open], inner, &tag[tag.len() - close..]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_are_rewritten_on_their_own_lines() {
        let src = "{% import_yaml 'f/defaults.yaml' as defaults %}\n{%- import_json tpldir ~ '/x.json' as j -%}\n{% load_yaml as cfg %}\na: {{ x }}\n{%- endload %}\n{% profile as 'p' %}body{% endprofile %}\n{% raw %}{% import_yaml 'no' as no %}{% endraw %}\n{%- do d.pop('k') if c %}\n";
        expect_test::expect![[r#"
            {% set defaults = __salt_import("yaml", 'f/defaults.yaml') %}
            {%- set j = __salt_import("json", tpldir ~ '/x.json') -%}
            {% set cfg %}
            a: {{ x }}
            {%- endset %}{% set cfg = __salt_load("yaml", cfg) %}
            {% if true %}body{% endif %}
            {% raw %}{% import_yaml 'no' as no %}{% endraw %}
            {%- set __salt_do = d.pop('k') if c %}
        "#]]
        .assert_eq(&rewrite(src));
        assert_eq!(rewrite(src).lines().count(), src.lines().count());
    }

    #[test]
    fn imported_and_loaded_data_render_as_salt_renders_them() {
        let mut env = Environment::new();
        env.set_auto_escape_callback(|_| minijinja::AutoEscape::None);
        register(&mut env);
        crate::render::mutable::register(&mut env);
        env.set_unknown_method_callback(minijinja_contrib::pycompat::unknown_method_callback);
        env.add_global("grains", Value::from_serialize(serde_json::json!({"os": "Debian"})));
        env.set_loader(|name| {
            Ok(match name {
                "f/defaults.yaml" => Some("pkg: {{ grains.os | lower }}-ß\nports: [80, 0644]\n".to_string()),
                "f/x.json" => Some("{\"b\": 1, \"a\": [true]}".to_string()),
                _ => None,
            })
        });
        let src = "{% import_yaml 'f/defaults.yaml' as d %}{% import_json 'f/x.json' as j %}{% load_yaml as c %}k: [1, 2]{% endload %}\
                   {% do d.ports.append(c.k[1]) %}{{ d.pkg }} {{ d.ports | join(',') }} {{ j | list | join(',') }} {{ j.a[0] }}";
        let out = env.render_str(&crate::render::mutable::wrap_literals(&rewrite(src)), ()).unwrap();
        // Salt: `0644` is the decimal 644 (its YAML loader strips leading zeros).
        // Python prints `True`, as Jinja2 does.
        assert_eq!(out, "debian-ß 80,644,2 b,a True");
    }

    #[test]
    fn a_macro_that_uses_varargs_takes_extra_positional_arguments() {
        // Jinja2 (Salt 3008.4's): `{% macro cli(cmd) %}{{ cmd }} {{ ' '.join(varargs) }}{% endmacro %}`
        // called as `cli('install', 'git')` renders `install git`, `cli('list')` renders `list `.
        let src = "{%- macro cli(cmd) -%}\n{{ cmd }} {{ varargs | join(' ') }}\n{%- endmacro -%}\n{% macro plain(a) %}{{ a }}{% endmacro %}";
        let rewritten = rewrite(src);
        assert_eq!(rewritten.lines().count(), src.lines().count());
        let mut env = Environment::new();
        env.set_auto_escape_callback(|_| minijinja::AutoEscape::None);
        register(&mut env);
        crate::render::mutable::register(&mut env);
        let call = |expr: &str| env.render_str(&format!("{rewritten}[{{{{ {expr} }}}}]"), ()).map_err(|e| e.to_string());
        assert_eq!(call("cli('install', 'git')").unwrap(), "[install git]");
        assert_eq!(call("cli('list')").unwrap(), "[list ]");
        // A macro that does not say `varargs` still refuses extra arguments, as Jinja2 does.
        assert!(call("plain(1, 2)").is_err());
    }
}
