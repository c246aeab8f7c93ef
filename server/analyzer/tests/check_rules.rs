//! `check --select`/`--ignore` (which codes are reported) and `--write-baseline`/`--baseline`
//! (a legacy tree's accepted findings left out, matched by code, file and content: lines may
//! move).

mod support;

use support::{run_cli as run, TempTree};

/// `line code` of each finding of `check --format json`.
fn codes(out: &str) -> Vec<String> {
    let v: serde_json::Value = serde_json::from_str(out).expect("json");
    let f = |d: &serde_json::Value| format!("{} {}", d["range"]["start"]["line"], d["code"].as_str().unwrap_or(""));
    v["diagnostics"].as_array().map(|all| all.iter().map(f).collect()).unwrap_or_default()
}

fn tree() -> TempTree {
    let t = TempTree::new("check-rules", None);
    t.write("salt-analyzer.yaml", "file_roots: {base: [salt]}\n");
    t.write("salt/top.sls", "base:\n  '*': [web]\n");
    t.write("salt/web.sls", "include:\n  - nosuch\nnginx:\n  pkg.instaled: []\n");
    t
}

#[test]
fn a_deprecated_state_is_reported_once_with_our_code() {
    // With a `.salt-lint` file salt-lint's 912 is on; the compile already says `docker.running`
    // is no state function of the release: that finding stays, salt-lint's is dropped.
    let t = tree();
    t.write("salt/web.sls", "app:\n  docker.running:\n    - image: x\n");
    t.write(".salt-lint", "skip_list: []\n");
    let (_, out, _) = run(&t.root, &["check", "--format", "json"]);
    assert_eq!(codes(&out), ["1 unknown-function"]);
    // Alone (the function known, say, through `_states`), it is reported.
    t.write("salt/_states/docker.py", "def running(name, image=None, **kwargs):\n    return {}\n");
    let (_, out, _) = run(&t.root, &["check", "--format", "json"]);
    assert_eq!(codes(&out), ["1 deprecated-state"]);
}

#[test]
fn select_and_ignore_choose_codes() {
    let t = tree();
    let (_, out, _) = run(&t.root, &["check", "--format", "json"]);
    assert_eq!(codes(&out), ["1 missing-include", "3 unknown-function"]);
    let (code, out, _) = run(&t.root, &["check", "--format", "json", "--select", "unknown-function"]);
    assert_eq!((code, codes(&out)), (0, vec!["3 unknown-function".to_string()]), "a warning alone exits 0");
    let (code, out, _) = run(&t.root, &["check", "--format", "json", "--ignore", "unknown-function,duplicate-id"]);
    assert_eq!((code, codes(&out)), (1, vec!["1 missing-include".to_string()]));
    let (code, _, err) = run(&t.root, &["check", "--ignore", "missing-includes"]);
    assert_eq!(code, 2);
    assert!(err.starts_with("salt-analyzer: error: `missing-includes` is no code (codes: dotted-sls-name, missing-include,"), "{err}");
}

#[test]
fn a_baseline_leaves_out_what_it_holds_while_lines_move() {
    let t = tree();
    let base = t.root.join("baseline.json");
    let base_arg = base.to_string_lossy().into_owned();
    let (code, out, err) = run(&t.root, &["check", "--write-baseline", &base_arg]);
    assert_eq!((code, out.as_str()), (0, ""), "{err}");
    assert_eq!(err, format!("salt-analyzer: wrote 2 finding(s) to the baseline {base_arg}\n"));
    // Lines above move the findings, indentation changes: still the baseline's; a new include is new.
    t.write("salt/web.sls", "# ß ℝ 💣\n\ninclude:\n    - nosuch\n    - alsomissing\nnginx:\n  pkg.instaled: []\n");
    let (code, out, err) = run(&t.root, &["check", "--format", "json", "--baseline", &base_arg]);
    assert_eq!((code, codes(&out)), (1, vec!["4 missing-include".to_string()]), "{err}");
    assert_eq!(err, "salt-analyzer: 2 finding(s) left out as in the baseline\n");
    // Fixed: the entry matches nothing, which is said, and nothing fails.
    t.write("salt/web.sls", "nginx:\n  pkg.instaled: []\n");
    let (code, out, err) = run(&t.root, &["check", "--format", "json", "--baseline", &base_arg]);
    assert_eq!((code, codes(&out)), (0, vec![]));
    assert_eq!(
        err,
        "salt-analyzer: 1 finding(s) left out as in the baseline; 1 baseline entr(ies) match nothing now (fixed: --write-baseline again to drop them)\n"
    );
    std::fs::write(&base, "[]").unwrap();
    let (code, _, err) = run(&t.root, &["check", "--baseline", &base_arg]);
    assert_eq!(code, 2);
    assert!(err.ends_with("baseline.json: not a salt-analyzer baseline (written by `check --write-baseline`)\n"), "{err}");
}

