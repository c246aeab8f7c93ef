//! `--fleet`: every minion a master knows, through the same pipeline as a profile. A finding
//! shared by many minions is printed once with all of them; an unreadable entry is one finding
//! and the rest still runs; `--shard K/N` splits the fleet without overlap; a profile with the
//! same id wins.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

fn run(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_salt-analyzer")).args(args).current_dir(dir).output().expect("run binary");
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned())
}

/// A tree and a fleet of `webs` web servers and one database server, as `<id>.json` grains
/// files in `grains/`, with one file that is not JSON.
fn tree(name: &str, webs: usize, extra: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("sa-fleet-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("salt")).unwrap();
    std::fs::create_dir_all(dir.join("grains")).unwrap();
    let write = |p: &str, t: &str| std::fs::write(dir.join(p), t).unwrap();
    write("salt-analyzer.yaml", &format!("file_roots: {{base: [salt]}}\nfleet: grains\n{extra}"));
    write("salt/top.sls", "base:\n  '*':\n    - common\n  'G@role:web':\n    - web\n  'db*':\n    - db\n");
    write("salt/common.sls", "common: {test.nop: []}\n");
    write("salt/web.sls", "web:\n  test.nop:\n    - require:\n      - test: missing_{{ grains['os'] }}\n");
    write("salt/db.sls", "db: {test.nop: []}\n");
    for i in 1..=webs {
        write(&format!("grains/web{i:02}.json"), &format!("{{\"id\": \"web{i:02}\", \"role\": \"web\", \"os\": \"Debian\"}}"));
    }
    write("grains/db01.json", "{\"id\": \"db01\", \"os\": \"RedHat\"}");
    write("grains/broken.json", "{\"id\": ");
    dir
}

fn json(out: &str) -> Value {
    serde_json::from_str(out).unwrap_or_else(|e| panic!("{e}: {out}"))
}

#[test]
fn a_shared_finding_is_printed_once_with_every_minion_and_the_unreadable_entry_is_one_finding() {
    let dir = tree("check", 6, "");
    let (code, out, err) = run(&dir, &["check", "--fleet", "--format", "json"]);
    assert_eq!(code, 1, "{out}{err}");
    let v = json(&out);
    let found: Vec<(String, String, Vec<String>)> = v["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            let minions = d["minion"].as_array().into_iter().flatten().map(|m| m.as_str().unwrap().to_string()).collect();
            (d["file"].as_str().unwrap().to_string(), d["code"].as_str().unwrap().to_string(), minions)
        })
        .collect();
    let webs: Vec<String> = (1..=6).map(|i| format!("web{i:02}")).collect();
    assert_eq!(
        found,
        [("grains/broken.json".to_string(), "unreadable-file".to_string(), vec![]), ("salt/web.sls".to_string(), "missing-requisite-target".to_string(), webs)]
    );
    // Text names a few and counts the rest.
    let (code, text, _) = run(&dir, &["check", "--fleet"]);
    assert_eq!(code, 1);
    assert!(text.contains("In the highstates of minions `web01`, `web02`, `web03` and 3 more: Referenced state"), "{text}");
    assert!(text.contains("Fleet:") && text.contains("--> grains/broken.json"), "{text}");
}

#[test]
fn top_fleet_json_is_each_minions_show_top_and_text_is_the_matrix() {
    let dir = tree("top", 3, "");
    let (code, out, err) = run(&dir, &["top", "--fleet", "--format", "json"]);
    assert_eq!(code, 1, "the unreadable entry fails the run: {err}");
    assert!(err.contains("broken.json"), "{err}");
    let all = json(&out);
    let ids: Vec<&String> = all.as_object().unwrap().keys().collect();
    assert_eq!(ids, ["db01", "web01", "web02", "web03"]);
    for id in ids {
        let (_, one, _) = run(&dir, &["top", "--minion", id, "--format", "json"]);
        assert_eq!(all[id], json(&one), "{id}");
    }
    let (_, text, _) = run(&dir, &["top", "--fleet"]);
    assert!(text.contains("base:\n"), "{text}");
    assert!(text.lines().any(|l| l.starts_with("  common") && l.contains("4 of 4 (all)")), "{text}");
    assert!(text.lines().any(|l| l.starts_with("  web ") && l.contains("3 of 4") && l.contains("web01, web02, web03")), "{text}");
    assert!(text.lines().any(|l| l.starts_with("  db ") && l.contains("1 of 4") && l.contains("db01")), "{text}");
}

#[test]
fn lowstate_fleet_json_is_each_minions_show_lowstate() {
    let dir = tree("low", 2, "");
    let (_, out, _) = run(&dir, &["lowstate", "--fleet", "--format", "json"]);
    let all = json(&out);
    for id in ["db01", "web01"] {
        let (_, one, _) = run(&dir, &["lowstate", "--minion", id, "--format", "json"]);
        assert_eq!(all[id], json(&one), "{id}");
    }
    assert_eq!(all["db01"].as_array().map(Vec::len), Some(2), "{}", all["db01"]);
}

#[test]
fn shards_split_the_fleet_without_overlap_and_cover_it() {
    let dir = tree("shard", 20, "");
    let (_, out, _) = run(&dir, &["top", "--fleet", "--format", "json"]);
    let all: Vec<String> = json(&out).as_object().unwrap().keys().cloned().collect();
    assert_eq!(all.len(), 21);
    let mut seen = Vec::new();
    for k in 1..=3 {
        let (_, out, err) = run(&dir, &["top", "--fleet", "--shard", &format!("{k}/3"), "--format", "json"]);
        let part: Vec<String> = json(&out).as_object().unwrap().keys().cloned().collect();
        assert!(!part.is_empty() && part.len() < all.len(), "{k}: {part:?} {err}");
        seen.extend(part);
    }
    seen.sort();
    assert_eq!(seen, all);
    let (code, _, err) = run(&dir, &["top", "--fleet", "--shard", "4/3"]);
    assert_eq!(code, 2, "{err}");
}

#[test]
fn a_profile_with_the_same_id_wins_and_the_static_grains_items_output_is_read() {
    let dir = tree("profile", 1, "minions:\n  web01: {grains: {role: db}}\n");
    std::fs::write(dir.join("items.json"), "{\"db07\": {\"id\": \"db07\"}, \"web09\": {\"id\": \"web09\", \"role\": \"web\", \"os\": \"Arch\"}}").unwrap();
    let (_, out, _) = run(&dir, &["top", "--fleet", "--format", "json"]);
    assert_eq!(json(&out)["web01"], serde_json::json!({"base": ["common"]}), "{out}");
    let (code, out, err) = run(&dir, &["top", "--fleet", "items.json", "--format", "json"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(json(&out), serde_json::json!({"db07": {"base": ["common", "db"]}, "web09": {"base": ["common", "web"]}}));
    // `--minion` finds a fleet minion that is no profile.
    let (code, out, err) = run(&dir, &["top", "--minion", "db01", "--format", "json"]);
    assert_eq!((code, json(&out)), (0, serde_json::json!({"base": ["common", "db"]})), "{err}");
}
