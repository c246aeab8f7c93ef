//! The editor over a master configuration that serves formulas from a gitfs remote: an
//! include of a gitfs formula resolves (it is not a `missing-include`), and the top file's
//! matches and the highstate see the remote's files.

use std::path::Path;
use std::process::Command;

use crate::AnalysisHost;

fn git(dir: &Path, args: &[&str]) {
    let ok = Command::new("git")
        .args(["-c", "user.name=t", "-c", "user.email=t@t", "-c", "init.defaultBranch=master", "-c", "commit.gpgsign=false"])
        .args(args)
        .current_dir(dir)
        .status()
        .is_ok_and(|s| s.success());
    assert!(ok, "git {args:?}");
}

#[test]
fn a_gitfs_formula_is_included_and_applied() {
    let root = std::env::temp_dir().join(format!("sa-ide-gitfs-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    let repo = root.join("nginx-formula");
    let write = |rel: &str, text: &str| {
        let p = root.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    };
    write("nginx-formula/nginx/init.sls", "nginx:\n  pkg.installed: []\n");
    git(&repo, &["init", "-q"]);
    git(&repo, &["add", "-A"]);
    git(&repo, &["commit", "-q", "-m", "one"]);
    write(
        "etc/master",
        &format!("fileserver_backend: [roots, gitfs]\nfile_roots: {{base: [{}]}}\ngitfs_remotes:\n  - file://{}\n", root.join("srv").display(), repo.display()),
    );
    write("salt-analyzer.yaml", "salt_config: etc\nminions: {web01: {}}\n");
    write("srv/top.sls", "base:\n  '*': [site]\n");
    write("srv/site.sls", "include:\n  - nginx\nsite:\n  file.managed:\n    - name: /etc/site\n    - require:\n      - pkg: nginx\n");
    let mut host = AnalysisHost::new(&root);
    host.set_minion(Some("web01".into()));
    let analysis = host.snapshot();
    let diags = analysis.diagnostics(&root.join("srv/site.sls")).unwrap();
    assert!(diags.is_empty(), "{diags:?}");
    let explain = analysis.top_explain(Some("web01"));
    assert!(explain.contains("site"), "{explain}");
    // Without the remote the include is missing: the test can fail.
    write("etc/master", &format!("file_roots: {{base: [{}]}}\n", root.join("srv").display()));
    let host = AnalysisHost::new(&root);
    let diags = host.snapshot().diagnostics(&root.join("srv/site.sls")).unwrap();
    assert!(diags.iter().any(|d| d.code == "missing-include"), "{diags:?}");
    let _ = std::fs::remove_dir_all(&root);
}

#[test]
fn git_pillar_gives_the_pillar_states_see_and_a_remote_without_a_copy_is_a_warning() {
    let root = std::env::temp_dir().join(format!("sa-ide-git-pillar-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    let repo = root.join("pillar.git");
    let write = |rel: &str, text: &str| {
        let p = root.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    };
    write("pillar.git/top.sls", "base:\n  '*': [app]\n");
    write("pillar.git/app.sls", "app:\n  port: 8080\n");
    git(&repo, &["init", "-q"]);
    git(&repo, &["add", "-A"]);
    git(&repo, &["commit", "-q", "-m", "one"]);
    let master = format!(
        "file_roots: {{base: [{}]}}\npillar_roots: {{}}\next_pillar:\n  - git:\n    - master file://{}\n    - master https://git.example.com/gone.git\n",
        root.join("srv").display(),
        repo.display()
    );
    write("etc/master", &master);
    write("salt-analyzer.yaml", "salt_config: etc\nminions: {web01: {}}\n");
    write("srv/top.sls", "base:\n  '*': [site]\n");
    write("srv/site.sls", "site:\n  test.nop:\n    - name: port-{{ pillar['app']['port'] }}\n");
    let mut host = AnalysisHost::new(&root);
    host.set_minion(Some("web01".into()));
    let analysis = host.snapshot();
    let diags = analysis.diagnostics(&root.join("srv/site.sls")).unwrap();
    assert!(diags.is_empty(), "{diags:?}");
    let conf = analysis.diagnostics(&root.join("etc/master")).unwrap();
    assert_eq!(conf.iter().map(|d| d.code.as_str()).collect::<Vec<_>>(), ["gitfs-remote"], "{conf:?}");
    assert!(conf[0].message.contains("has no local copy"), "{conf:?}");
    // Without the served remote the pillar has no `app`: the test can fail.
    write("etc/master", &master.replace(&format!("file://{}", repo.display()), "https://git.example.com/other.git"));
    let mut host = AnalysisHost::new(&root);
    host.set_minion(Some("web01".into()));
    let diags = host.snapshot().diagnostics(&root.join("srv/site.sls")).unwrap();
    assert!(!diags.is_empty(), "{diags:?}");
    let _ = std::fs::remove_dir_all(&root);
}
