//! `check --format github` (GitHub Actions workflow commands) and `--format gitlab` (GitLab
//! Code Quality JSON): one entry a finding, paths relative to the repository, the exit code of
//! `check`.

mod support;

use support::{run_cli as run, TempTree};

fn tree() -> TempTree {
    let t = TempTree::new("check-formats", None);
    t.write("infra/salt-analyzer.yaml", "file_roots: {base: [salt]}\n");
    t.write("infra/salt/top.sls", "base:\n  '*': [web]\n");
    t.write("infra/salt/web.sls", "# ß ℝ 💣\ninclude:\n  - nosuch\nnginx:\n  pkg.instaled: []\n");
    std::fs::create_dir_all(t.root.join(".git")).expect("a repository marker");
    t
}

#[test]
fn github_annotations_and_gitlab_code_quality() {
    let t = tree();
    let dir = t.root.join("infra");
    let (code, out, err) = run(&dir, &["check", "--format", "github"]);
    assert_eq!(code, 1, "{out}{err}");
    expect_test::expect![[r#"
        ::error file=infra/salt/web.sls,line=3,col=5,endLine=3,endColumn=11,title=salt-analyzer missing-include::Specified SLS nosuch in saltenv base is not available on the salt master or through a configured fileserver
        ::warning file=infra/salt/web.sls,line=5,col=3,endLine=5,endColumn=15,title=salt-analyzer unknown-function::State 'pkg.instaled' was not found in SLS 'web'%0AReason: 'pkg.instaled' is not available.%0ADid you mean 'pkg.installed'?
    "#]]
    .assert_eq(&out);
    let (code, out, _) = run(&dir, &["check", "--format", "gitlab"]);
    assert_eq!(code, 1);
    let list: serde_json::Value = serde_json::from_str(&out).expect("JSON");
    let brief: Vec<String> = list
        .as_array()
        .expect("a list")
        .iter()
        .map(|i| {
            assert_eq!(i["fingerprint"].as_str().map(str::len), Some(64), "{i}");
            format!(
                "{} {} {}:{}",
                i["check_name"].as_str().unwrap_or(""),
                i["severity"].as_str().unwrap_or(""),
                i["location"]["path"].as_str().unwrap_or(""),
                i["location"]["lines"]["begin"]
            )
        })
        .collect();
    assert_eq!(brief, ["missing-include major infra/salt/web.sls:3", "unknown-function minor infra/salt/web.sls:5"]);
    // Clean: no annotation, exit 0; GitLab gets an empty list.
    t.write("infra/salt/web.sls", "nginx:\n  pkg.installed: []\n");
    assert_eq!(run(&dir, &["check", "--format", "github"]), (0, String::new(), String::new()));
    assert_eq!(run(&dir, &["check", "--format", "gitlab"]).1, "[]\n");
}
