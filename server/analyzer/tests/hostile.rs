//! A hostile workspace: a symlink loop, a link to `/etc`, a 20 MB SLS file, 100,000-deep
//! nesting, a YAML alias bomb, invalid UTF-8, an endless template, endless recursion, `#!py` and
//! `#!pyobjects` files and templates that would write files or run commands, and a top file
//! that includes itself. `check` finishes within 10 s of CPU time (a hang guard, not a
//! benchmark; CPU time because the machines running tests are shared, with a 120 s wall-clock
//! limit behind it) with each minion's highstate compiled and a clear finding for each file;
//! nothing is written and nothing is executed.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn write(dir: &Path, rel: &str, bytes: &[u8]) {
    let p = dir.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, bytes).unwrap();
}

fn tree() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("sa-hostile-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let w = |rel: &str, text: &str| write(&dir, rel, text.as_bytes());
    w(
        "salt-analyzer.yaml",
        "file_roots: {base: [salt]}\nminions:\n  web01: {grains: {os_family: Debian}}\n  db01: {grains: {os_family: RedHat}}\ndefault_minion: web01\n",
    );
    w("salt/top.sls", "{% include 'top.sls' %}\nbase:\n  '*':\n    - ok\n");
    w("salt/ok.sls", "ok_state:\n  test.nop: []\n");
    let big: String = (0..800_000).map(|i| format!("big_{i}:\n  test.nop: []\n")).collect();
    assert!(big.len() > 20_000_000);
    w("salt/big.sls", &big);
    w("salt/deep.sls", &format!("deep_state:\n  test.nop:\n    - x: {}1{}\n", "[".repeat(100_000), "]".repeat(100_000)));
    w("salt/deepmap.sls", &format!("deep_map: {}1{}\n", "{a: ".repeat(100_000), "}".repeat(100_000)));
    w("salt/deepjinja.sls", &format!("{}x: 1\n{}", "{% if True %}".repeat(100_000), "{% endif %}".repeat(100_000)));
    let mut bomb = "a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n".to_string();
    for i in 1..10 {
        bomb.push_str(&format!("a{i}: &a{i} [{}]\n", vec![format!("*a{}", i - 1); 9].join(", ")));
    }
    w("salt/bomb.sls", &format!("{bomb}bomb_state:\n  test.nop:\n    - x: *a9\n"));
    write(&dir, "salt/badutf8.sls", b"bad_\xff\xfe:\n  test.nop: []\n");
    w("salt/endless.sls", "{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}\nendless_state:\n  test.nop: []\n");
    w("salt/recursive.sls", "{% macro f(n) %}{{ f(n + 1) }}{% endmacro %}\nrec_state:\n  test.nop:\n    - name: {{ f(0) }}\n");
    let marker = dir.join("PWNED");
    let m = marker.display();
    w("salt/pyfile.sls", &format!("#!py\ndef run():\n    open('{m}', 'w').write('x')\n    return {{}}\n"));
    w("salt/pyobjects.sls", &format!("#!pyobjects\nopen('{m}', 'w').write('x')\n"));
    w(
        "salt/commands.sls",
        &format!(
            "{{% set out = salt['cmd.run']('touch {m}') %}}\n{{% do salt['file.write']('{m}', 'x') %}}\ncmd_state:\n  test.nop:\n    - name: {{{{ out }}}}\n"
        ),
    );
    std::fs::create_dir_all(dir.join("salt/loop")).unwrap();
    w("salt/loop/a.sls", "loop_state:\n  test.nop: []\n");
    std::os::unix::fs::symlink("../loop", dir.join("salt/loop/again")).unwrap();
    std::os::unix::fs::symlink("/etc", dir.join("salt/etc")).unwrap();
    dir
}

/// Every file below `dir` (not following links) with its length and modification time.
fn snapshot(dir: &Path) -> BTreeMap<PathBuf, (u64, std::time::SystemTime)> {
    let mut out = BTreeMap::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let e = e.unwrap();
            let meta = std::fs::symlink_metadata(e.path()).unwrap();
            if meta.is_dir() {
                todo.push(e.path());
            }
            out.insert(e.path(), (meta.len(), meta.modified().unwrap()));
        }
    }
    out
}

/// The CPU seconds of this process's waited-for children (`cutime` + `cstime`).
fn children_cpu() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap();
    let fields: Vec<&str> = stat.rsplit_once(')').unwrap().1.split_whitespace().collect();
    // Fields 16 and 17 of stat(5), counted from the state (field 3) here.
    let ticks: f64 = fields[13].parse::<f64>().unwrap() + fields[14].parse::<f64>().unwrap();
    ticks / 100.0
}

#[test]
fn check_finishes_on_a_hostile_workspace_and_touches_nothing() {
    let dir = tree();
    let cache = dir.with_extension("cache");
    let before = snapshot(&dir);
    let cpu_before = children_cpu();
    let started = Instant::now();
    let mut child = Command::new(env!("CARGO_BIN_EXE_salt-analyzer"))
        .arg("check")
        .current_dir(&dir)
        .env("XDG_CACHE_HOME", &cache)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    let out_reader = {
        let mut stdout = child.stdout.take().unwrap();
        std::thread::spawn(move || {
            let mut s = String::new();
            std::io::Read::read_to_string(&mut stdout, &mut s).unwrap();
            s
        })
    };
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > Duration::from_secs(120) {
            let _ = child.kill();
            panic!("check did not finish in 120 s");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let cpu = children_cpu() - cpu_before;
    assert!(cpu < 10.0, "check took {cpu} s of CPU time");
    let out = out_reader.join().unwrap();
    let mut err = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut err).unwrap();
    assert_eq!(status.code(), Some(1), "{out}\n{err}");
    assert!(!err.contains("panicked"), "{err}");
    let finding = |file: &str, text: &str| {
        let hit = out.split("\n\n").any(|d| d.contains(&format!("--> salt/{file}:")) && d.contains(text));
        assert!(hit, "no finding `{text}` for {file}:\n{out}");
    };
    finding("big.sls", "over salt-analyzer's limit of 10485760 bytes per file");
    finding("bomb.sls", "the aliases of this document expand to more than 100000 values");
    finding("deep.sls", "recursion limit exceeded");
    finding("deepmap.sls", "recursion limit exceeded");
    finding("badutf8.sls", "not valid UTF-8");
    finding("endless.sls", "engine ran out of fuel");
    finding("recursive.sls", "recursion limit exceeded");
    finding("pyfile.sls", "never runs the `py` renderer");
    finding("pyobjects.sls", "never runs the `pyobjects` renderer");
    // The top file includes itself: Salt's error, for each minion's highstate.
    finding("top.sls", "In the highstates of minions `web01`, `db01`: Unable to render top file");
    // Nothing executed, nothing written in the tree; nothing read below the link to /etc
    // became a finding.
    assert!(!dir.join("PWNED").exists());
    assert_eq!(snapshot(&dir), before);
    assert!(!out.contains("salt/etc/"), "{out}");
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::remove_dir_all(&cache);
}
