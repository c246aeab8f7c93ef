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

// The tests below put one ß, one ℝ and two 💣 before the places that matter, so that every
// convention gives a different column: a place `c` characters into its line is column `c + 1`
// in text and `c + 2` in JSON, where byte columns would say `c + 10` and `c + 9`, and the other
// mix-ups (UTF-16 in text, characters in JSON) `c + 3` and `c`.

/// An LSP range on line 0.
fn on_first_line(start: u32, end: u32) -> serde_json::Value {
    serde_json::json!({"start": {"line": 0, "character": start}, "end": {"line": 0, "character": end}})
}

/// A tree of one-line files, each place after the non-ASCII characters (`c` counts the
/// characters before it):
/// - a.sls: the requisite `{test: nosuch}` at c = 44, and the ID `dup` at c = 64;
/// - b.sls: the other `dup` at c = 26;
/// - c.sls: a `require` cycle between `x` (c = 23) and `y` (c = 64), which top.sls names.
fn sls_tree(name: &str) -> PathBuf {
    let dir = tree(name, "base: {'*': [c]}\n");
    std::fs::write(dir.join("a.sls"), "{include: [b], ßℝ💣💣: {test.nop: [{require: [{test: nosuch}]}]}, dup: {test.nop: []}}\n").unwrap();
    std::fs::write(dir.join("b.sls"), "{ß ℝ 💣 💣: {test.nop: []}, dup: {test.nop: []}}\n").unwrap();
    std::fs::write(dir.join("c.sls"), "{ßℝ💣💣: {test.nop: []}, x: {test.nop: [{require: [{test: y}]}]}, y: {test.nop: [{require: [{test: x}]}]}}\n").unwrap();
    dir
}

