//! Diagnostics for top files in `check`: SLS entries no environment has, sections for
//! environments `file_roots` does not define, targets Salt cannot evaluate, the `'*': name`
//! shorthand `state.apply` rejects, and sections the merging strategy never uses.

use std::path::PathBuf;

use crate::diagnostic::Code;
use crate::diagnostic::{Diagnostic, Related, Severity};
use crate::py::fnmatch;
use crate::render::render_static;
use crate::targeting::matchers::{self, MatchContext, MatchErrorKind};
use crate::targeting::top::{merge_tops, TopDoc, Tops};
use crate::value::{Loc, Val, V};
use crate::workspace::config::Opts;
use crate::workspace::roots::get_envs;
use crate::workspace::roots::FileRoots;
use crate::workspace::vfs::{FileTable, Vfs};

/// Check every environment's top file.
pub fn check_tops(fs: &dyn Vfs, opts: &Opts, roots: &FileRoots, files: &mut FileTable, out: &mut Vec<Diagnostic>) {
    let top_rel = opts.state_top.trim_start_matches("salt://").trim_start_matches('/').to_string();
    let client_envs: Vec<String> = roots.env_names().map(str::to_string).collect();
    let envs = get_envs(opts, &client_envs);
    let mut tops = Tops::default();
    let mut seen_paths: Vec<PathBuf> = Vec::new();
    for env in &envs {
        let Some(path) = roots.find_file(env, &top_rel) else {
            tops.envs.entry(env.clone()).or_default().push(TopDoc { env: env.clone(), path: None, data: Default::default(), included_as: None });
            continue;
        };
        let Ok(text) = fs.read(&path) else { continue };
        let id = files.add(path.clone(), text.clone().into());
        let data = match render_static(&text, id) {
            Ok((Val { v: V::Dict(d), .. }, _)) => d,
            _ => Default::default(),
        };
        let mut doc = TopDoc { env: env.clone(), path: Some(path.clone()), data, included_as: None };
        if !seen_paths.contains(&path) {
            seen_paths.push(path.clone());
            check_doc(opts, roots, &envs, files, &doc, out);
        }
        doc.data.remove("include");
        tops.envs.entry(env.clone()).or_default().push(doc);
    }
    let (_, decisions, _) = merge_tops(opts, &tops);
    for d in decisions {
        let (Some(loc), Some(path)) = (d.loc.as_ref(), d.path.as_ref()) else { continue };
        if d.used || !seen_paths.contains(path) {
            continue;
        }
        out.push(Diagnostic {
            file: path.clone(),
            span: loc.span.clone(),
            severity: Severity::Warning,
            code: Code::UnusedSection,
            message: format!("section `{}` is never used: {}", d.section, d.reason.trim_start_matches("ignored: ")),
            related: Vec::new(),
            fix: Vec::new(),
        });
    }
}

fn diag(files: &FileTable, loc: &Option<Loc>, path: &std::path::Path, severity: Severity, code: Code, message: String) -> Diagnostic {
    let (file, span) = match loc {
        Some(l) => (files.path(l.file).to_path_buf(), l.span.clone()),
        None => (path.to_path_buf(), 0..0),
    };
    Diagnostic { file, span, severity, code, message, related: Vec::<Related>::new(), fix: Vec::new() }
}

