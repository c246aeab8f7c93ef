//! `salt-analyzer check examples` flags every planted mistake at its line, and nothing else:
//! the per-file checks, and the highstate of each minion profile (`db01` includes an SLS only
//! its RedHat branch names).

use std::process::Command;

#[test]
fn every_mistake_in_examples_and_nothing_else() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let out = Command::new(env!("CARGO_BIN_EXE_salt-analyzer")).args(["check", "examples", "--format", "json"]).current_dir(&root).output().expect("run");
    assert_eq!(out.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    let got: Vec<String> = v["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            let minions: Vec<&str> = d["minion"].as_array().into_iter().flatten().map(|m| m.as_str().unwrap()).collect();
            format!(
                "{}:{} {} {}{}",
                d["file"].as_str().unwrap(),
                d["range"]["start"]["line"].as_u64().unwrap() + 1,
                d["severity"].as_str().unwrap(),
                d["code"].as_str().unwrap(),
                minions.iter().map(|m| format!(" {m}")).collect::<String>()
            )
        })
        .collect();
    expect_test::expect![[r#"
        [
            "salt/base/common.sls:2 error duplicate-id",
            "salt/base/db/init.sls:6 error missing-include db01.example.com",
            "salt/base/db/users.sls:4 error missing-requisite-target",
            "salt/base/db/users.sls:6 error duplicate-id",
            "salt/base/db/users.sls:13 error malformed-state",
            "salt/base/top.sls:9 error missing-sls",
            "salt/base/web/init.sls:4 error dotted-sls-name",
            "salt/base/web/init.sls:5 error missing-include",
            "salt/base/web/init.sls:23 error unknown-argument",
            "salt/base/web/tls.sls:1 error requisite-cycle",
            "salt/base/web/tls.sls:7 error requisite-cycle",
            "salt/base/webserver_1.0.sls:1 error dotted-sls-name",
        ]
    "#]]
    .assert_debug_eq(&got);
    // Every line marked `# mistake` in the tree has a diagnostic on it or is the file's header.
    let text = String::from_utf8_lossy(&out.stdout);
    let mut marked = 0;
    for entry in walk(&root.join("examples/salt")) {
        let body = std::fs::read_to_string(&entry).unwrap();
        for (i, line) in body.lines().enumerate() {
            if line.contains("# mistake") {
                marked += 1;
                // Paths are relative to the workspace root, `examples/` (its salt-analyzer.yaml).
                let rel = entry.strip_prefix(root.join("examples")).unwrap().display().to_string();
                let near = got.iter().any(|g| {
                    g.starts_with(&format!("{rel}:")) && {
                        let n: usize = g[rel.len() + 1..].split(' ').next().unwrap().parse().unwrap();
                        n.abs_diff(i + 1) <= 4 || i == 0
                    }
                });
                assert!(near, "no diagnostic near {rel}:{}: {line}\n{text}", i + 1);
            }
        }
    }
    // The loop above checks nothing if the marks are gone.
    assert_eq!(marked, 10, "lines marked `# mistake` in examples/salt");
}

fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}
