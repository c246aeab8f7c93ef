//! `salt-analyzer diff`: every minion's highstate at two git revisions (or a revision and the
//! work tree) compared; file contents, pillar masking, exit codes, roots outside the
//! repository, and the recorded-reads skip. The repositories are made with the `git` CLI here;
//! the binary reads them itself.

mod support;

use std::path::Path;
use std::process::Command;

use support::{run_cli as run, TempTree};

fn git(dir: &Path, args: &[&str]) {
    let out = Command::new("git")
        .args(["-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false"])
        .args(args)
        .current_dir(dir)
        .output()
        .expect("git is installed");
    assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
}

fn commit(dir: &Path, message: &str) {
    git(dir, &["add", "-A"]);
    git(dir, &["commit", "-q", "-m", message]);
}

/// A repository (committed once) with three minions: two web servers whose `nginx.conf` is a
/// Jinja template reading pillar and grains, and a database server.
fn repo(name: &str) -> TempTree {
    let t = TempTree::new(&format!("diff-{name}"), None);
    t.write(
        "salt-analyzer.yaml",
        "file_roots: {base: [salt]}\npillar_roots: {base: [pillar]}\nminions:\n  web01: {grains: {role: web, os_family: Debian}}\n  \
         web02: {grains: {role: web, os_family: RedHat}}\n  db01: {grains: {role: db, os_family: Debian}}\n",
    );
    t.write("pillar/top.sls", "base:\n  '*': [common]\n");
    t.write("pillar/common.sls", "nginx: {port: 80}\ndb: {password: hunter2}\n");
    t.write("salt/top.sls", "base:\n  'role:web': [{match: grain}, web]\n  'role:db': [{match: grain}, db]\n");
    t.write(
        "salt/web.sls",
        "nginx:\n  pkg.installed: []\nnginx_conf:\n  file.managed:\n    - name: /etc/nginx/nginx.conf\n    - source: salt://files/nginx.conf\n    \
         - template: jinja\n    - require:\n      - pkg: nginx\n",
    );
    t.write("salt/files/nginx.conf", "listen {{ pillar['nginx']['port'] }};\nuser {{ 'www-data' if grains['os_family'] == 'Debian' else 'nginx' }};\n");
    t.write("salt/db.sls", "postgres:\n  pkg.installed:\n    - version: '15'\n");
    git(&t.root, &["init", "-q", "-b", "main"]);
    commit(&t.root, "first");
    t
}

fn json(out: &str) -> serde_json::Value {
    serde_json::from_str(out).unwrap_or_else(|e| panic!("{e}: {out}"))
}

fn minion<'a>(doc: &'a serde_json::Value, id: &str) -> &'a serde_json::Value {
    doc["minions"].as_array().unwrap().iter().find(|m| m["minion"] == id).unwrap_or_else(|| panic!("{id} missing: {doc}"))
}

#[test]
fn a_templated_source_diffs_as_rendered_for_each_minion() {
    let t = repo("template");
    t.write(
        "salt/files/nginx.conf",
        "listen {{ pillar['nginx']['port'] }};\nuser {{ 'www-data' if grains['os_family'] == 'Debian' else 'nginx' }};\nworkers 4;\n",
    );
    let (code, out, err) = run(&t.root, &["diff", "--format", "json"]);
    assert_eq!(code, 0, "{out}{err}");
    let doc = json(&out);
    assert_eq!(doc["from"], "HEAD");
    assert_eq!(doc["to"], "work tree");
    let files = &minion(&doc, "web01")["files"];
    assert_eq!(files[0]["tag"], "file_|-nginx_conf_|-/etc/nginx/nginx.conf_|-managed");
    assert_eq!(files[0]["source"], "salt://files/nginx.conf");
    // Rendered with the minion's pillar and grains, not the template's text.
    assert_eq!(files[0]["diff"], "--- salt://files/nginx.conf\n+++ salt://files/nginx.conf\n@@ -1,2 +1,3 @@\n listen 80;\n user www-data;\n+workers 4;\n");
    assert!(minion(&doc, "web02")["files"][0]["diff"].as_str().unwrap().contains(" user nginx;\n+workers 4;\n"), "{out}");
    assert_eq!(minion(&doc, "db01")["files"], serde_json::json!([]));
    // web01 and web02 render differently: two groups; db01 is unchanged and in none.
    assert_eq!(doc["groups"].as_array().unwrap().len(), 2, "{out}");
    assert_eq!(doc["summary"], serde_json::json!({"changed": 2, "unchanged": 1, "now_failing": 0, "still_failing": 0}));
    let (_, text, _) = run(&t.root, &["diff"]);
    assert!(text.contains("+workers 4;"), "{text}");
}

