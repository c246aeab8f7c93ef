//! Output cut short: every command whose stdout is closed early (`| head`, a pager that quits)
//! ends quietly with exit 0: no "failed printing to stdout" panic, no backtrace.

use std::path::PathBuf;
use std::process::{Command, Stdio};

/// A tree on which every command prints something (and `check` an error per state).
fn tree() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("sa-broken-pipe-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("app/parameters")).unwrap();
    let write = |p: &str, t: &str| std::fs::write(dir.join(p), t).unwrap();
    write("salt-analyzer.yaml", "minions:\n  web01: {grains: {os_family: Debian}, pillar_file: pillar.yaml}\ndefault_minion: web01\n");
    let pillar: String = (0..3000).map(|i| format!("key_{i}: value number {i}\n")).collect();
    write("pillar.yaml", &pillar);
    write("top.sls", "base:\n  '*':\n    - app\n");
    write("app/map.jinja", "{%- set mapdata = salt[\"map.data\"](tpldir) %}\n");
    let defaults: String = (0..3000).map(|i| format!("  key_{i}: value number {i}\n")).collect();
    write("app/parameters/defaults.yaml", &format!("values:\n{defaults}"));
    // States that each require a state no SLS declares: `check` has an error per state.
    write("app/init.sls", "{% for i in range(200) %}\nstate_{{ i }}:\n  test.nop:\n    - require:\n      - test: missing_{{ i }}\n{% endfor %}\n");
    dir
}

#[test]
fn every_command_ends_quietly_when_its_reader_goes() {
    let dir = tree();
    let commands: &[&[&str]] = &[
        &["check"],
        &["check", "--format", "json"],
        &["lowstate"],
        &["lowstate", "--format", "json"],
        &["top", "--format", "json"],
        &["render", "app/init.sls"],
        &["render", "app/init.sls", "--format", "json"],
        &["mapdata", "app"],
        &["mapdata", "app", "--format", "json"],
        &["pillar"],
        &["pillar", "--format", "json"],
        &["plan"],
        &["plan", "--format", "json"],
        &["plan", "--format", "dot"],
    ];
    for args in commands {
        let mut child = Command::new(env!("CARGO_BIN_EXE_salt-analyzer"))
            .args(*args)
            .current_dir(&dir)
            .env("RUST_BACKTRACE", "1")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn");
        // The reader goes before the command has written a byte.
        drop(child.stdout.take());
        let out = child.wait_with_output().expect("wait");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!stderr.contains("panicked") && !stderr.contains("Broken pipe") && !stderr.contains("backtrace"), "{args:?}: {stderr}");
        assert_eq!(out.status.code(), Some(0), "{args:?}: {stderr}");
    }
    // The same commands with a reader print what they printed before (the exit codes of the
    // error-reporting commands unchanged).
    let out = Command::new(env!("CARGO_BIN_EXE_salt-analyzer")).args(["check"]).current_dir(&dir).output().expect("run");
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stdout).contains("missing_199"));
    let _ = std::fs::remove_dir_all(&dir);
}
