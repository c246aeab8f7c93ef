//! Whether each state's call fits its state function, as `State.call` finds out only at apply
//! time: an unknown module or function (`verify_data`: "State 'x.y' was not found in SLS"), a
//! required argument not given ("Missing parameter"), an argument a function without
//! `**kwargs` does not take (`format_call`: "... is an invalid keyword argument for ...", which
//! aborts the whole run), an argument of a function with `**kwargs` that is a likely typo of a
//! named parameter (Salt ignores it silently), a function Salt says is deprecated, and an
//! argument Salt warns about when it is passed (its `warn_until` behind `"x" in kwargs`). A
//! function the minion's release does not ship but a Salt extension does is its own finding,
//! naming the package. Checked on low chunks (after
//! `names`, `extend` and `use` gave each state its arguments), against a
//! [`Catalog`](crate::state::catalog::Catalog).

use crate::diagnostic::{Code, SaltError, Severity};
use crate::requisites::is_internal_keyword;
use crate::state::catalog::{Catalog, Saltexts};
use crate::state::chunk::Chunk;
use crate::value::{Dict, Loc};
use crate::version::{SaltVersion, VersionSource};

/// Whether `State.call` passes a chunk's `name_order` (a `names` entry's place) on to the
/// state function: 3008 pops it while ordering (`salt/utils/requisite.py`); 3006 and 3007 pop
/// it only from a chunk with an `order`, so without one the function gets it, and
/// `format_call` refuses it when the function takes no `**kwargs`.
fn passes_name_order(chunk: &Chunk, release: SaltVersion) -> bool {
    release < SaltVersion::V3008 && !chunk.d.contains("order")
}

