//! One column convention in every command, on lines where ß (2 bytes, 1 UTF-16 unit), 💣 (4
//! bytes, 2 units) and ℝ (3 bytes, 1 unit) come before the place reported: text output prints
//! `path:LINE:COL` 1-based with columns in characters, JSON prints 0-based lines and UTF-16
//! columns (as LSP counts them), and a `line` field is 1-based, as Salt's messages count.

use std::path::{Path, PathBuf};
use std::process::Command;

fn run(dir: &Path, args: &[&str]) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_salt-analyzer")).args(args).current_dir(dir).output().expect("run binary");
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stdout).into_owned())
}

fn tree(name: &str, top: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("sa-positions-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("salt-analyzer.yaml"), "minions:\n  m1: {grains: {role: x}}\n").unwrap();
    std::fs::write(dir.join("top.sls"), top).unwrap();
    // The requisite `{test: ghost}` comes after ß, 💣 and ℝ: 3 characters, 4 UTF-16 units,
    // 9 bytes.
    std::fs::write(dir.join("app.sls"), "'ß💣ℝ': {test.nop: [{require: [{test: ghost}]}]}\n").unwrap();
    dir
}

/// 30 characters precede `{test: ghost}`: text column 31 (1-based), UTF-16 column 31
/// (0-based: 💣 is two units), where a byte count would say 36.
const TEXT_AT: &str = "app.sls:1:31";

fn json(out: &str) -> serde_json::Value {
    serde_json::from_str(out).unwrap_or_else(|e| panic!("{e}: {out}"))
}

#[test]
fn check_lowstate_and_render_agree_on_columns() {
    let dir = tree("low", "base:\n  '*':\n    - app\n    - {ßℝ💣: nope}\n");
    let (code, text) = run(&dir, &["check"]);
    assert_eq!(code, 1);
    assert!(text.contains(&format!("--> {TEXT_AT}\n")), "{text}");
    // `    - {` is 7 characters before the key.
    assert!(text.contains("--> top.sls:4:8\n"), "{text}");
    let (_, out) = run(&dir, &["check", "--format", "json"]);
    let v = json(&out);
    let starts: Vec<(String, u64, u64)> = v["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| (d["file"].as_str().unwrap().to_string(), d["range"]["start"]["line"].as_u64().unwrap(), d["range"]["start"]["character"].as_u64().unwrap()))
        .collect();
    assert_eq!(starts, [("app.sls".to_string(), 0, 31), ("top.sls".to_string(), 3, 7)]);

    for args in [&["lowstate", "--minion", "m1"][..], &["lowstate", "--sls", "app", "--minion", "m1"][..]] {
        let (code, text) = run(&dir, args);
        assert_eq!(code, 1);
        assert!(text.contains(&format!("--> {TEXT_AT}\n")), "{args:?}: {text}");
        let json_args: Vec<&str> = args.iter().copied().chain(["--format", "json"]).collect();
        let (_, out) = run(&dir, &json_args);
        let e = &json(&out)["errors"][0];
        assert_eq!(
            (e["line"].as_u64(), e["range"]["start"]["line"].as_u64(), e["range"]["start"]["character"].as_u64()),
            (Some(1), Some(0), Some(31)),
            "{out}"
        );
    }
}

#[test]
fn top_errors_count_characters_too() {
    // `base: {'ß': [app], ` is 19 characters before the malformed entry's key (20 bytes).
    let dir = tree("top", "base: {'ß': [app], 'ℝ💣': app}\n");
    let (code, text) = run(&dir, &["top", "--minion", "m1"]);
    assert_eq!(code, 1);
    assert!(text.contains("--> top.sls:1:20\n"), "{text}");
}
