//! Which top files are read and how each is rendered: `salt/state.py` `BaseHighState.get_tops`
//! (the `state_top` of every environment, then one level of `include:`).

use indexmap::IndexMap;

use super::{TopDoc, Tops};
use crate::diagnostic::{Code, SaltError};
use crate::py::fnmatch;
use crate::render::context::JinjaSetup;
use crate::value::{Dict, Val, V};
use crate::workspace::config::Opts;
use crate::workspace::reads;
use crate::workspace::roots::get_envs;
use crate::workspace::roots::FileRoots;
use crate::workspace::vfs::{FileTable, Vfs};

/// `get_tops`.
pub fn get_tops(fs: &dyn Vfs, opts: &Opts, roots: &FileRoots, files: &mut FileTable, jinja: Option<&JinjaSetup>) -> Result<Tops, SaltError> {
    let mut tops = Tops::default();
    let strategy = opts.top_file_merging_strategy.as_str();
    if strategy == "same" && opts.saltenv.is_none() && opts.default_top.is_empty() {
        return Err(SaltError::new(Code::RenderError, "top_file_merging_strategy set to 'same', but no default_top configuration option was set"));
    }
    let top_rel = opts.state_top.trim_start_matches("salt://").trim_start_matches('/').to_string();
    let client_envs: Vec<String> = roots.env_names().map(str::to_string).collect();
    let envs: Vec<String> = if let Some(env) = &opts.saltenv {
        vec![env.clone()]
    } else if let Some(env) = opts.state_top_saltenv.as_ref().filter(|e| !e.is_empty()) {
        vec![env.clone()]
    } else {
        get_envs(opts, &client_envs)
    };
    let avail_envs = get_envs(opts, &client_envs);
    for env in envs {
        let doc = match reads::find_file(fs, roots, &env, &top_rel) {
            Some(path) => render_top(fs, &path, &env, files, &mut tops, None, jinja, &top_rel),
            None => TopDoc { env: env.clone(), path: None, data: Dict::new(), included_as: None },
        };
        tops.envs.entry(env).or_default().push(doc);
    }
    // Salt stops at the first render error; get_top then answers `{}`.
    if !tops.errors.is_empty() {
        return Ok(tops);
    }
    // One level of `include:`: globs over the same env's available names, each once.
    let mut include: IndexMap<String, Vec<Val>> = IndexMap::new();
    for (env, docs) in tops.envs.iter_mut() {
        for doc in docs.iter_mut() {
            if let Some((_, inc)) = doc.data.remove("include") {
                let items: Vec<Val> = match &inc.v {
                    V::List(l) => l.clone(),
                    V::Str(s) => s.chars().map(|c| Val { v: V::Str(c.to_string()), at: inc.at.clone() }).collect(),
                    V::Dict(d) => d.keys().cloned().collect(),
                    _ => {
                        tops.raised.push(
                            SaltError::new(
                                Code::MalformedTop,
                                format!(
                                    "`include:` in {env}'s top file is {}, which Salt cannot iterate (TypeError: '{}' object is not iterable)",
                                    inc.py_repr(),
                                    inc.py_type()
                                ),
                            )
                            .at(inc.at.clone()),
                        );
                        return Ok(tops);
                    }
                };
                include.entry(env.clone()).or_default().extend(items);
            }
        }
    }
    for (env, states) in include {
        if !states.is_empty() && env != "base" && !avail_envs.contains(&env) && !tops.listed_envs.contains(&env) {
            tops.listed_envs.push(env.clone());
        }
        let avail = roots.list_states(&env);
        let mut done: Vec<String> = Vec::new();
        for item in states {
            // `fnmatch.filter(avail, item)` starts with `os.path.normcase(item)`, which raises
            // TypeError for anything but a string (an SLS-style `- dev: name` included). Salt
            // gets there only after rendering the tops the earlier items matched.
            let Some(sls_match) = item.as_str() else {
                tops.raised.push(
                    SaltError::new(
                        Code::MalformedTop,
                        format!(
                            "`include:` item {} in {env}'s top file is not a string; Salt raises globbing it (TypeError: expected str, not {})",
                            item.py_repr(),
                            item.py_type()
                        ),
                    )
                    .at(item.at.clone()),
                );
                return Ok(tops);
            };
            reads::names(fs, roots, &env, sls_match);
            for sls in fnmatch::filter(avail.iter().map(String::as_str), sls_match) {
                if done.iter().any(|d| d == sls) {
                    continue;
                }
                let doc = match reads::state(fs, roots, &env, sls) {
                    Some(f) => {
                        let rel = f.source.trim_start_matches("salt://").to_string();
                        render_top(fs, &f.path, &env, files, &mut tops, Some(sls.to_string()), jinja, &rel)
                    }
                    None => TopDoc { env: env.clone(), path: None, data: Dict::new(), included_as: Some(sls.to_string()) },
                };
                if !tops.errors.is_empty() {
                    return Ok(tops);
                }
                tops.envs.entry(env.clone()).or_default().push(doc);
                done.push(sls.to_string());
            }
        }
    }
    Ok(tops)
}

