//! `salt-analyzer plan`: the run order of a minion's highstate and of named SLS, as text,
//! JSON and Graphviz dot, and the errors that stop a run.

mod support;

use support::{run_cli as run, TempTree};

fn tree(name: &str) -> TempTree {
    let t = TempTree::new(&format!("plan-{name}"), None);
    t.write("salt-analyzer.yaml", "minions:\n  web01: {}\n");
    t.write("top.sls", "base:\n  '*':\n    - web\n");
    t.write(
        "web.sls",
        "service:\n  test.nop:\n    - require:\n      - test: pkg\npkg:\n  test.nop: []\n\
         check:\n  test.nop:\n    - prereq:\n      - test: service\nbroken:\n  test.nop:\n    - require: [nowhere]\n",
    );
    t.write("ok.sls", "b:\n  test.nop: []\na:\n  test.nop:\n    - require_in: [b]\n");
    t
}

#[test]
fn plan_text_json_and_dot() {
    let t = tree("formats");
    let dir = &t.root;
    let (code, out, _) = run(dir, &["plan", "--minion", "web01", "--sls", "ok"]);
    assert_eq!(code, 0, "{out}");
    assert_eq!(out, "1. test.nop a  [ok]\n   by order 10001\n2. test.nop b  [ok]\n   after `a` (require)\n");
    let (code, out, _) = run(dir, &["plan", "--minion", "web01", "--sls", "ok", "--format", "json"]);
    assert_eq!(code, 0, "{out}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        v,
        serde_json::json!([
            {"tag": "test_|-a_|-a_|-nop", "id": "a", "sls": "ok", "run_num": 0, "after": []},
            {"tag": "test_|-b_|-b_|-nop", "id": "b", "sls": "ok", "run_num": 1, "after": ["test_|-a_|-a_|-nop"]},
        ])
    );
    let (code, out, _) = run(dir, &["plan", "--minion", "web01", "--sls", "ok", "--format", "dot"]);
    assert_eq!(code, 0, "{out}");
    assert!(out.starts_with("digraph G {\n") && out.contains("\"test_|-a_|-a_|-nop\" -> \"test_|-b_|-b_|-nop\" [label=\"require\"];"), "{out}");
}

#[test]
fn plan_of_a_highstate_that_does_not_compile_is_its_errors() {
    let t = tree("errors");
    let dir = &t.root;
    let (code, out, _) = run(dir, &["plan", "--minion", "web01"]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("error[missing-requisite-target]: Referenced state does not exist for requisite [require: (id: nowhere)]"), "{out}");
    std::fs::write(
        dir.join("web.sls"),
        "service:\n  test.nop:\n    - require:\n      - test: pkg\npkg:\n  test.nop: []\ncheck:\n  test.nop:\n    - prereq:\n      - test: service\n",
    )
    .unwrap();
    let (code, out, _) = run(dir, &["plan", "--minion", "web01"]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("tested first (run 1) for the prereq of `check`"), "{out}");
}