fn check_doc(opts: &Opts, roots: &FileRoots, envs: &[String], files: &FileTable, doc: &TopDoc, out: &mut Vec<Diagnostic>) {
    let Some(path) = doc.path.clone() else { return };
    let known_env = |e: &str| e == "base" || envs.iter().any(|x| x == e);
    let nodegroups = opts.raw.get("nodegroups").cloned().unwrap_or(serde_json::Value::Object(Default::default()));
    let empty = serde_json::Value::Object(Default::default());
    let ctx = MatchContext::new("", &empty, &empty).with_nodegroups(&nodegroups);
    for (section, targets) in &doc.data.0 {
        let env = section.py_str();
        if env == "include" {
            continue;
        }
        if !known_env(&env) {
            // Only a minion this section targets fails for it (`No matching salt environment`,
            // an error of that minion's highstate): here it is a warning.
            out.push(diag(
                files,
                &section.at,
                &path,
                Severity::Warning,
                Code::UnknownEnvironment,
                format!(
                    "environment `{env}` has no file roots (defined: {}): a minion this section targets fails its highstate with \"No matching salt environment for environment '{env}' found\"",
                    envs.join(", ")
                ),
            ));
        }
        let Some(targets) = targets.as_dict() else { continue };
        for (target, body) in &targets.0 {
            if let Some(s) = body.as_str() {
                out.push(diag(
                    files,
                    &target.at,
                    &path,
                    Severity::Error,
                    Code::MalformedTop,
                    format!(
                        "Malformed topfile: state declarations for matcher {} in saltenv {} are not formed as a list (got str)\nThe Salt docs show `'target': sls_name` as a shorthand, but state.apply and state.show_top reject it: write `- {s}`.",
                        target.py_repr(),
                        crate::value::py_str_repr(&env)
                    ),
                ));
                continue;
            }
            let body_list = match &body.v {
                V::List(_) => body.clone(),
                _ => continue,
            };
            let outcome = matchers::confirm_top_value(&ctx, &target.to_json(), &body_list.to_json(), matchers::TOP_DEFAULT_MATCHER);
            for e in &outcome.errors {
                if matches!(e.kind, MatchErrorKind::InvalidData) {
                    continue;
                }
                let severity = match e.severity {
                    matchers::Severity::Error => Severity::Error,
                    matchers::Severity::Warning => Severity::Warning,
                };
                out.push(diag(files, &target.at, &path, severity, Code::InvalidTarget, format!("target `{}`: {}", target.py_str(), e.message)));
            }
            for item in body_list.as_list().into_iter().flatten() {
                match &item.v {
                    V::Str(sls) if !sls.is_empty() && known_env(&env) => check_sls(roots, envs, files, &path, &env, sls, &item.at, out),
                    V::Dict(d) => {
                        let Some((k, v)) = d.0.last() else { continue };
                        let key = k.py_str();
                        if key == "match" {
                            continue;
                        }
                        if !known_env(&key) {
                            // Salt silently skips dicts whose key is not an environment.
                            out.push(diag(
                                files,
                                &k.at,
                                &path,
                                Severity::Warning,
                                Code::UnknownEnvironment,
                                format!("`{key}` is not an environment, so Salt ignores this item (state top files support no option but `match`)"),
                            ));
                            continue;
                        }
                        if let Some(sls) = v.as_str() {
                            check_sls(roots, envs, files, &path, &key, sls, &v.at, out);
                        }
                    }
                    _ => {}
                }
            }
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn check_sls(roots: &FileRoots, envs: &[String], files: &FileTable, path: &std::path::Path, env: &str, sls: &str, at: &Option<Loc>, out: &mut Vec<Diagnostic>) {
    let avail = roots.list_states(env);
    let found = if fnmatch::has_magic(sls) { avail.iter().any(|n| fnmatch::fnmatch(n, sls)) } else { roots.get_state(env, sls).is_some() };
    if found {
        return;
    }
    let elsewhere: Vec<&String> = envs.iter().filter(|e| e.as_str() != env && roots.get_state(e, sls).is_some()).collect();
    let listed = avail.iter().any(|n| n == sls);
    let message = if listed {
        format!("`{sls}` is listed in environment `{env}` but can never be loaded: a dot in a file or directory name becomes a `/` when Salt resolves it")
    } else if fnmatch::has_magic(sls) {
        format!("the glob `{sls}` matches no SLS in environment `{env}`")
    } else if !elsewhere.is_empty() {
        format!(
            "No matching sls found for '{sls}' in env '{env}': it exists in {}, but a section's entries load from the section's own environment (use `- {}: {sls}`)",
            elsewhere.iter().map(|e| format!("`{e}`")).collect::<Vec<_>>().join(", "),
            elsewhere[0]
        )
    } else {
        format!("No matching sls found for '{sls}' in env '{env}': no environment has it")
    };
    let code = if listed { Code::DottedSlsName } else { Code::MissingSls };
    out.push(diag(files, at, path, Severity::Error, code, message));
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use expect_test::expect;

    use crate::check::check_workspace;
    use crate::workspace::vfs::MemFs;
    use crate::workspace::Workspace;

    fn check(fixture: &str) -> String {
        let fs = MemFs::from_fixture(fixture);
        let ws = Workspace::load(&fs, Path::new("/ws"), None).expect("workspace");
        let result = check_workspace(&fs, &ws);
        let mut out = String::new();
        for d in &result.diagnostics {
            let (line, col) = result.files.id(&d.file).map(|id| result.files.human(id, d.span.start)).unwrap_or((1, 1));
            let file = d.file.strip_prefix("/ws").unwrap_or(&d.file).display().to_string();
            out.push_str(&format!("{file}:{line}:{col} {}[{}] {}\n", d.severity.as_str(), d.code.as_str(), d.message.lines().next().unwrap_or("")));
        }
        out
    }

    #[test]
    fn top_file_diagnostics() {
        let got = check(
            r#"
#- salt-analyzer.yaml
file_roots: {base: [base], dev: [dev]}
nodegroups: {webs: 'web*'}
#- base/top.sls
base:
  '*':
    - common
    - nosuch
    - devonly
    - {dev: devonly}
  'N@webs':
    - common
  'E@(':
    - match: pcre
    - common
  '10.0.0.0/33':
    - match: ipcidr
  'N@nogroup': [common]
  'x': [{match: nosuch}]
  'short': common
prod:
  '*': [common]
#- base/common.sls
c: test.nop
#- dev/top.sls
dev:
  '*': [devonly]
#- dev/devonly.sls
d: test.nop
"#,
        );
        expect![[r#"
            base/top.sls:4:7 error[missing-sls] No matching sls found for 'nosuch' in env 'base': no environment has it
            base/top.sls:5:7 error[missing-sls] No matching sls found for 'devonly' in env 'base': it exists in `dev`, but a section's entries load from the section's own environment (use `- dev: devonly`)
            base/top.sls:9:3 error[invalid-target] target `E@(`: invalid regex `E@(`: missing ), unterminated subpattern at position 2
            base/top.sls:12:3 error[invalid-target] target `10.0.0.0/33`: invalid IP/CIDR target `10.0.0.0/33`: '10.0.0.0/33' does not appear to be an IPv4 or IPv6 network
            base/top.sls:14:3 error[invalid-target] target `N@nogroup`: unknown nodegroup `nogroup`; it expands to nothing
            base/top.sls:14:3 error[invalid-target] target `N@nogroup`: the expression `(nothing)` is not valid Python (invalid syntax), so Salt treats it as False
            base/top.sls:15:3 error[invalid-target] target `x`: unknown matcher `nosuch` (Salt raises KeyError: 'nosuch_match.match'); known matchers: glob, pcre, list, grain, grain_pcre, pillar, pillar_pcre, pillar_exact, ipcidr, compound, nodegroup, data, range, resource, managing_minion
            base/top.sls:16:3 error[malformed-top] Malformed topfile: state declarations for matcher 'short' in saltenv 'base' are not formed as a list (got str)
            base/top.sls:17:1 warning[unknown-environment] environment `prod` has no file roots (defined: base, dev): a minion this section targets fails its highstate with "No matching salt environment for environment 'prod' found"
        "#]]
        .assert_eq(&got);
        // merge: a section the base top already defines is ignored in the env's own top.
        let got = check(
            "#- salt-analyzer.yaml\nfile_roots: {base: [b], dev: [d]}\n#- b/top.sls\ndev: {'*': [x]}\n#- d/top.sls\ndev: {'*': [x]}\n#- d/x.sls\nx: test.nop\n",
        );
        expect![[r#"
            d/top.sls:1:1 warning[unused-section] section `dev` is never used: base's top file already defines `dev` (top_file_merging_strategy: merge)
        "#]]
        .assert_eq(&got);
    }
}