/// Reads and renders one top file (with Jinja when `jinja` is given) into a [`TopDoc`]: a
/// render failure goes to `tops.errors`, a document that is not a mapping to `tops.raised`.
/// The pillar's top files are read the same way.
#[allow(clippy::too_many_arguments)]
pub(crate) fn render_top(
    fs: &dyn Vfs,
    path: &std::path::Path,
    env: &str,
    files: &mut FileTable,
    tops: &mut Tops,
    included_as: Option<String>,
    jinja: Option<&JinjaSetup>,
    rel: &str,
) -> TopDoc {
    let mut doc = TopDoc { env: env.to_string(), path: Some(path.to_path_buf()), data: Dict::new(), included_as };
    let text = match fs.read(path) {
        Ok(t) => t,
        Err(e) => {
            tops.errors.push(SaltError::new(Code::UnreadableFile, format!("Unable to read top file {}: {e}", path.display())));
            return doc;
        }
    };
    let id = files.add(path.to_path_buf(), text.clone().into());
    // compile_template answers `{}` for an empty or whitespace-only file without rendering it.
    if text.trim().is_empty() {
        return doc;
    }
    let ctx = jinja.map(|j| j.context(env, "", rel, path));
    match crate::render::render_with(&text, id, ctx.as_ref()) {
        Ok(v) => match v.v {
            V::Dict(d) => doc.data = d,
            // The YAML renderer turns any falsy document (`~`, `[]`, `''`, `0`) into `{}`.
            _ if !v.truthy() => {}
            _ => tops.raised.push(
                SaltError::new(
                    Code::MalformedTop,
                    format!(
                        "Top data was not formed as a dict: {} renders to a {}, and Salt raises merging it (AttributeError: '{}' object has no attribute 'items')",
                        path.display(),
                        v.py_type(),
                        v.py_type()
                    ),
                )
                .at(v.at),
            ),
        },
        Err(mut e) => {
            e.message = format!("Unable to render top file: {}", e.message);
            tops.errors.push(e);
        }
    }
    doc
}

#[cfg(test)]
mod tests {
    use expect_test::expect;
    use serde_json::json;

    use super::super::tests::{check, top};

    #[test]
    fn a_render_error_in_any_top_empties_the_whole_top() {
        // get_top catches the SaltRenderError of the included top's duplicate key: `{}`.
        check(
            r#"
#- salt-analyzer.yaml
file_roots: {base: [base], dev: [dev]}
#- base/top.sls
base: {'*': [a]}
#- dev/top.sls
include: [tops.extra]
dev: {'*': [d]}
#- dev/tops/extra.sls
dev:
  '*': [x]
  '*': [y]
"#,
            None,
            expect![[r#"
                show_top: {}
                render error: Unable to render top file: while constructing a mapping: found conflicting ID '*'; line 3
            "#]],
        );
    }

    #[test]
    fn a_top_that_renders_to_a_list_makes_salt_raise() {
        let r = top("#- salt-analyzer.yaml\nfile_roots: {base: [base]}\n#- base/top.sls\n- a\n- b\n", None);
        assert!(r.raised.as_ref().is_some_and(|e| e.message.starts_with("Top data was not formed as a dict")), "{:?}", r.raised);
        assert_eq!(r.verify_errors.len(), 1);
        // A falsy document is `{}` for the YAML renderer, not an error.
        check(
            "#- salt-analyzer.yaml\nfile_roots: {base: [base]}\n#- base/top.sls\n[]\n",
            None,
            expect![[r#"
            show_top: {}
        "#]],
        );
    }

    #[test]
    fn a_non_iterable_top_include_raises() {
        check(
            "#- salt-analyzer.yaml\nfile_roots: {base: [base]}\n#- base/top.sls\ninclude:\nbase: {'*': [a]}\n",
            None,
            expect![[r#"
                show_top: ["`include:` in base's top file is None, which Salt cannot iterate (TypeError: 'NoneType' object is not iterable)"]
                raised: `include:` in base's top file is None, which Salt cannot iterate (TypeError: 'NoneType' object is not iterable)
            "#]],
        );
    }

    #[test]
    fn include_items_are_globbed_in_order_so_an_earlier_render_error_wins() {
        // The dict item raises TypeError, but only after the first item's top was rendered,
        // and that render failed: Salt's answer is `{}`.
        let fixture = "#- salt-analyzer.yaml\nfile_roots: {base: [base]}\n#- base/top.sls\ninclude: [tops.bad, {base: tops.ok}]\nbase: {'*': [a]}\n#- base/tops/bad.sls\nbase:\n  x: [a]\n  x: [b]\n#- base/tops/ok.sls\nbase: {'*': [b]}\n";
        let r = top(fixture, None);
        assert!(r.raised.is_none() && r.render_errors.len() == 1, "{:?} {:?}", r.raised, r.render_errors);
        assert_eq!(r.show_top_json(), json!({}));
        let r = top(&fixture.replace("tops.bad, ", ""), None);
        assert!(r.raised.as_ref().is_some_and(|e| e.message.contains("is not a string")), "{:?}", r.raised);
    }

    #[test]
    fn globbing_a_top_include_makes_its_env_available() {
        // env_order drops dev, so a cross-env item for dev is ignored...
        let base = r#"
#- salt-analyzer.yaml
file_roots: {base: [base], dev: [dev]}
env_order: [base]
state_top_saltenv: dev
#- dev/top.sls
dev: {'*': [d, {dev: x}]}
#- dev/x.sls
x: test.nop
"#;
        let r = top(base, None);
        assert_eq!(r.show_top_json(), json!({"dev": ["d"]}));
        assert_eq!(r.avail_envs, vec!["base".to_string()]);
        // ...unless dev's top has an `include:`, whose globbing asks LazyAvailStates for
        // dev's SLS list and so adds dev to it (even when the glob matches nothing).
        let with_include = base.replace("#- dev/top.sls\n", "#- dev/top.sls\ninclude: [nomatch]\n");
        let r = top(&with_include, None);
        assert_eq!(r.show_top_json(), json!({"dev": ["d", "x"]}));
        assert_eq!(r.avail_envs, vec!["base".to_string(), "dev".to_string()]);
        // An empty include list is never globbed.
        let empty = base.replace("#- dev/top.sls\n", "#- dev/top.sls\ninclude: []\n");
        assert_eq!(top(&empty, None).show_top_json(), json!({"dev": ["d"]}));
    }
}