#[test]
fn check_notes_and_related_ranges_count_the_same_way() {
    let dir = sls_tree("check-related");
    let (code, text) = run(&dir, &["check"]);
    assert_eq!(code, 1, "{text}");
    let places: Vec<&str> = text.lines().filter(|l| l.contains("a.sls:") || l.contains("b.sls:") || l.contains("c.sls:")).map(str::trim).collect();
    assert_eq!(
        places,
        [
            "--> a.sls:1:45",
            "--> a.sls:1:65",
            "note: `dup` is also declared here (b.sls:1:27)",
            "--> b.sls:1:27",
            "note: `dup` is also declared here (a.sls:1:65)",
            "--> c.sls:1:24",
            "note: `y` (c) require `x` (c) (c.sls:1:65)",
            "--> c.sls:1:65",
            "note: `x` (c) require `y` (c) (c.sls:1:24)",
        ],
        "{text}"
    );

    let (_, out) = run(&dir, &["check", "--format", "json"]);
    let v = json(&out);
    let got: Vec<serde_json::Value> = v["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["file"] != "app.sls")
        .map(|d| {
            let related: Vec<serde_json::Value> = d["related"].as_array().unwrap().iter().map(|r| serde_json::json!([r["file"], r["range"]])).collect();
            serde_json::json!([d["file"], d["code"], d["range"], related])
        })
        .collect();
    let want = [
        serde_json::json!(["a.sls", "missing-requisite-target", on_first_line(46, 60), []]),
        serde_json::json!(["a.sls", "duplicate-id", on_first_line(66, 69), [["b.sls", on_first_line(28, 31)]]]),
        serde_json::json!(["b.sls", "duplicate-id", on_first_line(28, 31), [["a.sls", on_first_line(66, 69)]]]),
        serde_json::json!(["c.sls", "requisite-cycle", on_first_line(25, 26), [["c.sls", on_first_line(66, 67)]]]),
        serde_json::json!(["c.sls", "requisite-cycle", on_first_line(66, 67), [["c.sls", on_first_line(25, 26)]]]),
    ];
    assert_eq!(got, want, "{v:#}");
}

#[test]
fn lowstate_cycle_and_duplicate_id_entries_each_at_their_place() {
    let dir = sls_tree("low-cycle");
    // Relative to the workspace root, as `check` prints them (`--absolute-paths` for absolute).
    let c_sls = "c.sls";
    // The highstate (top.sls names c) and show_low_sls of c print the same.
    for args in [&["lowstate", "--minion", "m1"][..], &["lowstate", "--sls", "c", "--minion", "m1"]] {
        let (code, text) = run(&dir, args);
        assert_eq!(code, 1, "{args:?}: {text}");
        assert!(text.ends_with("  --> c.sls:1:65\n"), "{args:?}: {text}");
        let json_args: Vec<&str> = args.iter().copied().chain(["--format", "json"]).collect();
        let (_, out) = run(&dir, &json_args);
        // A cycle is one entry per member, each at its own place.
        let places: Vec<serde_json::Value> =
            json(&out)["errors"].as_array().unwrap().iter().map(|e| serde_json::json!([e["id"], e["file"], e["line"], e["range"]])).collect();
        assert_eq!(
            places,
            [serde_json::json!(["y", c_sls, 1, on_first_line(66, 67)]), serde_json::json!(["x", c_sls, 1, on_first_line(25, 26)])],
            "{args:?}: {out}"
        );
    }
    // Salt stops at the duplicate ID of a and b, and reports it in b.
    let (code, text) = run(&dir, &["lowstate", "--sls", "a", "--minion", "m1"]);
    assert_eq!(code, 1);
    assert!(text.ends_with("  --> b.sls:1:27\n"), "{text}");
    let (_, out) = run(&dir, &["lowstate", "--sls", "a", "--minion", "m1", "--format", "json", "--absolute-paths"]);
    let e = &json(&out)["errors"][0];
    assert_eq!(e["file"], serde_json::json!(dir.join("b.sls").display().to_string()), "{out}");
    assert_eq!((&e["code"], &e["range"]), (&serde_json::json!("duplicate-id"), &on_first_line(28, 31)), "{out}");
}

#[test]
fn top_and_top_explain_count_the_same_way() {
    // The target `'x'` is 38 characters into the line, and its shorthand body is malformed.
    let dir = tree("explain", "base: {'ß': [a], 'ℝ': [b], '💣💣': [c], 'x': d}\n");
    let (code, text) = run(&dir, &["top", "--minion", "m1"]);
    assert_eq!(code, 1, "{text}");
    assert!(text.contains("  --> top.sls:1:39\n"), "{text}");
    // `top --format json` is Salt's own list of messages: no positions to convert.
    let (code, out) = run(&dir, &["top", "--minion", "m1", "--format", "json"]);
    assert_eq!(code, 1);
    assert!(json(&out).as_array().is_some_and(|l| l.len() == 1 && l[0].is_string()), "{out}");

    let (_, text) = run(&dir, &["top", "--explain", "--minion", "m1"]);
    let targets: Vec<&str> = text.lines().filter(|l| l.contains("target `")).filter_map(|l| l.split(" (compound, ").nth(1)?.split(')').next()).collect();
    assert_eq!(targets, ["top.sls:1:8", "top.sls:1:18", "top.sls:1:28", "top.sls:1:39"], "{text}");
    let (_, out) = run(&dir, &["top", "--explain", "--minion", "m1", "--format", "json"]);
    let v = json(&out);
    let top_sls = dir.join("top.sls").display().to_string();
    let at: Vec<serde_json::Value> = v["targets"].as_array().unwrap().iter().map(|t| t["at"].clone()).collect();
    let want: Vec<serde_json::Value> =
        [(7, 10), (17, 20), (27, 33), (40, 43)].iter().map(|&(s, e)| serde_json::json!({"file": top_sls, "line": 1, "range": on_first_line(s, e)})).collect();
    assert_eq!(at, want, "{v:#}");
    assert_eq!(v["sections"][0]["at"], serde_json::json!({"file": top_sls, "line": 1, "range": on_first_line(0, 4)}), "{v:#}");

    // A top file that is not YAML: the error is at the second `}`, 37 characters in.
    std::fs::write(dir.join("top.sls"), "base: {'ß': [a], 'ℝ': [b], '💣💣': [c]}}\n").unwrap();
    let (_, text) = run(&dir, &["top", "--minion", "m1"]);
    assert!(text.contains("Unable to render top file") && text.contains("  --> top.sls:1:38\n"), "{text}");
}
