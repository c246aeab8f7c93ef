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

use minijinja::value::Value;
use minijinja::{Environment, Error, ErrorKind, State};
use syntax::jinja::{mask, JinjaKind};

/// The functions the rewritten tags call.
const IMPORT: &str = "__salt_import";
const LOAD: &str = "__salt_load";

/// Registers the functions [`rewrite`] calls.
pub fn register(env: &mut Environment<'_>) {
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
    if !src.contains("import_") && !src.contains("load_") && !src.contains("profile") && !src.contains("do ") {
        return src.to_string();
    }
    let masked = mask(src);
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
}