/// `rules:` in salt-analyzer.yaml: the same choices kept in the repository, per path glob, in
/// `check` and in the editor.
#[test]
fn rules_in_the_workspace_file() {
    let t = tree();
    t.write("salt/legacy/old.sls", "include:\n  - gone\n");
    t.write(
        "salt-analyzer.yaml",
        "file_roots: {base: [salt]}\nrules:\n  severity: {unknown-function: error}\n  paths:\n    'salt/legacy/*': {ignore: [missing-include]}\n",
    );
    let sev = |out: &str| -> Vec<String> {
        let v: serde_json::Value = serde_json::from_str(out).expect("json");
        v["diagnostics"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|d| format!("{} {} {}", d["file"].as_str().unwrap_or(""), d["code"].as_str().unwrap_or(""), d["severity"].as_str().unwrap_or("")))
            .collect()
    };
    let (code, out, _) = run(&t.root, &["check", "--format", "json"]);
    assert_eq!(code, 1);
    assert_eq!(sev(&out), ["salt/web.sls missing-include error", "salt/web.sls unknown-function error"]);
    let mut lsp = support::Lsp::start(&t.root, support::ClientOptions::default());
    lsp.sync();
    for rel in ["salt/web.sls", "salt/legacy/old.sls"] {
        lsp.open_from_disk(rel);
    }
    let diags = |lsp: &mut support::Lsp, rel: &str| -> Vec<String> {
        let uri = lsp.uri(rel);
        let got = lsp.request("textDocument/diagnostic", serde_json::json!({"textDocument": {"uri": uri}})).expect("diagnostics");
        got["items"].as_array().into_iter().flatten().map(|d| format!("{} {}", d["code"].as_str().unwrap_or(""), d["severity"])).collect()
    };
    // LSP severities: 1 error.
    assert_eq!(diags(&mut lsp, "salt/web.sls"), ["missing-include 1", "unknown-function 1"]);
    assert_eq!(diags(&mut lsp, "salt/legacy/old.sls"), Vec::<String>::new());
    lsp.finish();
    // A mistake names its line and stops check.
    t.write("salt-analyzer.yaml", "file_roots: {base: [salt]}\nrules:\n  ignore: [missing-includes]\n");
    let (code, _, err) = run(&t.root, &["check"]);
    assert_eq!(code, 2);
    assert!(err.contains("salt-analyzer.yaml:3: rules: ignore: `missing-includes` is no code"), "{err}");
}

/// A formula checkout with no configuration: its kitchen test pillars are pillar data, not
/// states (they would read as malformed states), and the first line says so.
#[test]
fn a_formula_checkout_is_clean_on_the_first_run() {
    let t = TempTree::new("formula-first-run", None);
    t.write("nginx/init.sls", "nginx:\n  pkg.installed: []\n");
    t.write("test/salt/default/pillar/nginx.sls", "nginx:\n  lookup:\n    package: nginx-full\n");
    t.write("test/salt/suite/pillar.sls", "nginx:\n  service: {enable: true}\n");
    let (code, out, err) = run(&t.root, &["check"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(err.contains("pillar data, not checked as states: test/salt/default/pillar/ test/salt/suite/pillar.sls"), "{err}");
    assert!(out.ends_with("0 error(s), 0 warning(s), for Salt 3008 (the default: set salt_version: in salt-analyzer.yaml or --salt-version, or a minion's own saltversioninfo grain)\n"), "{out}");
}

/// salt-lint's ported rules, and a migrating team's `.salt-lint` read as it is.
#[test]
fn salt_lint_rules_and_its_configuration() {
    let t = tree();
    t.write("salt/web.sls", "conf:\n  file.managed:\n    - name: /etc/ß\n    - mode: 0644\n");
    let (_, out, _) = run(&t.root, &["check", "--format", "json"]);
    assert_eq!(codes(&out), ["3 file-mode-unquoted", "3 octal-unquoted"]);
    t.write(".salt-lint", "skip_list:\n  - 207\nexclude_paths: []\n");
    let (_, out, _) = run(&t.root, &["check", "--format", "json"]);
    assert_eq!(codes(&out), ["3 octal-unquoted"]);
    t.write("salt/web.sls", "conf:\n  file.managed:\n    - name: /etc/ß\n    - mode: 0644  # noqa 210\n");
    let (code, out, _) = run(&t.root, &["check", "--format", "json"]);
    assert_eq!((code, codes(&out)), (0, vec![]));
}

/// Formatting rules are off until asked for: `--select`, `rules: enable:`, or a `.salt-lint`
/// file (salt-lint runs all its rules), whose `rules: ID: ignore:` patterns hold per file; a
/// Jinja file gets the Jinja rules.
#[test]
fn style_rules_off_by_default_are_turned_on() {
    let t = tree();
    t.write("salt/web.sls", "conf:   \n  file.managed:\n    - name: /etc/{{name}}\n    - onchange: []\n");
    t.write("salt/map.jinja", "{% set x = {'a': 1}%}\n");
    let (_, out, _) = run(&t.root, &["check", "--format", "json"]);
    assert_eq!(codes(&out), ["3 onchanges-typo"]);
    let (_, out, _) = run(&t.root, &["check", "--format", "json", "--select", "trailing-whitespace,jinja-statement-spacing"]);
    assert_eq!(codes(&out), ["0 jinja-statement-spacing", "0 trailing-whitespace"]);
    t.write("salt-analyzer.yaml", "file_roots: {base: [salt]}\nrules:\n  enable: [jinja-variable-spacing]\n");
    let (_, out, _) = run(&t.root, &["check", "--format", "json"]);
    assert_eq!(codes(&out), ["2 jinja-variable-spacing", "3 onchanges-typo"]);
    t.write(".salt-lint", "rules:\n  jinja:\n    ignore: '*.jinja'\n");
    let (_, out, _) = run(&t.root, &["check", "--format", "json"]);
    assert_eq!(codes(&out), ["0 sls-extension", "0 trailing-whitespace", "2 jinja-variable-spacing", "3 onchanges-typo"]);
    let (_, out, _) = run(&t.root, &["rules", "--format", "json"]);
    let list: serde_json::Value = serde_json::from_str(&out).expect("json");
    let row = list.as_array().and_then(|l| l.iter().find(|r| r["code"] == "deprecated-state")).cloned().unwrap_or_default();
    assert_eq!((row["category"].as_str(), row["default"].as_str(), row["salt_lint"][13].as_str()), (Some("style"), Some("off"), Some("915")));
}
