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
            {"tag": "test_|-a_|-a_|-nop", "id": "a", "sls": "ok", "run_num": 0, "step": 0, "after": []},
            {"tag": "test_|-b_|-b_|-nop", "id": "b", "sls": "ok", "run_num": 1, "step": 1, "after": ["test_|-a_|-a_|-nop"]},
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
    assert!(out.contains("tested first for the prereq of `check`; recorded there instead (as run 2)"), "{out}");
}

/// `listen` runs come after every state, each saying which changes make it run; a parallel
/// state that needs another one says it may be put off.
#[test]
fn plan_lists_listeners_and_parallel_waits() {
    let t = tree("listen");
    let dir = &t.root;
    t.write(
        "listen.sls",
        "pkg:\n  test.succeed_with_changes: []\nsvc:\n  test.nop:\n    - listen:\n      - test: pkg\n\
         a:\n  test.nop:\n    - parallel: True\nb:\n  test.nop:\n    - parallel: True\n    - require: [a]\n",
    );
    let (code, out, _) = run(dir, &["plan", "--minion", "web01", "--sls", "listen"]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("5. test.mod_watch listener_svc (svc)  [listen]\n   listen: after every state, if `pkg` reports changes\n"), "{out}");
    assert!(out.contains("parallel: put off while `a` still runs, so it may run later"), "{out}");
    let (code, out, _) = run(dir, &["plan", "--minion", "web01", "--sls", "listen", "--format", "json"]);
    assert_eq!(code, 0, "{out}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        v[4],
        serde_json::json!({"tag": "test_|-listener_svc_|-svc_|-mod_watch", "id": "listener_svc", "sls": "listen", "run_num": 4, "after": [],
            "listener": true, "of": "test_|-svc_|-svc_|-nop", "triggers": [{"step": 0, "tag": "test_|-pkg_|-pkg_|-succeed_with_changes"}]})
    );
    assert_eq!(v[3]["may_wait"], serde_json::json!(["test_|-a_|-a_|-nop"]), "{out}");
}
