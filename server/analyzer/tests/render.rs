//! `salt-analyzer render FILE`: the template's output for the selected minion, the data with
//! `--format json`, and render errors at the template's own line.

use std::path::{Path, PathBuf};
use std::process::Command;

fn run(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_salt-analyzer")).args(args).current_dir(dir).output().expect("run binary");
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned())
}

/// The tree, in a directory of its own per test (tests run in parallel).
fn tree(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("sa-render-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("salt/web")).unwrap();
    let write = |p: &str, t: &str| std::fs::write(dir.join(p), t).unwrap();
    write(
        "salt-analyzer.yaml",
        "file_roots: {base: [salt]}\nminions:\n  web01: {grains: {os_family: Debian}, pillar: {web: {port: 8080}}}\n  web02: {grains: {os_family: RedHat}}\ndefault_minion: web01\n",
    );
    write("salt/web/map.jinja", "{% set pkg = 'apache2' if grains['os_family'] == 'Debian' else 'httpd' %}\n");
    write(
        "salt/web/init.sls",
        "{% from './map.jinja' import pkg %}\n# ß ℝ 💣\n{{ pkg }}:\n  pkg.installed: []\nport_{{ slspath }}:\n  test.nop:\n    - name: {{ salt['pillar.get']('web:port', 80) }}\n",
    );
    write("salt/web/broken.sls", "a:\n  test.nop: []\n{% if grains['nope'] %}\nb: 1\n{% endif %}\n");
    write("salt/web/badyaml.sls", "{% set v = 'x: [' %}\nkey: {{ v }}\n");
    write("salt/web/plain.sls", "#!yaml\nliteral: '{{ not rendered }}'\n");
    dir
}

#[test]
fn text_and_data_for_each_minion() {
    let dir = tree("ok");
    let (code, out, err) = run(&dir, &["render", "salt/web/init.sls"]);
    assert_eq!(code, 0, "{err}");
    expect_test::expect![[r#"

        # ß ℝ 💣
        apache2:
          pkg.installed: []
        port_web:
          test.nop:
            - name: 8080
    "#]]
    .assert_eq(&out);
    let (code, out, _) = run(&dir, &["render", "salt/web/init.sls", "--minion", "web02", "--format", "json"]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v, serde_json::json!({"httpd": {"pkg.installed": []}, "port_web": {"test.nop": [{"name": 80}]}}));
    // `#!yaml`: no Jinja step, the text is loaded as it is.
    let (code, out, _) = run(&dir, &["render", "salt/web/plain.sls", "--format", "json"]);
    assert_eq!((code, out.trim()), (0, "{\n  \"literal\": \"{{ not rendered }}\"\n}"));
}

#[test]
fn render_errors_say_where() {
    let dir = tree("errors");
    let (code, out, _) = run(&dir, &["render", "salt/web/broken.sls", "--format", "json"]);
    assert_eq!(code, 1);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let e = &v["errors"][0];
    assert_eq!(e["code"], "render-error");
    assert_eq!(e["line"], 3, "{out}");
    // Salt's words for a missing grain, and where it would come from.
    let message = e["message"].as_str().unwrap();
    assert!(message.starts_with("Jinja variable 'salt.utils.optsdict.DictProxy object' has no attribute 'nope'"), "{out}");
    assert!(message.contains("add it to the profile, or use `grains_file`"), "{out}");
    // YAML that breaks only after rendering: the rendered line is quoted.
    let (code, out, _) = run(&dir, &["render", "salt/web/badyaml.sls"]);
    assert_eq!(code, 1);
    assert!(out.contains("in the rendered text, line 2: `key: x: [`"), "{out}");
}
