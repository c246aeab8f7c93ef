//! `# salt-analyzer: disable=CODE` (YAML comment) and `{# salt-analyzer: disable=CODE #}`
//! (Jinja comment) silence findings in `check` and the editor; `disable-file=` a whole file; a
//! code a directive names that silences nothing is an `unused-suppression` warning.

mod support;

use serde_json::json;
use support::{run_cli as run, ClientOptions, Lsp, TempTree};

/// `file:line code severity` of each finding of `check --format json`.
fn findings(out: &str) -> Vec<String> {
    let v: serde_json::Value = serde_json::from_str(out).expect("json");
    let line = |d: &serde_json::Value| {
        let file = d["file"].as_str().unwrap_or("");
        format!(
            "{}:{} {} {}",
            file.rsplit('/').next().unwrap_or(file),
            d["range"]["start"]["line"],
            d["code"].as_str().unwrap_or(""),
            d["severity"].as_str().unwrap_or("")
        )
    };
    v["diagnostics"].as_array().map(|all| all.iter().map(line).collect()).unwrap_or_default()
}

fn tree() -> TempTree {
    let t = TempTree::new("suppress", None);
    t.write("salt-analyzer.yaml", "file_roots: {base: [salt]}\n");
    t.write("salt/top.sls", "base:\n  '*': [web, db]\n");
    // ß, ℝ and 💣 before the directives: lines, not bytes or UTF-16 units, decide.
    t.write(
        "salt/web.sls",
        "# ß ℝ 💣\ninclude:\n  - nosuch  # salt-analyzer: disable=missing-include\n  - gone\nnginx:\n  pkg.installed:\n    - require:\n      # salt-analyzer: disable=missing-requisite-target, duplicate-id\n      - pkg: absent\n",
    );
    t.write(
        "salt/db.sls",
        "{#- salt-analyzer: disable-file=missing-include #}\ninclude:\n  - alsomissing\npostgres: {pkg.installed: []}  # salt-analyzer: disable=no-such-code\n",
    );
    t
}

#[test]
fn check_honours_directives_and_reports_the_unused() {
    let t = tree();
    let (code, out, err) = run(&t.root, &["check", "--format", "json"]);
    // `gone` is not silenced: an error, exit 1.
    assert_eq!(code, 1, "{out}{err}");
    expect_test::expect![[r#"
        [
            "db.sls:3 unused-suppression warning",
            "web.sls:3 missing-include error",
            "web.sls:7 unused-suppression warning",
        ]
    "#]]
    .assert_debug_eq(&findings(&out));
    let (_, text, _) = run(&t.root, &["check"]);
    assert!(text.contains("warning[unused-suppression]: `duplicate-id` is suppressed here, but no `duplicate-id` finding is on the line it covers"), "{text}");
    assert!(text.contains("warning[unused-suppression]: `no-such-code` is no salt-analyzer code"), "{text}");
    // Without the directives every finding is back.
    t.write("salt/web.sls", "include:\n  - nosuch\n  - gone\nnginx:\n  pkg.installed:\n    - require:\n      - pkg: absent\n");
    t.write("salt/db.sls", "include:\n  - alsomissing\npostgres: {pkg.installed: []}\n");
    let (_, out, _) = run(&t.root, &["check", "--format", "json"]);
    let all = findings(&out);
    assert_eq!(all.iter().filter(|f| f.contains("missing-include")).count(), 3, "{all:?}");
    assert!(all.iter().any(|f| f.contains("missing-requisite-target")), "{all:?}");
}

#[test]
fn the_editor_silences_the_same_and_names_unknown_codes() {
    let t = tree();
    let mut lsp = Lsp::start(&t.root, ClientOptions::default());
    lsp.sync();
    lsp.open_from_disk("salt/web.sls");
    lsp.open_from_disk("salt/db.sls");
    let codes = |lsp: &mut Lsp, rel: &str| -> Vec<String> {
        let uri = lsp.uri(rel);
        let got = lsp.request("textDocument/diagnostic", json!({"textDocument": {"uri": uri}})).expect("diagnostics");
        got["items"].as_array().into_iter().flatten().map(|d| format!("{}:{}", d["range"]["start"]["line"], d["code"].as_str().unwrap_or(""))).collect()
    };
    assert_eq!(codes(&mut lsp, "salt/web.sls"), ["3:missing-include"]);
    // Only an unknown code is reported as unused: the editor sees one minion's findings.
    assert_eq!(codes(&mut lsp, "salt/db.sls"), ["3:unused-suppression"]);
    lsp.finish();
}