/// The call problems of `chunks` (compiled from `high`), each once. `skip` says which
/// declarations not to judge (a static check leaves templated files to the rendered
/// highstate).
pub fn call_errors(high: &Dict, chunks: &[Chunk], catalog: &Catalog, skip: &dyn Fn(Option<&Loc>) -> bool) -> Vec<SaltError> {
    let mut out: Vec<SaltError> = Vec::new();
    let mut push = |e: SaltError| {
        if !out.iter().any(|o| o.code == e.code && o.message == e.message && o.loc == e.loc) {
            out.push(e);
        }
    };
    // Each chunk's declaration, found by ID once rather than by a scan per chunk.
    let bodies: std::collections::HashMap<String, &crate::value::Val> = high.0.iter().map(|(k, v)| (k.py_cow().into_owned(), v)).collect();
    for chunk in chunks {
        let state = chunk.get_str("state");
        let fun = chunk.get_str("fun");
        let id = chunk.get_str("__id__");
        let sls = chunk.get_str("__sls__");
        let full = format!("{state}.{fun}");
        let decl = bodies.get(id.as_str()).and_then(|body| declaration(body, &state, &fun)).or_else(|| chunk.id_loc.clone());
        if skip(decl.as_ref()) {
            continue;
        }
        let Some(function) = catalog.function(&state, &fun) else {
            let module = catalog.module(&state);
            // A custom module of that name hides any extension's: no extension can help.
            if let Some(package) = Saltexts::builtin().provider(&state, &fun).filter(|_| module.is_none_or(|m| m.custom.is_none())) {
                let what = if module.is_some() { full.clone() } else { state.clone() };
                let mut message = format!(
                    "State '{full}' was not found in SLS '{sls}'\nReason: `{what}` is not in Salt {}'s core: install {}, or list it under `saltexts:`",
                    catalog.release(),
                    package.name
                );
                // The release may only be assumed: say which would answer otherwise.
                let had = older_cores(catalog, &state, &fun);
                if !had.is_empty() {
                    message
                        .push_str(&format!("\nSalt {} ship it in their core: if this minion runs one of them, say so with `salt_version:`", had.join(" and ")));
                }
                push(SaltError::new(Code::NotInCore, message).at(decl.clone()).id(id.clone()));
                continue;
            }
            let mut message = format!("State '{full}' was not found in SLS '{sls}'\nReason: '{full}' is not available.");
            let near = did_you_mean(&full, catalog.modules().flat_map(|m| m.functions.iter().map(move |f| format!("{}.{}", m.name, f.name))));
            if let Some(near) = &near {
                message.push_str(&format!("\nDid you mean '{near}'?"));
            }
            if module.is_none_or(|m| m.custom.is_none()) {
                if let Some(note) = removed_note(catalog, &state, &fun) {
                    message.push_str(&format!("\n{note}"));
                }
            }
            let mut e = SaltError::new(Code::UnknownFunction, message).at(decl.clone()).id(id.clone());
            if let Some(near) = &near {
                for (at, old, new) in bodies.get(id.as_str()).map(|body| misspelt_function(body, &state, &fun, near)).unwrap_or_default() {
                    e = e.fix(at, old, new);
                }
            }
            push(e);
            continue;
        };
        for arg in function.args.iter().filter(|a| a.default.is_none()) {
            if chunk.d.get(&arg.name).is_none() {
                push(SaltError::new(Code::MissingParameter, format!("Missing parameter {} for state {full}", arg.name)).at(decl.clone()).id(id.clone()));
            }
        }
        for (k, _) in &chunk.d.0 {
            let Some(key) = k.as_str() else { continue };
            if is_internal_keyword(key) || (key == "name_order" && !passes_name_order(chunk, catalog.release())) {
                continue;
            }
            if let Some(dep) = function.deprecated_arg(key) {
                // Salt looks at it (and warns): never a typo, never refused.
                let message = format!("Argument '{key}' of state '{full}' is deprecated: {}", dep.message);
                push(SaltError::new(Code::DeprecatedArgument, message).at(k.at.clone().or(decl.clone())).id(id.clone()));
                continue;
            }
            if function.arg(key).is_some() {
                continue;
            }
            if function.kwargs {
                // Salt passes it in `**kwargs`, where the function never looks for it.
                if let Some(near) = near_miss(key, function.args.iter().map(|a| a.name.as_str())) {
                    let message = format!("'{key}' is not a parameter of '{full}': Salt passes it on in **kwargs, where it is ignored\nDid you mean '{near}'?");
                    let e = SaltError::new(Code::LikelyTypo, message).at(k.at.clone().or(decl.clone())).id(id.clone());
                    push(match &k.at {
                        Some(at) => e.fix(at.clone(), key, near),
                        None => e,
                    });
                }
            } else {
                let mut message = format!("'{key}' is an invalid keyword argument for '{full}'");
                let near = did_you_mean(key, function.args.iter().map(|a| a.name.clone()));
                if let Some(near) = &near {
                    message.push_str(&format!("\nDid you mean '{near}'?"));
                }
                let mut e = SaltError::new(Code::UnknownArgument, message).at(k.at.clone().or(decl.clone())).id(id.clone());
                if let (Some(near), Some(at)) = (near, &k.at) {
                    e = e.fix(at.clone(), key, near);
                }
                push(e);
            }
        }
        if let Some(words) = &function.deprecated {
            push(SaltError::new(Code::DeprecatedFunction, format!("State '{full}' is deprecated: {words}")).at(decl.clone()).id(id.clone()));
        }
    }
    out
}

/// For a function older release lines ship and `catalog`'s does not (no extension providing
/// it): which, so the user sees why a formula that worked stopped working.
fn removed_note(catalog: &Catalog, state: &str, fun: &str) -> Option<String> {
    let had = older_cores(catalog, state, fun);
    if had.is_empty() {
        return None;
    }
    Some(format!(
        "Salt {} shipped it; Salt {} removed it from its core, and no Salt extension salt-analyzer knows provides it.",
        had.join(" and "),
        catalog.release()
    ))
}

/// Weighs `calls` by how the release they were judged on was chosen: on the default release,
/// which nobody stated (no `--salt-version`, `salt_version:`, installed `salt-call` or
/// `saltversioninfo` grain), a module out of core is likely a false alarm (most fleets run
/// 3006 or 3007, or have the extension), so `not-in-core` is a warning there; once the release
/// is known it is the error it is on that release.
pub fn weigh_by_release(calls: &mut [SaltError], source: &VersionSource) {
    if *source == VersionSource::Default {
        for e in calls.iter_mut().filter(|e| e.code == Code::NotInCore) {
            e.severity = Some(Severity::Warning);
        }
    }
}

/// The release lines before `catalog`'s whose core ships `state.fun`.
fn older_cores(catalog: &Catalog, state: &str, fun: &str) -> Vec<String> {
    SaltVersion::ALL.iter().filter(|v| **v < catalog.release() && Catalog::for_version(**v).function(state, fun).is_some()).map(|v| v.to_string()).collect()
}

