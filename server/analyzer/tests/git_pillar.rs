//! git_pillar from the command line: a master configuration whose `ext_pillar: - git:` names a
//! `file://` repository (two branches, two pillar environments) and a remote with no local copy.
//! The pillar is computed from the served remotes, states see it, and the missing remote is one
//! `gitfs-remote` warning at its line (on stderr, and once in `check`).

use std::path::{Path, PathBuf};
use std::process::Command;

fn run(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_salt-analyzer")).args(args).current_dir(dir).output().expect("run binary");
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned())
}

/// The tests make the repository with the `git` command (the product never runs it).
fn git(dir: &Path, args: &[&str]) {
    let out = Command::new("git")
        .args(["-c", "user.name=t", "-c", "user.email=t@t", "-c", "init.defaultBranch=master", "-c", "commit.gpgsign=false"])
        .args(args)
        .current_dir(dir)
        .output()
        .expect("git runs");
    assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
}

/// A scratch directory removed when dropped.
struct Scratch(PathBuf);

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn setup(name: &str) -> (Scratch, PathBuf) {
    let dir = std::env::temp_dir().join(format!("sa-git-pillar-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let tmp = Scratch(dir.clone());
    let write = |p: &str, t: &str| {
        let p = dir.join(p);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, t).unwrap();
    };
    let repo = dir.join("pillar.git");
    write("pillar.git/top.sls", "base:\n  '*':\n    - app\n");
    write("pillar.git/app.sls", "app:\n  port: 8080\n  env: {{ saltenv }}\n");
    git(&repo, &["init", "-q"]);
    git(&repo, &["add", "-A"]);
    git(&repo, &["commit", "-q", "-m", "master"]);
    git(&repo, &["checkout", "-q", "-b", "dev"]);
    write("pillar.git/top.sls", "dev:\n  '*':\n    - extra\n");
    write("pillar.git/extra.sls", "app:\n  debug: true\n");
    git(&repo, &["add", "-A"]);
    git(&repo, &["commit", "-q", "-m", "dev"]);
    git(&repo, &["checkout", "-q", "master"]);
    write(
        "etc/master",
        &format!(
            "id: web01\nfile_roots: {{base: [{0}/srv]}}\npillar_roots: {{}}\next_pillar:\n  - git:\n    - master file://{1}\n    - dev file://{1}\n    - master https://git.example.com/missing.git\n",
            dir.display(),
            repo.display()
        ),
    );
    write("srv/top.sls", "base:\n  '*':\n    - web\n");
    write("srv/web.sls", "site:\n  test.nop:\n    - name: port-{{ pillar['app']['port'] }}-{{ pillar['app'].get('debug') }}\n");
    (tmp, dir)
}

#[test]
fn the_served_remotes_give_the_pillar_and_a_remote_without_a_copy_is_one_warning() {
    let (_tmp, dir) = setup("warn");
    let (code, out, err) = run(&dir, &["pillar", "-c", "etc", "--format", "json"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("json");
    assert_eq!(v, serde_json::json!({"app": {"port": 8080, "env": "base", "debug": true}}));
    assert_eq!(err.matches("warning[gitfs-remote]").count(), 1, "{err}");
    assert!(err.contains("git_pillar remote 'master https://git.example.com/missing.git' has no local copy"), "{err}");
    // --explain names the remote's file and line that set a value.
    let (_, out, _) = run(&dir, &["pillar", "-c", "etc", "--explain"]);
    let debug = out.lines().find(|l| l.contains("debug: true")).unwrap_or_default();
    assert!(debug.contains("[dev] extra") && debug.contains("pillar.git@pillar:dev/extra.sls:2"), "{out}");
    // States see it.
    let (code, out, err) = run(&dir, &["lowstate", "-c", "etc", "--format", "json"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("\"name\": \"port-8080-True\""), "{out}");
    // `check`: the one finding, at the remote's line of the configuration.
    let (_, out, _) = run(&dir, &["check", "-c", "etc", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&out).expect("json");
    let found: Vec<&serde_json::Value> = v["diagnostics"].as_array().into_iter().flatten().filter(|d| d["code"] == "gitfs-remote").collect();
    assert_eq!(found.len(), 1, "{out}");
    // 0-based line 7: `    - master https://git.example.com/missing.git`.
    assert!(found[0]["file"] == "etc/master" && found[0]["range"]["start"]["line"] == 7, "{out}");
}

#[test]
fn pillarenv_picks_the_remotes_of_its_environment() {
    let (_tmp, dir) = setup("env");
    let conf = dir.join("etc/master");
    let text = std::fs::read_to_string(&conf).unwrap();
    std::fs::write(&conf, format!("pillarenv: dev\n{text}")).unwrap();
    let (_, out, err) = run(&dir, &["pillar", "-c", "etc", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&out).expect("json");
    assert_eq!(v, serde_json::json!({"app": {"debug": true}}), "{err}");
}