#[test]
fn pillar_values_are_hidden_unless_asked_for() {
    let t = repo("pillar");
    t.write("pillar/common.sls", "nginx: {port: 80}\ndb: {password: swordfish}\n");
    for format in ["text", "json", "markdown"] {
        let (code, out, err) = run(&t.root, &["diff", "--format", format]);
        assert_eq!(code, 0, "{out}{err}");
        assert!(out.contains("db:password"), "{format}: the key is named: {out}");
        assert!(!out.contains("hunter2") && !out.contains("swordfish"), "{format} shows a pillar value: {out}");
        assert!(!err.contains("hunter2") && !err.contains("swordfish"), "{err}");
    }
    let (_, out, _) = run(&t.root, &["diff", "--format", "json"]);
    assert_eq!(minion(&json(&out), "db01")["pillar"], serde_json::json!([{"key": "db:password", "change": "changed"}]));
    let (_, out, _) = run(&t.root, &["diff", "--format", "json", "--show-pillar"]);
    assert_eq!(
        minion(&json(&out), "db01")["pillar"],
        serde_json::json!([{"key": "db:password", "change": "changed", "before": "hunter2", "after": "swordfish"}])
    );
}

#[test]
fn exit_codes() {
    let t = repo("exit");
    // Unchanged: 0, with or without --exit-code.
    let (code, out, _) = run(&t.root, &["diff", "--exit-code"]);
    assert_eq!(code, 0, "{out}");
    // A change: 0, and 1 with --exit-code.
    t.write("salt/db.sls", "postgres:\n  pkg.installed:\n    - version: '16'\n");
    let (code, out, _) = run(&t.root, &["diff"]);
    assert_eq!(code, 0, "{out}");
    let (code, out, _) = run(&t.root, &["diff", "--exit-code"]);
    assert_eq!(code, 1, "{out}");
    // A minion that compiled and now fails: 1, and the loudest line.
    t.write("salt/db.sls", "postgres:\n  pkg.installed: [\n");
    let (code, out, _) = run(&t.root, &["diff", "--format", "json"]);
    assert_eq!(code, 1, "{out}");
    let doc = json(&out);
    assert!(minion(&doc, "db01")["errors_before"].as_array().unwrap().is_empty());
    assert_eq!(minion(&doc, "db01")["errors_after"][0]["file"], "salt/db.sls", "{out}");
    assert_eq!(doc["summary"]["now_failing"], 1);
    // Not a repository: 2, and why.
    let plain = TempTree::new("diff-norepo", None);
    plain.write("top.sls", "base: {'*': [a]}\n");
    let (code, out, err) = run(&plain.root, &["diff"]);
    assert_eq!(code, 2, "{out}{err}");
    assert!(err.contains("is not in a git repository"), "{err}");
    assert!(out.is_empty(), "{out}");
    // A minion no side has a profile for: 2, naming it.
    let (code, out, err) = run(&t.root, &["diff", "--minion", "nosuch"]);
    assert_eq!(code, 2, "{out}{err}");
    assert!(err.contains("no minion profile or fleet minion `nosuch` at either side (profiles: "), "{err}");
    // A revision that does not exist: 2, naming it.
    let (code, out, err) = run(&t.root, &["diff", "--from", "no-such-branch"]);
    assert_eq!(code, 2, "{out}{err}");
    assert!(err.contains("cannot read revision `no-such-branch`"), "{err}");
    let (code, _, err) = run(&t.root, &["diff", "--to", "v9"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("`v9`"), "{err}");
}

#[test]
fn a_minion_failing_at_both_sides_is_still_failing_not_unchanged() {
    let t = repo("still");
    t.write("salt/db.sls", "postgres:\n  pkg.installed: [\n");
    commit(&t.root, "break db");
    // Nothing changed since: db01 fails at both sides with the same errors.
    let (code, out, err) = run(&t.root, &["diff", "--format", "json", "--exit-code"]);
    assert_eq!(code, 0, "failing before the change is not the change's doing: {out}{err}");
    let doc = json(&out);
    assert_eq!(doc["summary"], serde_json::json!({"changed": 0, "unchanged": 2, "now_failing": 0, "still_failing": 1}));
    assert_eq!(doc["groups"].as_array().unwrap().len(), 1, "{out}");
    assert_eq!(doc["groups"][0]["minions"], serde_json::json!(["db01"]));
    assert_eq!(doc["groups"][0]["errors_after"][0]["file"], "salt/db.sls", "{out}");
    let (code, text, _) = run(&t.root, &["diff"]);
    assert_eq!(code, 0, "{text}");
    assert!(text.contains("0 minion(s) changed, 2 unchanged, 1 still failing\n"), "{text}");
    assert!(text.contains("\n! 1 minion(s) still failing: db01\n  ! failed before and fails now, with the same errors:\n      error[yaml-syntax]: "), "{text}");
    let (_, md, _) = run(&t.root, &["diff", "--format", "markdown"]);
    assert!(md.contains("<b>1 minion(s) still failing</b>: db01") && md.contains("[!WARNING]"), "{md}");
    // Another break of the same file: still failing, with other errors, and a difference for
    // `--exit-code`; a web change beside it is counted apart.
    t.write("salt/db.sls", "postgres: {pkg.installed: []\n");
    t.write("salt/web.sls", "nginx:\n  pkg.installed: []\n");
    let (code, text, _) = run(&t.root, &["diff"]);
    assert_eq!(code, 0, "{text}");
    assert!(text.contains("2 minion(s) changed, 0 unchanged, 1 still failing\n"), "{text}");
    assert!(text.contains("! failed before and fails now, with other errors now:"), "{text}");
    assert!(text.rfind("still failing: db01") > text.find("~ 2 minion(s): web01, web02"), "still failing comes after the changes: {text}");
    let (code, _, _) = run(&t.root, &["diff", "--exit-code"]);
    assert_eq!(code, 1);
}

#[test]
fn a_long_tag_is_shortened_in_text_and_markdown_and_whole_in_json() {
    let t = repo("longtag");
    let script = "pg_dumpall --clean --if-exists | gzip > /var/backups/postgres/all.sql.gz && find /var/backups -mtime +7 -delete";
    t.write("salt/db.sls", &format!("postgres:\n  pkg.installed:\n    - version: '15'\nbackup:\n  cmd.run:\n    - name: {script}\n"));
    let tag = format!("cmd_|-backup_|-{script}_|-run");
    let (_, out, _) = run(&t.root, &["diff", "--format", "json"]);
    assert_eq!(minion(&json(&out), "db01")["added"][0]["tag"], tag.as_str(), "{out}");
    for format in ["text", "markdown"] {
        let (_, out, _) = run(&t.root, &["diff", "--format", format]);
        assert!(!out.contains("_|-"), "{format} has a raw tag: {out}");
        assert!(out.contains("+ cmd.run backup (pg_dumpall --clean --if-exists | gzip > /var/backups/postgr…)  [db]\n"), "{format}: {out}");
    }
}

#[test]
fn a_changed_name_is_a_rename_not_a_removal_and_an_addition() {
    let t = repo("rename");
    t.write("salt/db.sls", "postgres:\n  pkg.installed:\n    - name: postgresql-15\n    - version: '15'\n");
    let (code, out, err) = run(&t.root, &["diff", "--format", "json", "--exit-code"]);
    assert_eq!(code, 1, "a rename is a change: {out}{err}");
    let db = minion(&json(&out), "db01").clone();
    assert_eq!(db["added"], serde_json::json!([]), "{out}");
    assert_eq!(db["removed"], serde_json::json!([]), "{out}");
    assert_eq!(
        db["renamed"],
        serde_json::json!([{"tag": "pkg_|-postgres_|-postgresql-15_|-installed", "id": "postgres", "sls": "db", "state": "pkg", "fun": "installed",
            "name": "postgresql-15", "from_tag": "pkg_|-postgres_|-postgres_|-installed", "from_name": "postgres", "changes": {}}])
    );
    let (_, text, _) = run(&t.root, &["diff"]);
    assert!(text.contains("\n  ~ pkg.installed postgres (postgresql-15)  [db]  renamed from postgres\n"), "{text}");
    let (_, md, _) = run(&t.root, &["diff", "--format", "markdown"]);
    assert!(md.contains("~ pkg.installed postgres (postgresql-15)  [db]  renamed from postgres\n"), "{md}");
    // The name of a managed file changed, and its version: its content compares with the old
    // file's (the same, so no file diff), the version is a change of the renamed state.
    t.write("salt/db.sls", "postgres:\n  pkg.installed:\n    - name: postgresql-16\n    - version: '16'\n");
    let (_, out, _) = run(&t.root, &["diff", "--format", "json"]);
    assert_eq!(minion(&json(&out), "db01")["renamed"][0]["changes"], serde_json::json!({"version": {"before": "15", "after": "16"}}), "{out}");
    t.write("salt/db.sls", "postgres:\n  pkg.installed:\n    - version: '15'\n");
    t.write("salt/web.sls", &t.read("salt/web.sls").replace("/etc/nginx/nginx.conf", "/etc/nginx/main.conf"));
    let (_, out, _) = run(&t.root, &["diff", "--format", "json"]);
    let web = minion(&json(&out), "web01").clone();
    assert_eq!(web["renamed"][0]["from_name"], "/etc/nginx/nginx.conf", "{out}");
    assert_eq!(web["files"], serde_json::json!([]), "the same content under another name: {out}");
}

#[test]
fn between_two_commits_the_work_tree_is_not_read() {
    let t = repo("revs");
    git(&t.root, &["tag", "v1"]);
    t.write("salt/db.sls", "postgres:\n  pkg.installed:\n    - version: '16'\nbackup:\n  cmd.run: []\n");
    commit(&t.root, "second");
    // Uncommitted, and not part of v1..HEAD.
    t.write("salt/web.sls", "broken: [\n");
    let (code, out, err) = run(&t.root, &["diff", "--from", "v1", "--to", "HEAD", "--format", "json"]);
    assert_eq!(code, 0, "{out}{err}");
    let doc = json(&out);
    assert_eq!((doc["from"].as_str(), doc["to"].as_str()), (Some("v1"), Some("HEAD")));
    let db = minion(&doc, "db01");
    assert_eq!(db["added"][0]["tag"], "cmd_|-backup_|-backup_|-run");
    assert_eq!(db["changed"][0]["changes"], serde_json::json!({"version": {"before": "15", "after": "16"}}));
    assert_eq!(minion(&doc, "web01")["errors_after"], serde_json::json!([]), "the work tree's break is not at HEAD");
    assert_eq!(minion(&doc, "web01")["added"], serde_json::json!([]));
    // The work tree against HEAD sees the break.
    let (code, out, _) = run(&t.root, &["diff", "--format", "json"]);
    assert_eq!(code, 1, "{out}");
}

#[test]
fn from_a_range_reads_as_git_diff_reads_it() {
    let t = repo("range");
    git(&t.root, &["tag", "v1"]);
    git(&t.root, &["checkout", "-q", "-b", "feature"]);
    t.write("salt/db.sls", "postgres:\n  pkg.installed:\n    - version: '16'\n");
    commit(&t.root, "feature: postgres 16");
    git(&t.root, &["checkout", "-q", "main"]);
    t.write("salt/web.sls", "nginx:\n  pkg.installed: []\n");
    commit(&t.root, "main: no nginx.conf");
    let base = String::from_utf8(Command::new("git").args(["rev-parse", "v1"]).current_dir(&t.root).output().unwrap().stdout).unwrap();
    // A...B: from the merge base (v1) to B, so main's own change is not in it.
    let (code, out, err) = run(&t.root, &["diff", "--from", "main...feature", "--format", "json"]);
    assert_eq!(code, 0, "{out}{err}");
    let doc = json(&out);
    assert_eq!((doc["from"].as_str(), doc["to"].as_str()), (Some(base.trim()), Some("feature")));
    assert_eq!(minion(&doc, "db01")["changed"][0]["changes"], serde_json::json!({"version": {"before": "15", "after": "16"}}));
    assert_eq!(minion(&doc, "web01")["added"], serde_json::json!([]), "{out}");
    assert_eq!(doc["summary"]["changed"], 1, "{out}");
    let (_, text, _) = run(&t.root, &["diff", "--from", "main...feature"]);
    assert!(text.starts_with(&format!("salt-analyzer diff merge base of main and feature ({})..feature: ", &base[..12])), "{text}");
    // A..B: from A to B, so going from main to feature undoes main's change for the web servers.
    let (code, out, err) = run(&t.root, &["diff", "--from", "main..feature", "--format", "json"]);
    assert_eq!(code, 0, "{out}{err}");
    let doc = json(&out);
    assert_eq!((doc["from"].as_str(), doc["to"].as_str()), (Some("main"), Some("feature")));
    assert_eq!(minion(&doc, "web01")["added"][0]["tag"], "file_|-nginx_conf_|-/etc/nginx/nginx.conf_|-managed", "{out}");
    assert_eq!(doc["summary"]["changed"], 3, "{out}");
    // An empty end is HEAD (main here), as in git.
    let (_, out, _) = run(&t.root, &["diff", "--from", "v1..", "--format", "json"]);
    assert_eq!((json(&out)["from"].as_str(), json(&out)["to"].as_str()), (Some("v1"), Some("HEAD")));
    // A range names both sides: `--to` beside it is refused.
    let (code, out, err) = run(&t.root, &["diff", "--from", "main..feature", "--to", "HEAD"]);
    assert_eq!(code, 2, "{out}{err}");
    assert!(err.contains("`--from main..feature` already names the side after the change; drop `--to HEAD`"), "{err}");
    assert!(out.is_empty(), "{out}");
    // An end that does not exist: 2, naming it.
    let (code, _, err) = run(&t.root, &["diff", "--from", "main...nosuch"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("`nosuch`"), "{err}");
}

#[test]
fn a_root_outside_the_repository_is_read_from_disk_on_both_sides() {
    let t = repo("outside");
    let shared = TempTree::new("diff-outside-shared", None);
    shared.write("shared.sls", "ntp:\n  pkg.installed: []\n");
    // Listed in two environments and as a pillar root too: still one note.
    let ws = format!(
        "file_roots: {{base: [salt, {0}], dev: [{0}]}}\npillar_roots: {{base: [pillar, {0}]}}\nminions:\n  web01: {{grains: {{role: web, os_family: Debian}}}}\n",
        shared.root.display()
    );
    t.write("salt-analyzer.yaml", &ws);
    t.write("salt/top.sls", "base:\n  'role:web': [{match: grain}, web, shared]\n");
    commit(&t.root, "shared root");
    // Changed on disk after the commit: both sides read the disk, so no diff.
    shared.write("shared.sls", "ntp:\n  pkg.installed:\n    - version: '4'\n");
    let (code, out, err) = run(&t.root, &["diff", "--format", "json", "--exit-code"]);
    assert_eq!(code, 0, "{out}{err}");
    let doc = json(&out);
    let notes = doc["notes"].as_array().unwrap();
    assert_eq!(notes.len(), 1, "{out}");
    let name = shared.root.file_name().unwrap().to_str().unwrap();
    // Named from the repository's root, not the disk's.
    assert_eq!(notes[0], format!("file and pillar root ../{name} (base, dev) is outside the repository: read from disk on both sides"), "{out}");
    assert_eq!(minion(&doc, "web01")["changed"], serde_json::json!([]));
    for format in ["text", "markdown"] {
        let (_, out, _) = run(&t.root, &["diff", "--format", format]);
        assert_eq!(out.matches("outside the repository").count(), 1, "{format}: {out}");
        assert!(!out.contains(&shared.root.display().to_string()), "{format}: {out}");
    }
    // The same root as `../NAME`, relative to the workspace file: outside too.
    t.write("salt-analyzer.yaml", &ws.replace(&shared.root.display().to_string(), &format!("../{name}")));
    commit(&t.root, "relative shared root");
    shared.write("shared.sls", "ntp:\n  pkg.installed:\n    - version: '5'\n");
    let (code, out, err) = run(&t.root, &["diff", "--format", "json", "--exit-code"]);
    assert_eq!(code, 0, "{out}{err}");
    let doc = json(&out);
    assert_eq!(doc["notes"].as_array().unwrap().len(), 1, "{out}");
    assert!(doc["notes"][0].as_str().unwrap().contains(&format!("../{name}")), "{out}");
}

#[test]
fn a_minion_whose_reads_did_not_change_is_not_compiled_again() {
    let t = repo("skip");
    let stats = |dir: &Path| {
        let out = Command::new(env!("CARGO_BIN_EXE_salt-analyzer"))
            .args(["diff", "--format", "json"])
            .env("SALT_ANALYZER_DIFF_STATS", "1")
            .current_dir(dir)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr).into_owned();
        let line = err.lines().find(|l| l.starts_with("diff stats: ")).unwrap_or_else(|| panic!("no stats line: {err}")).to_string();
        // What the reads let through; the distinct compiles after the `;`.
        line.split(';').next().unwrap_or_default().to_string()
    };
    assert_eq!(stats(&t.root), "diff stats: 3 minions, 0 compiled at both sides, 3 skipped on unchanged reads");
    // Only db01 reads db.sls.
    t.write("salt/db.sls", "postgres:\n  pkg.installed:\n    - version: '16'\n");
    assert_eq!(stats(&t.root), "diff stats: 3 minions, 1 compiled at both sides, 2 skipped on unchanged reads");
    // Every minion reads the pillar file the pillar top gives everyone.
    t.write("pillar/common.sls", "nginx: {port: 80}\ndb: {password: hunter2}\nextra: 1\n");
    assert_eq!(stats(&t.root), "diff stats: 3 minions, 3 compiled at both sides, 0 skipped on unchanged reads");
    // A pillar file only the web servers' pillar top selects: db01's reads are unchanged.
    t.write("pillar/common.sls", "nginx: {port: 80}\ndb: {password: hunter2}\n");
    t.write("pillar/top.sls", "base:\n  '*': [common]\n  'role:web': [{match: grain}, web]\n");
    t.write("pillar/web.sls", "workers: 4\n");
    commit(&t.root, "web pillar");
    t.write("pillar/web.sls", "workers: 8\n");
    assert_eq!(stats(&t.root), "diff stats: 3 minions, 2 compiled at both sides, 1 skipped on unchanged reads");
    // Every minion reads the top file.
    t.write("salt/top.sls", "base:\n  'role:web': [{match: grain}, web]\n  'role:db': [{match: grain}, db]\n  '*': []\n");
    assert_eq!(stats(&t.root), "diff stats: 3 minions, 3 compiled at both sides, 0 skipped on unchanged reads");
}

/// `--to-salt-version`: the same tree on two releases, no repository needed; with `--from`,
/// the change on the new release. A minion whose requisite names no state runs on 3006 (one
/// state fails there) and is refused by 3008: it now fails, exit 1.
#[test]
fn an_upgrade_compares_the_same_tree_on_two_releases() {
    let t = TempTree::new("diff-upgrade", None);
    t.write("salt-analyzer.yaml", "file_roots: {base: [salt]}\nminions:\n  web01: {grains: {role: web}}\n  db01: {grains: {role: db}}\n");
    t.write("salt/top.sls", "base:\n  'web01': [web]\n  'db01': [db]\n");
    t.write("salt/web.sls", "include: [common]\nnginx:\n  pkg.installed: []\n");
    t.write("salt/common.sls", "ntp:\n  pkg.installed: []\n");
    t.write("salt/db.sls", "postgres:\n  pkg.installed:\n    - require:\n      - pkg: nosuch\n");
    let (code, out, err) = run(&t.root, &["diff", "--salt-version", "3006", "--to-salt-version", "3008", "--format", "json"]);
    assert_eq!(code, 1, "{out}{err}");
    let doc = json(&out);
    assert_eq!(doc["salt"], serde_json::json!({"from": "3006", "to": "3008"}));
    assert_eq!(doc["summary"]["now_failing"], 1, "{out}");
    // 3007 and 3008 mark included states.
    let changed = &minion(&doc, "web01")["changed"][0];
    assert_eq!(changed["id"], "ntp", "{out}");
    assert_eq!(changed["changes"]["__sls_included_from__"], serde_json::json!({"before": null, "after": ["web"]}), "{out}");
    assert!(minion(&doc, "db01")["errors_before"].as_array().unwrap().is_empty(), "{out}");
    assert_eq!(minion(&doc, "db01")["errors_after"][0]["code"], "missing-requisite-target", "{out}");
    let (_, text, _) = run(&t.root, &["diff", "--salt-version", "3006", "--to-salt-version", "3008"]);
    assert!(text.starts_with("salt-analyzer diff work tree on Salt 3006..work tree on Salt 3008: 2 minion(s) changed"), "{text}");
    // 3007 to 3008: the included states are marked at both.
    let (_, out, _) = run(&t.root, &["diff", "--salt-version", "3007", "--to-salt-version", "3008", "--format", "json"]);
    assert!(minion(&json(&out), "web01")["changed"].as_array().unwrap().is_empty(), "{out}");
    // With a revision: this change on the new release.
    git(&t.root, &["init", "-q", "-b", "main"]);
    commit(&t.root, "first");
    t.write("salt/db.sls", "postgres:\n  pkg.installed: []\n");
    let (code, out, err) = run(&t.root, &["diff", "--from", "HEAD", "--salt-version", "3006", "--to-salt-version", "3008", "--format", "json"]);
    assert_eq!(code, 0, "{out}{err}");
    let doc = json(&out);
    assert_eq!((doc["from"].as_str(), doc["to"].as_str()), (Some("HEAD"), Some("work tree")));
    assert!(minion(&doc, "db01")["errors_after"].as_array().unwrap().is_empty(), "{out}");
}

/// The `findings` section of a JSON report (each finding once, with its minions).
fn findings(out: &str) -> String {
    serde_json::to_string_pretty(&json(out)["findings"]).unwrap()
}

/// Between revisions: an include of an SLS that does not exist is a new `missing-include` for
/// the minions whose highstate has it, and taking it out resolves it; a finding that only moved
/// to other lines is neither.
#[test]
fn findings_a_change_introduces_and_resolves_between_revisions() {
    let t = repo("findings");
    let web = std::fs::read_to_string(t.root.join("salt/web.sls")).unwrap();
    t.write("salt/web.sls", &format!("include: [nosuch]\n{web}"));
    commit(&t.root, "include a missing SLS");
    let (code, text, err) = run(&t.root, &["diff", "--from", "HEAD~1..HEAD"]);
    // The minions now fail: exit 1, as before findings were reported.
    assert_eq!(code, 1, "{text}{err}");
    expect_test::expect![[r#"
        salt-analyzer diff HEAD~1..HEAD: 2 minion(s) changed, 1 unchanged, 2 now failing; findings: 1 new, 0 resolved

        ! 2 minion(s) now failing: web01, web02
          ! compiled before, fails now:
              error[missing-include]: Specified SLS nosuch in saltenv base is not available on the salt master or through a configured fileserver (salt/web.sls:1)

        1 new finding(s):
          + error[missing-include]: Specified SLS nosuch in saltenv base is not available on the salt master or through a configured fileserver (salt/web.sls:1)
                on 2 minion(s): web01, web02
    "#]]
    .assert_eq(&text);
    let (_, out, _) = run(&t.root, &["diff", "--from", "HEAD~1..HEAD", "--format", "json"]);
    expect_test::expect![[r#"
        {
          "new": [
            {
              "code": "missing-include",
              "severity": "error",
              "message": "Specified SLS nosuch in saltenv base is not available on the salt master or through a configured fileserver",
              "file": "salt/web.sls",
              "line": 1,
              "id": null,
              "minions": [
                "web01",
                "web02"
              ]
            }
          ],
          "resolved": []
        }"#]]
    .assert_eq(&findings(&out));
    let doc = json(&out);
    assert_eq!(minion(&doc, "web01")["new_findings"][0]["code"], "missing-include", "{out}");
    assert_eq!(minion(&doc, "db01")["new_findings"], serde_json::json!([]), "{out}");
    // The summary keeps its keys.
    assert_eq!(doc["summary"], serde_json::json!({"changed": 2, "unchanged": 1, "now_failing": 2, "still_failing": 0}));

    // Taking the include out resolves it.
    t.write("salt/web.sls", &web);
    commit(&t.root, "drop the include");
    let (code, out, err) = run(&t.root, &["diff", "--from", "HEAD~1", "--to", "HEAD", "--format", "markdown"]);
    assert_eq!(code, 0, "{out}{err}");
    expect_test::expect![[r#"
        ### salt-analyzer: `HEAD~1` → `HEAD`

        **2 minion(s) changed, 1 unchanged; findings: 0 new, 1 resolved**

        <details><summary><b>2 minion(s) changed</b>: web01, web02</summary>

        ```diff
        errors before:
            error[missing-include]: Specified SLS nosuch in saltenv base is not available on the salt master or through a configured fileserver (salt/web.sls:1)
        compiles now
        ```

        </details>

        <details open><summary><b>1 resolved finding(s)</b></summary>

        ```diff
        - error[missing-include]: Specified SLS nosuch in saltenv base is not available on the salt master or through a configured fileserver (salt/web.sls:1)
              on 2 minion(s): web01, web02
        ```

        </details>
    "#]]
    .assert_eq(&out);
    let (_, out, _) = run(&t.root, &["diff", "--from", "HEAD~1", "--to", "HEAD", "--format", "json"]);
    assert_eq!(json(&out)["findings"]["resolved"][0]["minions"], serde_json::json!(["web01", "web02"]), "{out}");

    // A finding at both sides, on other lines after the change, is not reported.
    t.write("salt/db.sls", "postgres:\n  pkg.installed:\n    - version: '15'\nbackup:\n  nosuchmod.run: []\n");
    commit(&t.root, "a state of a module no catalog has");
    t.write("salt/db.sls", "# the database\n\nbackup:\n  nosuchmod.run: []\n\npostgres:\n  pkg.installed:\n    - version: '15'\n");
    commit(&t.root, "reorder");
    let (_, out, _) = run(&t.root, &["check", "--minion", "db01"]);
    assert!(out.contains("unknown-function"), "the finding is there at both sides: {out}");
    let (code, out, err) = run(&t.root, &["diff", "--from", "HEAD~1..HEAD", "--format", "json", "--fail-on-new-findings", "hint"]);
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(json(&out)["findings"], serde_json::json!({"new": [], "resolved": []}), "{out}");
    let (_, text, _) = run(&t.root, &["diff", "--from", "HEAD~1..HEAD"]);
    assert!(!text.contains("finding"), "{text}");
}

/// Between releases: `mysql_user` left Salt's core in 3008, so going from 3006 to 3008 brings
/// a `not-in-core` finding on every minion whose highstate uses it, said once; none when
/// `saltexts:` says the minions have the extension. The exit code stays 0 unless
/// `--fail-on-new-findings` asks.
#[test]
fn findings_an_upgrade_brings() {
    let t = TempTree::new("diff-upgrade-findings", None);
    let config = "file_roots: {base: [salt]}\nminions:\n  web01: {grains: {role: web}}\n  db01: {grains: {role: db}}\n  db02: {grains: {role: db}}\n";
    t.write("salt-analyzer.yaml", config);
    t.write("salt/top.sls", "base:\n  'web01': [web]\n  'db*': [db]\n");
    t.write("salt/web.sls", "nginx:\n  pkg.installed: []\n");
    t.write("salt/db.sls", "app_user:\n  mysql_user.present:\n    - host: localhost\n");
    let upgrade = ["diff", "--salt-version", "3006", "--to-salt-version", "3008"];
    let (code, text, err) = run(&t.root, &upgrade);
    assert_eq!(code, 0, "{text}{err}");
    expect_test::expect![[r#"
        salt-analyzer diff work tree on Salt 3006..work tree on Salt 3008: 0 minion(s) changed, 3 unchanged; findings: 1 new, 0 resolved

        1 new finding(s):
          + error[not-in-core]: State 'mysql_user.present' was not found in SLS 'db' (salt/db.sls:2, state app_user)
                Reason: `mysql_user` is not in Salt 3008's core: install saltext-mysql, or list it under `saltexts:`
                Salt 3006 and 3007 ship it in their core: if this minion runs one of them, say so with `salt_version:`
                on 2 minion(s): db01, db02
    "#]]
    .assert_eq(&text);
    let (_, out, _) = run(&t.root, &[&upgrade[..], &["--format", "json"]].concat());
    expect_test::expect![[r#"
        {
          "new": [
            {
              "code": "not-in-core",
              "severity": "error",
              "message": "State 'mysql_user.present' was not found in SLS 'db'\nReason: `mysql_user` is not in Salt 3008's core: install saltext-mysql, or list it under `saltexts:`\nSalt 3006 and 3007 ship it in their core: if this minion runs one of them, say so with `salt_version:`",
              "file": "salt/db.sls",
              "line": 2,
              "id": "app_user",
              "minions": [
                "db01",
                "db02"
              ]
            }
          ],
          "resolved": []
        }"#]]
    .assert_eq(&findings(&out));
    let doc = json(&out);
    assert_eq!(minion(&doc, "db02")["new_findings"][0]["id"], "app_user", "{out}");
    assert_eq!(minion(&doc, "web01")["new_findings"], serde_json::json!([]), "{out}");
    // Opting in fails the run on a new error finding.
    let (code, _, _) = run(&t.root, &[&upgrade[..], &["--fail-on-new-findings", "error"]].concat());
    assert_eq!(code, 1);
    // Back from 3008 to 3006 it is resolved.
    let (_, out, _) = run(&t.root, &["diff", "--salt-version", "3008", "--to-salt-version", "3006", "--format", "json"]);
    assert_eq!(json(&out)["findings"]["resolved"][0]["code"], "not-in-core", "{out}");
    // With the extension installed, nothing is new.
    t.write("salt-analyzer.yaml", &format!("{config}saltexts: [saltext-mysql]\n"));
    let (code, text, err) = run(&t.root, &[&upgrade[..], &["--fail-on-new-findings", "hint"]].concat());
    assert_eq!(code, 0, "{text}{err}");
    expect_test::expect![[r#"
        salt-analyzer diff work tree on Salt 3006..work tree on Salt 3008: 0 minion(s) changed, 3 unchanged
    "#]]
    .assert_eq(&text);
}