/// The `module.function` an [`Code::UnknownFunction`] or [`Code::NotInCore`] message is about (the editor drops the
/// warning when the user's own Salt documents that function: an extension it loads).
pub fn unknown_function_name(message: &str) -> Option<&str> {
    message.strip_prefix("State '")?.split_once("' was not found").map(|(name, _)| name)
}

/// Where a state's body (`body`) declares `state` (`pkg.installed:` or `pkg:` with `- installed`): the
/// dotted key, else the function's list item, else the module key.
fn declaration(body: &crate::value::Val, state: &str, fun: &str) -> Option<Loc> {
    let body = body.as_dict()?;
    for (k, run) in &body.0 {
        let key = k.py_cow();
        if key == format!("{state}.{fun}") {
            return k.at.clone();
        }
        if key == state {
            let item = run.as_list().into_iter().flatten().find(|a| a.as_str() == Some(fun));
            return item.and_then(|a| a.at.clone()).or_else(|| k.at.clone());
        }
    }
    None
}

/// The replacements that turn the misspelt `state.fun` into `near` where a state's body
/// (`body`) writes it: the dotted key (`pkg.instaled:`), or the function's list item and the
/// module key, each only where it differs (`pkg:` with `- instaled`). Empty when the body
/// writes it some other way.
fn misspelt_function(body: &crate::value::Val, state: &str, fun: &str, near: &str) -> Vec<(Loc, String, String)> {
    let full = format!("{state}.{fun}");
    let Some((near_state, near_fun)) = near.split_once('.') else { return Vec::new() };
    let Some(body) = body.as_dict() else { return Vec::new() };
    for (k, run) in &body.0 {
        let key = k.py_cow();
        if key == full {
            return k.at.clone().map(|at| vec![(at, full.clone(), near.to_string())]).unwrap_or_default();
        }
        if key == state {
            let mut out = Vec::new();
            if near_state != state {
                let Some(at) = k.at.clone() else { return Vec::new() };
                out.push((at, state.to_string(), near_state.to_string()));
            }
            if near_fun != fun {
                let item = run.as_list().into_iter().flatten().find(|a| a.as_str() == Some(fun));
                let Some(at) = item.and_then(|a| a.at.clone()) else { return Vec::new() };
                out.push((at, fun.to_string(), near_fun.to_string()));
            }
            return out;
        }
    }
    Vec::new()
}

/// The named parameter `key` is one or two edits (Damerau-Levenshtein) from, the closest
/// first; one edit only for parameters of four characters or more and two for six or more: a
/// short name is one or two edits from many unrelated words.
fn near_miss<'a>(key: &str, params: impl Iterator<Item = &'a str>) -> Option<&'a str> {
    params
        .map(|p| (strsim::damerau_levenshtein(key, p), p))
        .filter(|(d, p)| *d >= 1 && (*d == 1 && p.chars().count() >= 4 || *d == 2 && p.chars().count() >= 6))
        .min_by_key(|(d, _)| *d)
        .map(|(_, p)| p)
}

