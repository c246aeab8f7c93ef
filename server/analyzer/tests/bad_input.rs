//! The CLI on hostile trees: files that are not YAML, not UTF-8, empty or huge, a symlink
//! loop in a file root, and configurations that are not YAML. Never a panic; the rest of the
//! tree is still checked.

use std::path::Path;
use std::process::Command;

fn run(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_salt-analyzer")).args(args).current_dir(dir).output().expect("run binary");
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned())
}

fn tree(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("sa-bad-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn hostile_files_give_diagnostics_and_the_rest_is_checked() {
    let dir = tree("files");
    std::fs::write(dir.join("notyaml.sls"), "a: [\n").unwrap();
    std::fs::write(dir.join("binary.sls"), b"x: \xff\xfe\n").unwrap();
    std::fs::write(dir.join("empty.sls"), "").unwrap();
    std::fs::write(dir.join("tabs.sls"), "a:\n\t- test.nop\n").unwrap();
    std::fs::write(dir.join("list.sls"), "- a\n- b\n").unwrap();
    std::fs::write(dir.join("incl.sls"), "include: [binary, empty]\nlater:\n  test.nop:\n    - require: [nothing_here]\n").unwrap();
    std::fs::create_dir_all(dir.join("loop")).unwrap();
    std::os::unix::fs::symlink("..", dir.join("loop/up")).unwrap();
    // About 10 MB of states with long names.
    let mut huge = String::new();
    let mut i = 0;
    while huge.len() < 10_000_000 {
        huge.push_str(&format!("id_{i}_{}:\n  test.nop:\n    - name: n{i}\n", "x".repeat(400)));
        i += 1;
    }
    std::fs::write(dir.join("huge.sls"), huge).unwrap();
    let (code, stdout, stderr) = run(&dir, &["check", "--format", "json"]);
    assert_eq!(code, 1, "stdout: {stdout}\nstderr: {stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    let v: serde_json::Value = serde_json::from_str(&stdout).expect("json");
    let got: Vec<String> = v["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| format!("{} {} {}", d["file"].as_str().unwrap(), d["range"]["start"]["line"], d["code"].as_str().unwrap()))
        .collect();
    let want = [
        "binary.sls 0 unreadable-file",
        "incl.sls 0 unreadable-file",
        "incl.sls 3 missing-requisite-target",
        "list.sls 0 malformed-state",
        "notyaml.sls 1 yaml-syntax",
        "tabs.sls 1 yaml-syntax",
    ];
    assert_eq!(got, want, "{stdout}");
    let msgs = stdout.clone();
    assert!(msgs.contains("not valid UTF-8"), "{msgs}");
    assert!(msgs.contains("Illegal tab character"), "{msgs}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn broken_configuration_is_a_one_line_error() {
    let dir = tree("config");
    std::fs::write(dir.join("salt-analyzer.yaml"), "file_roots: [\n").unwrap();
    let (code, stdout, stderr) = run(&dir, &["check"]);
    assert_eq!(code, 2);
    assert!(stdout.is_empty());
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("salt-analyzer.yaml:2: not valid YAML"), "{stderr}");

    std::fs::remove_file(dir.join("salt-analyzer.yaml")).unwrap();
    std::fs::create_dir_all(dir.join("etc")).unwrap();
    std::fs::write(dir.join("etc/minion"), "file_roots: {base: [\n").unwrap();
    let (code, _, stderr) = run(&dir, &["check", "-c", "etc"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("etc/minion:2: not valid YAML"), "{stderr}");
    let (code, _, stderr) = run(&dir, &["lowstate", "-c", "no/such/dir", "--sls", "x"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("no such configuration directory"), "{stderr}");
    let _ = std::fs::remove_dir_all(&dir);
}