/// The candidate closest to `word`, when one is close enough to be a likely typo.
pub fn did_you_mean(word: &str, candidates: impl Iterator<Item = String>) -> Option<String> {
    let mut best: Option<(f64, String)> = None;
    for c in candidates {
        let score = strsim::jaro_winkler(word, &c);
        if score >= 0.85 && best.as_ref().is_none_or(|(s, _)| score > *s) {
            best = Some((score, c));
        }
    }
    best.map(|(_, c)| c)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::catalog::Catalog;
    use crate::value::V;

    /// The messages `call_errors` gives `sls` against the catalog of `version` with `saltexts`.
    fn check(sls: &str, version: SaltVersion, saltexts: &[&str]) -> Vec<String> {
        let mut errors = Vec::new();
        let V::Dict(mut high) = crate::render::render_data(sls, None, 0).expect("yaml").v else { panic!("a mapping") };
        crate::state::highstate::handle_state_decls(&mut high, "db", "base", &mut errors);
        let chunks = crate::state::compile::compile_high_data(&high);
        let saltexts: Vec<String> = saltexts.iter().map(|s| crate::workspace::saltexts::normalise(s)).collect();
        let catalog = Catalog::with_saltexts(version, &saltexts);
        call_errors(&high, &chunks, catalog, &|_| false).into_iter().map(|e| format!("{}: {}", e.code.as_str(), e.message)).collect()
    }

    const MYSQL: &str = "app:\n  mysql_user.present:\n    - host: localhost\n    - password: x\n";

    #[test]
    fn a_function_only_an_extension_has_names_the_package() {
        assert_eq!(check(MYSQL, SaltVersion::V3006, &[]), Vec::<String>::new());
        assert_eq!(check(MYSQL, SaltVersion::V3007, &[]), Vec::<String>::new());
        expect_test::expect![[r#"
            [
                "not-in-core: State 'mysql_user.present' was not found in SLS 'db'\nReason: `mysql_user` is not in Salt 3008's core: install saltext-mysql, or list it under `saltexts:`\nSalt 3006 and 3007 ship it in their core: if this minion runs one of them, say so with `salt_version:`",
            ]
        "#]]
        .assert_debug_eq(&check(MYSQL, SaltVersion::V3008, &[]));
        assert_eq!(check(MYSQL, SaltVersion::V3008, &["saltext.mysql"]), Vec::<String>::new());
        // The extension's signature is checked as the core's is.
        let typo = "app:\n  mysql_user.present:\n    - hots: localhost\n";
        assert!(check(typo, SaltVersion::V3008, &["mysql"]).iter().any(|m| m.starts_with("likely-typo")), "{:?}", check(typo, SaltVersion::V3008, &["mysql"]));
        // Another extension listed does not help.
        assert_eq!(check(MYSQL, SaltVersion::V3008, &["saltext-vault"]).len(), 1);
    }

    #[test]
    fn a_function_nothing_provides_says_which_release_had_it() {
        // gem: in 3006's and 3007's core, in no extension.
        let gem = "rails:\n  gem.removed: []\n";
        assert_eq!(check(gem, SaltVersion::V3006, &[]), Vec::<String>::new());
        expect_test::expect![[r#"
            [
                "unknown-function: State 'gem.removed' was not found in SLS 'db'\nReason: 'gem.removed' is not available.\nSalt 3006 and 3007 shipped it; Salt 3008 removed it from its core, and no Salt extension salt-analyzer knows provides it.",
            ]
        "#]]
        .assert_debug_eq(&check(gem, SaltVersion::V3008, &[]));
        // A plain typo keeps Salt's words and the did-you-mean only.
        let typo = "x:\n  pkg.instaled: []\n";
        expect_test::expect![[r#"
            [
                "unknown-function: State 'pkg.instaled' was not found in SLS 'db'\nReason: 'pkg.instaled' is not available.\nDid you mean 'pkg.installed'?",
            ]
        "#]]
        .assert_debug_eq(&check(typo, SaltVersion::V3008, &[]));
    }

    /// The fix of each finding of `sls`: every replacement as the text its span reads, what
    /// the finding saw there, and the suggestion.
    fn fixes(sls: &str) -> Vec<Vec<(String, String, String)>> {
        let mut errors = Vec::new();
        let V::Dict(mut high) = crate::render::render_data(sls, None, 0).expect("yaml").v else { panic!("a mapping") };
        crate::state::highstate::handle_state_decls(&mut high, "db", "base", &mut errors);
        let chunks = crate::state::compile::compile_high_data(&high);
        let catalog = Catalog::for_version(SaltVersion::V3008);
        let found = call_errors(&high, &chunks, catalog, &|_| false);
        found.iter().map(|e| e.fix.iter().map(|r| (sls[r.at.span.clone()].to_string(), r.old.clone(), r.new.clone())).collect()).collect()
    }

    #[test]
    fn a_did_you_mean_carries_the_misspelt_span_and_the_suggestion() {
        let s = |a: &str, b: &str, c: &str| (a.to_string(), b.to_string(), c.to_string());
        // The list form: the item, and the module key where the module is misspelt too.
        assert_eq!(fixes("x:\n  pkg:\n    - instaled\n"), [vec![s("instaled", "instaled", "installed")]]);
        assert_eq!(fixes("x:\n  pgk:\n    - instaled\n"), [vec![s("pgk", "pgk", "pkg"), s("instaled", "instaled", "installed")]]);
        // An argument: its key (a function without **kwargs, and a likely typo of one with).
        assert_eq!(fixes("x:\n  file.absent:\n    - nmae: /ß\n"), [vec![s("nmae", "nmae", "name")]]);
        assert_eq!(fixes("x:\n  pkg.installed:\n    - refreh: true\n"), [vec![s("refreh", "refreh", "refresh")]]);
        // Nothing near: no fix.
        assert_eq!(fixes("x:\n  zzqx.qq: []\n"), [Vec::<(String, String, String)>::new()]);
    }

    #[test]
    fn deprecations_are_the_releases_own() {
        let zabbix = "h:\n  zabbix_host.present:\n    - host: h\n    - groups: [g]\n    - interfaces: []\n";
        assert_eq!(check(zabbix, SaltVersion::V3006, &[]), Vec::<String>::new());
        let on_3007 = check(zabbix, SaltVersion::V3007, &[]);
        assert_eq!(on_3007.len(), 1, "{on_3007:?}");
        assert!(
            on_3007[0].starts_with("deprecated-function: State 'zabbix_host.present' is deprecated: ") && on_3007[0].contains("in version 3009"),
            "{on_3007:?}"
        );
    }

    #[test]
    fn deprecated_arguments_are_the_releases_own() {
        // 3006's and 3007's `x509` is x509.py, whose `private_key_managed` names `bits`,
        // `cipher` and `verbose`; 3008's is x509_v2.py, which takes them in `**kwargs` and warns.
        let key = "k:\n  x509.private_key_managed:\n    - name: /k.pem\n    - bits: 4096\n    - cipher: aes_256_cbc\n    - verbose: false\n";
        assert_eq!(check(key, SaltVersion::V3006, &[]), Vec::<String>::new());
        assert_eq!(check(key, SaltVersion::V3007, &[]), Vec::<String>::new());
        expect_test::expect![[r#"
            [
                "deprecated-argument: Argument 'bits' of state 'x509.private_key_managed' is deprecated: `bits` has been renamed to `keysize`. Please update your code.",
                "deprecated-argument: Argument 'cipher' of state 'x509.private_key_managed' is deprecated: The following parameter(s) have been deprecated and will be removed in '3009.0': 'cipher'.",
                "deprecated-argument: Argument 'verbose' of state 'x509.private_key_managed' is deprecated: The following parameter(s) have been deprecated and will be removed in '3009.0': 'verbose'.",
            ]
        "#]]
        .assert_debug_eq(&check(key, SaltVersion::V3008, &[]));
        // `algorithm`: renamed to `digest` in 3008's x509.certificate_managed; 3007's x509.py
        // takes it in `**kwargs` (for `x509.create_certificate`) and says nothing.
        let cert = "c:\n  x509.certificate_managed:\n    - name: /c.pem\n    - algorithm: sha512\n";
        assert_eq!(check(cert, SaltVersion::V3007, &[]), Vec::<String>::new());
        expect_test::expect![[r#"
            [
                "deprecated-argument: Argument 'algorithm' of state 'x509.certificate_managed' is deprecated: `algorithm` has been renamed to `digest`. Please update your code.",
            ]
        "#]]
        .assert_debug_eq(&check(cert, SaltVersion::V3008, &[]));
        let dep = Catalog::for_version(SaltVersion::V3008).function("x509", "certificate_managed").and_then(|f| f.deprecated_arg("algorithm")).cloned();
        assert_eq!(dep.map(|d| d.removed), Some("3009.0 (Potassium)".to_string()));
        for v in [SaltVersion::V3006, SaltVersion::V3007] {
            assert!(Catalog::for_version(v).modules().all(|m| m.functions.iter().all(|f| f.deprecated_args.is_empty())), "{v}");
        }
    }

    #[test]
    fn a_names_entry_without_order_passes_name_order_before_3008() {
        // 3006 and 3007 keep a `names` entry's `name_order` on a chunk without `order`, and
        // `State.call` passes it on: a function without `**kwargs` refuses it.
        let names = "x:\n  test.configurable_test_state:\n    - names: [a, b]\n";
        let on_3006 = check(names, SaltVersion::V3006, &[]);
        assert!(
            on_3006.iter().all(|e| e.starts_with("unknown-argument: 'name_order' is an invalid keyword argument for 'test.configurable_test_state'")),
            "{on_3006:?}"
        );
        assert_eq!(on_3006.len(), 1, "{on_3006:?}");
        assert_eq!(check(names, SaltVersion::V3008, &[]), Vec::<String>::new());
        // With an `order`, 3006 pops it too.
        let ordered = "x:\n  test.configurable_test_state:\n    - order: 5\n    - names: [a, b]\n";
        assert_eq!(check(ordered, SaltVersion::V3006, &[]), Vec::<String>::new());
    }
}
