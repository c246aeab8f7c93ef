//! The editor-latency benchmark (not a test; timings never gate anything). Run with
//! `cargo bench -p salt-ide --bench ide` (release profile). Its workload generator writes
//! the trees to a temporary directory and drives `AnalysisHost` exactly as the language
//! server does:
//!
//! 1. keystrokes in a 5,000-line SLS file -> its syntax diagnostics, and -> its semantic
//!    diagnostics (debounce excluded), p50/p99;
//! 2. a workspace of 5,000 SLS files indexed with every diagnostic computed (time, peak RSS);
//! 3. an edit to a file that 500 others include, every affected file's diagnostics recomputed;
//! 4. completion in the 5,000-line file, each after the keystroke that asks for it: a state
//!    function (`pkg.`), an argument (a new `- ` item), a requisite target (`- pkg: `), p50/p99;
//! 6. a workspace of real-formula shape: 200 saltext-style formulas (a `map.jinja` calling
//!    `map.data`, `parameters/` layers, templated SLS using `mapdata`) and 2,000 plain SLS files,
//!    all in the selected minion's highstate: cold index with rendering (time, peak RSS), a
//!    keystroke in a templated SLS -> its diagnostics, a keystroke in a `parameters/` layer ->
//!    the hover and diagnostics of the file that reads it, a profile switch -> every changed
//!    file's diagnostics;
//! 5. a formula of template-formula's shape (a `map.jinja` library of grain lookups, macros and
//!    `do` mutations, templated SLS files with loops) in the selected minion's highstate: the
//!    cold render of its highstate, and keystrokes in a templated SLS -> its diagnostics (which
//!    include the minion's highstate, re-rendered);
//! 7. the inlay hints of rendered values of a 1,000-line templated SLS file in the selected
//!    minion's highstate, after a keystroke (with and without the diagnostics first) and asked
//!    again.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use salt_ide::AnalysisHost;

// The allocator the salt-analyzer binary uses, so the figures are the binary's.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// `SALT_BENCH_QUICK=1`: every scenario once with few samples (and the formula workspace
/// smaller), so the test command runs the benchmark and it cannot rot. Figures then mean
/// nothing.
fn quick() -> bool {
    std::env::var_os("SALT_BENCH_QUICK").is_some_and(|v| v == "1")
}

/// `full` samples, or a few in quick mode.
fn rounds(full: usize) -> usize {
    if quick() {
        full.clamp(1, 4)
    } else {
        full
    }
}

fn main() {
    // Cargo passes `--bench`; any other argument picks one scenario (for profiling).
    let only: Option<String> = std::env::args().skip(1).find(|a| !a.starts_with("--"));
    let base = std::env::temp_dir().join(format!("salt-analyzer-bench-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&base);
    let run = |name: &str| only.as_deref().is_none_or(|o| o == name);
    println!("salt-analyzer ide benchmark ({} cores)", std::thread::available_parallelism().map_or(1, |n| n.get()));
    // Indexing first, so that the peak RSS it reports is its own.
    if run("index") {
        index_workspace(&base.join("index"));
    }
    if run("keystrokes") {
        keystrokes(&base.join("keys"));
    }
    if run("completion") {
        completion(&base.join("completion"));
    }
    if run("includers") {
        includers(&base.join("includers"));
    }
    if run("templated") {
        templated(&base.join("templated"));
    }
    if run("structure") {
        structure(&base.join("structure"));
    }
    if run("formulas") {
        formulas(&base.join("formulas"));
    }
    if run("inlay") {
        inlay(&base.join("inlay"));
    }
    if run("rename") {
        rename(&base.join("rename"));
    }
    let _ = std::fs::remove_dir_all(&base);
}

fn write(path: &Path, text: &str) {
    if let Some(p) = path.parent() {
        std::fs::create_dir_all(p).expect("mkdir");
    }
    std::fs::write(path, text).expect("write");
}

fn percentile(samples: &mut [Duration], p: f64) -> Duration {
    samples.sort();
    let i = ((samples.len() as f64 - 1.0) * p).round() as usize;
    samples[i.min(samples.len() - 1)]
}

fn ms(d: Duration) -> String {
    format!("{:.3} ms", d.as_secs_f64() * 1000.0)
}

fn peak_rss_mb() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024.0)
}

/// A 5,000-line SLS file: 1,000 states of five lines, each requiring the one before.
fn big_file() -> String {
    let mut s = String::new();
    for i in 0..1000 {
        let prev = if i == 0 { "base_id".to_string() } else { format!("state_{}", i - 1) };
        s.push_str(&format!("state_{i}:\n  pkg.installed:\n    - name: package-{i}\n    - require:\n      - pkg: {prev}\n"));
    }
    s
}

fn keystrokes(root: &Path) {
    let text = big_file();
    write(&root.join("big.sls"), &text);
    write(&root.join("base.sls"), "base_id:\n  pkg.installed: []\n");
    write(&root.join("user.sls"), "include: [big]\nuser_id: {test.nop: [{require: [state_999]}]}\n");
    let mut host = AnalysisHost::new(root);
    let path = root.join("big.sls");
    host.open(&path, &text, 1);
    let _ = host.snapshot().take_changed_files();
    let mut current = text.clone();
    let mut syntax = Vec::new();
    let mut semantic = Vec::new();
    let mut version = 1;
    // Type `xy` then delete it, in `name:` values spread over the file: first a burst of
    // keystrokes with syntax diagnostics only (semantic ones wait for the debounce), then
    // keystrokes each followed by the semantic diagnostics.
    for pass in 0..2 {
        for k in 0..rounds(if pass == 0 { 400 } else { 300 }) {
            let line = (k * 37) % 1000;
            let anchor = format!("package-{line}\n");
            let at = current.find(&anchor).expect("anchor") + anchor.len() - 1;
            for edit in [(at..at, "x"), (at + 1..at + 1, "y"), (at..at + 2, "")] {
                version += 1;
                let t = Instant::now();
                host.change(&path, vec![(Some(edit.0.clone()), edit.1.to_string())], version);
                let a = host.snapshot();
                if pass == 0 {
                    let ds = a.syntax_diagnostics(&path);
                    let li = a.line_index(&path).expect("line index");
                    std::hint::black_box(ds.iter().map(|d| li.line_col(d.range.start)).collect::<Vec<_>>());
                    syntax.push(t.elapsed());
                } else {
                    let ds = a.diagnostics(&path).expect("fresh");
                    std::hint::black_box(ds);
                    semantic.push(t.elapsed());
                }
                current.replace_range(edit.0.clone(), edit.1);
            }
        }
    }
    println!("\n5,000-line SLS file ({} keystrokes for syntax, {} for semantic):", syntax.len(), semantic.len());
    println!("  keystroke -> syntax diagnostics:   p50 {}  p99 {}", ms(percentile(&mut syntax, 0.5)), ms(percentile(&mut syntax, 0.99)));
    println!("  keystroke -> semantic diagnostics: p50 {}  p99 {}", ms(percentile(&mut semantic, 0.5)), ms(percentile(&mut semantic, 0.99)));
}

fn completion(root: &Path) {
    let text = big_file();
    write(&root.join("big.sls"), &text);
    write(&root.join("base.sls"), "base_id:\n  pkg.installed: []\n");
    let mut host = AnalysisHost::new(root);
    let path = root.join("big.sls");
    host.open(&path, &text, 1);
    let _ = host.snapshot().take_changed_files();
    let mut version = 1;
    let kinds: [(&str, &str, &str); 3] = [
        ("a state function (`pkg.`)", "  pkg.installed:\n", "  pkg.installed:\n  pkg.\n"),
        ("an argument (`- `)", "    - name: package-", "    - \n    - name: package-"),
        ("a requisite target (`- pkg: `)", "    - require:\n", "    - require:\n      - pkg: \n"),
    ];
    println!("\ncompletion in the 5,000-line SLS file (the request, right after the keystroke that asks for it):");
    for (what, anchor, with) in kinds {
        let mut samples = Vec::new();
        let mut count = 0;
        for k in 0..rounds(200) {
            let line = (k * 37) % 1000;
            let id = format!("state_{line}:\n");
            let at = text.find(&id).expect("id") + id.len();
            let a = at + text[at..].find(anchor).expect("anchor");
            // The cursor: the end of the inserted line that asks.
            let ask = a + with.trim_end_matches('\n').len() - if with.ends_with("package-") { "\n    - name: package-".len() } else { 0 };
            // The keystroke (an incremental edit, as an editor sends it), then the request.
            version += 1;
            host.change(&path, vec![(Some(a..a + anchor.len()), with.to_string())], version);
            let t = Instant::now();
            let items = host.snapshot().completions(&path, ask).expect("fresh");
            samples.push(t.elapsed());
            count += items.len();
            version += 1;
            host.change(&path, vec![(Some(a..a + with.len()), anchor.to_string())], version);
        }
        println!("  {what}: p50 {}  p99 {}  ({} items on average)", ms(percentile(&mut samples, 0.5)), ms(percentile(&mut samples, 0.99)), count / rounds(200));
    }
}

/// 5,000 SLS files in 100 directories: each includes its directory's `init`, its partner
/// file (pairs include each other) and a shared `common`, declares three states with
/// requisites into them, and one per directory has mistakes (a missing include, a requisite
/// to nowhere).
fn index_workspace(root: &Path) {
    let mut files = 0;
    write(&root.join("common.sls"), "common_pkg:\n  pkg.installed: []\ncommon_conf:\n  file.managed:\n    - name: /etc/common\n");
    files += 1;
    for d in 0..(if quick() { 4 } else { 100 }) {
        write(&root.join(format!("d{d}/init.sls")), &format!("include:\n  - common\nd{d}_base:\n  test.nop:\n    - require:\n      - pkg: common_pkg\n"));
        files += 1;
        for f in 0..49 {
            let neighbour = if f ^ 1 < 49 { format!("d{d}.f{}", f ^ 1) } else { format!("d{d}") };
            let mut t = format!("include:\n  - d{d}\n  - {neighbour}\n  - common\n");
            for s in 0..3 {
                t.push_str(&format!(
                    "d{d}_f{f}_s{s}:\n  pkg.installed:\n    - name: pkg-{d}-{f}-{s}\n    - require:\n      - pkg: common_pkg\n      - test: d{d}_base\n"
                ));
            }
            if f % 50 == 7 {
                t.push_str("  - missing.include\n");
                t.push_str(&format!("broken_{d}:\n  test.nop:\n    - require:\n      - nowhere_{d}\n"));
            }
            write(&root.join(format!("d{d}/f{f}.sls")), &t);
            files += 1;
        }
    }
    write(&root.join("top.sls"), "base:\n  '*':\n    - common\n");
    files += 1;
    let rss_before = peak_rss_mb().unwrap_or(0.0);
    let t = Instant::now();
    let host = AnalysisHost::new(root);
    let scanned = t.elapsed();
    let a = host.snapshot();
    let changed = a.take_changed_files().expect("fresh");
    let checked = t.elapsed();
    let mut count = 0;
    for f in &changed {
        count += a.diagnostics(f).expect("fresh").len();
    }
    let took = t.elapsed();
    println!("\nworkspace of {files} SLS files:");
    println!("  (file roots scanned after {}, every root checked after {})", ms(scanned), ms(checked));
    println!(
        "  indexed, all diagnostics computed: {} ({} files, {count} diagnostics); peak RSS {:.0} MB (before: {:.0} MB)",
        ms(took),
        changed.len(),
        peak_rss_mb().unwrap_or(0.0),
        rss_before
    );
}

/// `lib.sls` included by 500 files, each requiring one of its states; the edit renames it.
fn includers(root: &Path) {
    write(&root.join("lib.sls"), "lib_id:\n  pkg.installed: []\nlib_other:\n  test.nop: []\n");
    for i in 0..500 {
        write(&root.join(format!("users/u{i}.sls")), &format!("include:\n  - lib\nuser_{i}:\n  test.nop:\n    - require:\n      - pkg: lib_id\n"));
    }
    // Files that have nothing to do with lib.sls, which must not be recomputed.
    for i in 0..1500 {
        write(&root.join(format!("other/o{i}.sls")), &format!("other_{i}:\n  test.nop: []\n"));
    }
    let mut host = AnalysisHost::new(root);
    let lib: PathBuf = root.join("lib.sls");
    let text = std::fs::read_to_string(&lib).expect("read");
    host.open(&lib, &text, 1);
    let _ = host.snapshot().take_changed_files();
    let mut samples = Vec::new();
    let mut affected = 0;
    for round in 0..rounds(20) as i32 {
        let (from, to) = if round % 2 == 0 { (0..6, "lib_ID") } else { (0..6, "lib_id") };
        let t = Instant::now();
        host.change(&lib, vec![(Some(from), to.to_string())], round + 2);
        let a = host.snapshot();
        let changed = a.take_changed_files().expect("fresh");
        let mut errors = 0;
        for f in &changed {
            errors += a.diagnostics(f).expect("fresh").len();
        }
        samples.push(t.elapsed());
        affected = changed.len();
        assert_eq!(errors, if round % 2 == 0 { 500 } else { 0 }, "every includer's requisite breaks, then heals");
    }
    println!("\nedit to a file that 500 others include ({affected} files recomputed and re-diagnosed, of 2,001):");
    println!("  p50 {}  max {}", ms(percentile(&mut samples, 0.5)), ms(percentile(&mut samples, 1.0)));
}

/// A formula laid out as template-formula lays it out, in the highstate of the selected minion,
/// next to 200 plain SLS files.
fn templated(root: &Path) {
    write(
        &root.join("salt-analyzer.yaml"),
        "minions:\n  web01: {grains: {os_family: Debian, osarch: amd64, roles: [web]}, pillar: {formula: {lookup: {port: 8080}}}}\ndefault_minion: web01\n",
    );
    write(&root.join("top.sls"), "base:\n  '*':\n    - formula\n");
    let mut map =
        String::from("{%- set defaults = {'pkg': {'name': 'formula'}, 'service': {'name': 'formula'}, 'config': '/etc/formula.conf', 'ports': []} %}\n");
    map.push_str("{%- set by_os = {'Debian': {'pkg': {'name': 'formula-deb'}}, 'RedHat': {'pkg': {'name': 'formula-rpm'}}} %}\n");
    map.push_str("{%- set mapdata = defaults %}\n{%- do mapdata.update(by_os.get(grains['os_family'], {})) %}\n");
    map.push_str("{%- do mapdata.update(salt['pillar.get']('formula:lookup', {})) %}\n");
    map.push_str("{%- for i in range(20) %}{%- do mapdata.ports.append(8000 + i) %}{%- endfor %}\n");
    map.push_str("{%- macro conf_line(k, v) -%}{{ k }} = {{ v }}{%- endmacro %}\n");
    write(&root.join("formula/map.jinja"), &map);
    write(&root.join("formula/init.sls"), "include:\n  - .package\n  - .config\n");
    write(
        &root.join("formula/package.sls"),
        "{%- from './map.jinja' import mapdata with context %}\nformula-pkg:\n  pkg.installed:\n    - name: {{ mapdata.pkg.name }}\n",
    );
    let mut config = String::from("{%- from './map.jinja' import mapdata, conf_line with context %}\ninclude:\n  - .package\n");
    config.push_str("{%- for port in mapdata.ports %}\nformula-port-{{ port }}:\n  file.managed:\n    - name: /etc/formula/{{ port }}.conf\n    - contents: {{ conf_line('port', port) | yaml_encode }}\n    - require:\n      - pkg: formula-pkg\n{%- endfor %}\n");
    for i in 0..40 {
        config.push_str(&format!("formula-setting-{i}:\n  file.managed:\n    - name: {{{{ mapdata.config }}}}.d/{i}\n    - mode: '0644'\n"));
    }
    write(&root.join("formula/config.sls"), &config);
    for i in 0..200 {
        write(&root.join(format!("plain/p{i}.sls")), &format!("plain_{i}:\n  test.nop: []\n"));
    }
    let t = Instant::now();
    let mut host = AnalysisHost::new(root);
    let path = root.join("formula/config.sls");
    let text = std::fs::read_to_string(&path).expect("read");
    host.open(&path, &text, 1);
    let a = host.snapshot();
    let ds = a.diagnostics(&path).expect("fresh");
    assert!(ds.is_empty(), "the formula renders cleanly: {ds:?}");
    let cold = t.elapsed();
    let mut current = text.clone();
    let mut samples = Vec::new();
    let mut version = 1;
    for k in 0..rounds(100) {
        let anchor = format!("formula-setting-{}:\n", k % 40);
        let at = current.find(&anchor).expect("anchor") + anchor.len() - 2;
        for edit in [(at..at, "x"), (at..at + 1, "")] {
            version += 1;
            let t = Instant::now();
            host.change(&path, vec![(Some(edit.0.clone()), edit.1.to_string())], version);
            let a = host.snapshot();
            std::hint::black_box(a.diagnostics(&path).expect("fresh"));
            samples.push(t.elapsed());
            current.replace_range(edit.0.clone(), edit.1);
        }
    }
    println!("\ntemplate-formula-shaped formula in the selected minion's highstate (+200 plain SLS files):");
    println!("  cold: index, render the minion's highstate, diagnostics: {}", ms(cold));
    println!(
        "  keystroke in a templated SLS -> its diagnostics ({} keystrokes): p50 {}  p99 {}",
        samples.len(),
        ms(percentile(&mut samples, 0.5)),
        ms(percentile(&mut samples, 0.99))
    );
}

/// Inlay hints of rendered values for a 1,000-line templated SLS file in the selected
/// minion's highstate (100 blocks of a `set`, an `if`, a `for` and expressions): the whole
/// file's hints right after a keystroke in it (the file rendered again, traced), and asked
/// again with nothing changed.
fn inlay(root: &Path) {
    write(
        &root.join("salt-analyzer.yaml"),
        "minions:\n  web01: {grains: {os_family: Debian, roles: [web, db]}, pillar: {ports: [80, 443, 8080]}}\ndefault_minion: web01\n",
    );
    write(&root.join("top.sls"), "base:\n  '*':\n    - big\n");
    let mut text = String::new();
    for i in 0..100 {
        text.push_str(&format!("{{%- set name = 'svc-' ~ grains.os_family ~ '-{i}' %}}\n"));
        text.push_str("{%- if grains.os_family == 'Debian' and 'web' in grains.roles %}\n");
        text.push_str(&format!("svc-{i}:\n  pkg.installed:\n    - name: {{{{ name }}}}\n"));
        text.push_str("{%- for port in pillar.ports if port != 8080 %}\n");
        text.push_str(&format!("svc-{i}-port-{{{{ port }}}}:\n  test.nop: [{{name: '{{{{ name }}}}:{{{{ port }}}}'}}]\n"));
        text.push_str("{%- endfor %}\n{%- endif %}\n");
    }
    assert_eq!(text.lines().count(), 1000);
    let path = root.join("big.sls");
    write(&path, &text);
    let mut host = AnalysisHost::new(root);
    host.open(&path, &text, 1);
    let config = salt_ide::InlayConfig::default();
    let whole = 0..text.len() + 10;
    let hints = host.snapshot().inlay_hints(&path, whole.clone(), config).expect("fresh");
    assert_eq!(hints.len(), 100 * 7, "every reached block has its hint");
    let at = text.find("svc-50:\n").expect("anchor") + 6;
    let (mut after_edit, mut after_diagnostics, mut again) = (Vec::new(), Vec::new(), Vec::new());
    let mut version = 1;
    for round in 0..rounds(100) {
        for edit in [(at..at, "x"), (at..at + 1, "")] {
            version += 1;
            host.change(&path, vec![(Some(edit.0.clone()), edit.1.to_string())], version);
            // Every other round the diagnostics come first (the highstate re-rendered for
            // them), as an editor asks after a keystroke; the others ask the hints alone.
            let first = round % 2 == 0;
            if first {
                std::hint::black_box(host.snapshot().diagnostics(&path).expect("fresh"));
            }
            let t = Instant::now();
            std::hint::black_box(host.snapshot().inlay_hints(&path, whole.clone(), config).expect("fresh"));
            if first { &mut after_diagnostics } else { &mut after_edit }.push(t.elapsed());
            let t = Instant::now();
            std::hint::black_box(host.snapshot().inlay_hints(&path, whole.clone(), config).expect("fresh"));
            again.push(t.elapsed());
        }
    }
    println!("\ninlay hints of a 1,000-line templated SLS file in the selected minion's highstate (700 hints):");
    for (what, samples) in [
        ("after a keystroke in it, the highstate re-rendered for them", &mut after_edit),
        ("after a keystroke and its diagnostics (the file's traced render)", &mut after_diagnostics),
        ("asked again, nothing changed", &mut again),
    ] {
        println!("  {what} ({} samples): p50 {}  p99 {}", samples.len(), ms(percentile(samples, 0.5)), ms(percentile(samples, 0.99)));
    }
}

/// `rounds` times, types an `x` at `at` in the open document `path` and deletes it: the time of
/// each keystroke to the document's diagnostics.
fn type_and_delete(host: &mut AnalysisHost, path: &Path, at: usize, rounds: usize) -> Vec<Duration> {
    let mut samples = Vec::new();
    let mut version = 1000;
    for _ in 0..rounds {
        for edit in [(at..at, "x"), (at..at + 1, "")] {
            version += 1;
            let t = Instant::now();
            host.change(path, vec![(Some(edit.0.clone()), edit.1.to_string())], version);
            std::hint::black_box(host.snapshot().diagnostics(path).expect("fresh"));
            samples.push(t.elapsed());
        }
    }
    samples
}

/// Workload 6: `formulas` saltext-style formulas and `plain` plain SLS files, all assigned by
/// the top file.
fn formula_workspace(root: &Path, formulas: usize, plain: usize) {
    write(
        &root.join("salt-analyzer.yaml"),
        "minions:\n  deb01: {grains: {os_family: Debian, osarch: amd64, id: deb01}}\n  rh01: {grains: {os_family: RedHat, osarch: x86_64, id: rh01}}\ndefault_minion: deb01\n",
    );
    let mut top = String::from("base:\n  '*':\n");
    for f in 0..formulas {
        let d = root.join(format!("f{f}"));
        write(&d.join("map.jinja"), "{%- set mapdata = salt[\"map.data\"](tpldir) %}\n");
        write(
            &d.join("parameters/defaults.yaml"),
            &format!("values:\n  pkg:\n    name: pkg{f}\n  service: svc{f}\n  port: {}\n  options: {{a: 1, b: 2}}\n", 8000 + f),
        );
        write(&d.join("parameters/os_family/Debian.yaml"), &format!("values:\n  pkg:\n    name: pkg{f}-deb\n"));
        write(&d.join("parameters/os_family/RedHat.yaml"), &format!("values:\n  pkg:\n    name: pkg{f}-rpm\n  port: {}\n", 9000 + f));
        let mut sls = String::from("{%- from tpldir ~ \"/map.jinja\" import mapdata with context %}\n");
        sls.push_str(&format!("f{f}-pkg:\n  pkg.installed:\n    - name: {{{{ mapdata.pkg.name }}}}\n"));
        sls.push_str(&format!(
            "f{f}-conf:\n  file.managed:\n    - name: /etc/f{f}.conf\n    - contents: 'port={{{{ mapdata.port }}}}'\n    - require:\n      - pkg: f{f}-pkg\n"
        ));
        sls.push_str(&format!(
            "{{%- for k, v in mapdata.options | dictsort %}}\nf{f}-opt-{{{{ k }}}}:\n  test.nop:\n    - name: {{{{ v }}}}\n{{%- endfor %}}\n"
        ));
        sls.push_str(&format!("f{f}-svc:\n  service.running:\n    - name: {{{{ mapdata.service }}}}\n    - watch:\n      - file: f{f}-conf\n"));
        write(&d.join("init.sls"), &sls);
        top.push_str(&format!("    - f{f}\n"));
    }
    for i in 0..plain {
        write(&root.join(format!("plain/d{}/p{i}.sls", i / 100)), &format!("plain_{i}:\n  test.nop:\n    - name: p{i}\n"));
        top.push_str(&format!("    - plain.d{}.p{i}\n", i / 100));
    }
    write(&root.join("top.sls"), &top);
}

fn formulas(root: &Path) {
    let (nf, np) = if quick() { (10, 100) } else { (200, 2000) };
    formula_workspace(root, nf, np);
    let t = Instant::now();
    let mut host = AnalysisHost::new(root);
    let sls = root.join("f0/init.sls");
    let text = std::fs::read_to_string(&sls).expect("read");
    host.open(&sls, &text, 1);
    let a = host.snapshot();
    let changed = a.take_changed_files().expect("fresh");
    let mut count = 0;
    for f in &changed {
        count += a.diagnostics(f).expect("fresh").len();
    }
    let cold = t.elapsed();
    let rss = peak_rss_mb();
    // A keystroke in a templated SLS -> its diagnostics (the highstate re-rendered).
    let at = text.find("/etc/f0.conf").expect("anchor") + "/etc/f0".len();
    let mut keys = type_and_delete(&mut host, &sls, at, rounds(100));
    // A keystroke in a plain SLS file of the highstate -> its diagnostics.
    let plain = root.join("plain/d0/p0.sls");
    let ptext = std::fs::read_to_string(&plain).expect("read");
    host.open(&plain, &ptext, 1);
    let pat = ptext.find("name: p0").expect("anchor") + "name: p".len();
    let mut plains = type_and_delete(&mut host, &plain, pat, rounds(100));
    // A keystroke in a `parameters/` layer -> the hover on the value it sets and the
    // diagnostics of the file that reads it.
    let layer = root.join("f0/parameters/os_family/Debian.yaml");
    let ltext = std::fs::read_to_string(&layer).expect("read");
    host.open(&layer, &ltext, 1);
    let lat = ltext.find("-deb").expect("anchor") + 1;
    let hover_at = text.find("mapdata.pkg.name").expect("use") + "mapdata.pkg.n".len();
    let mut layers = Vec::new();
    let mut lversion = 1;
    for _ in 0..rounds(50) {
        for edit in [(lat..lat, "x"), (lat..lat + 1, "")] {
            lversion += 1;
            let t = Instant::now();
            host.change(&layer, vec![(Some(edit.0.clone()), edit.1.to_string())], lversion);
            let a = host.snapshot();
            std::hint::black_box(a.hover(&sls, hover_at).expect("fresh"));
            std::hint::black_box(a.diagnostics(&sls).expect("fresh"));
            layers.push(t.elapsed());
        }
    }
    // A profile switch -> the files whose diagnostics changed, re-diagnosed.
    let mut switches = Vec::new();
    for (i, m) in ["rh01", "deb01"].iter().cycle().take(rounds(6)).enumerate() {
        let t = Instant::now();
        host.set_minion(Some(m.to_string()));
        let a = host.snapshot();
        for f in a.take_changed_files().expect("fresh") {
            std::hint::black_box(a.diagnostics(&f).expect("fresh"));
        }
        switches.push(t.elapsed());
        std::hint::black_box(i);
    }
    println!("\nreal-formula-shaped workspace: {nf} formulas (map.data, parameters/ layers, templated SLS) + {np} plain SLS files, all in the highstate:");
    println!(
        "  cold: index, render the minion's highstate, every diagnostic ({} files, {count} diagnostics): {}, peak RSS {}",
        changed.len(),
        ms(cold),
        rss.map_or("?".into(), |r| format!("{r:.0} MB"))
    );
    println!(
        "  keystroke in a templated SLS -> its diagnostics ({} samples): p50 {}  p99 {}",
        keys.len(),
        ms(percentile(&mut keys, 0.5)),
        ms(percentile(&mut keys, 0.99))
    );
    println!(
        "  keystroke in a plain SLS file of the highstate -> its diagnostics ({} samples): p50 {}  p99 {}",
        plains.len(),
        ms(percentile(&mut plains, 0.5)),
        ms(percentile(&mut plains, 0.99))
    );
    println!(
        "  keystroke in a parameters/ layer -> the value's hover and the reader's diagnostics ({} samples): p50 {}  p99 {}",
        layers.len(),
        ms(percentile(&mut layers, 0.5)),
        ms(percentile(&mut layers, 0.99))
    );
    println!(
        "  profile switch -> changed files re-diagnosed ({} samples): p50 {}  max {}",
        switches.len(),
        ms(percentile(&mut switches, 0.5)),
        ms(percentile(&mut switches, 1.0))
    );
}

/// A 1,000-line templated SLS file (states in `{% for %}` loops and `{% if %}` branches,
/// `{{ }}` values reading `pillar` and `grains`, filters): after each keystroke in it, the
/// requests an editor sends for the structure of the file it shows.
fn structure(root: &Path) {
    let mut text = String::from("{%- set ß = pillar.get('app:ℝ', {}) %}\n{%- from 'map.jinja' import mapdata with context %}\ninclude:\n  - common\n");
    let mut n = 0;
    while text.lines().count() < 1000 {
        text.push_str(&format!(
            "{{% if grains['os_family'] == 'Debian' %}}\npkg_{n}_💣:\n  pkg.installed:\n    - name: {{{{ mapdata.pkg | default('p{n}') | lower }}}}\n    - require:\n      - sls: common\n{{% endif %}}\n"
        ));
        text.push_str(&format!(
            "{{% for site in ß.get('sites', []) if site is defined %}}\nconf_{n}_{{{{ site }}}}:\n  file.managed:\n    - name: /etc/app/{{{{ site }}}}.conf\n    - source: salt://app/files/site.conf\n    - template: jinja\n    - watch:\n      - pkg: pkg_{n}_💣\n{{% endfor %}}\n"
        ));
        n += 1;
    }
    write(&root.join("app.sls"), &text);
    write(&root.join("common.sls"), "common: test.nop\n");
    write(&root.join("map.jinja"), "{% set mapdata = {'pkg': 'app'} %}\n");
    write(&root.join("app/files/site.conf"), "x\n");
    let mut host = AnalysisHost::new(root);
    let path = root.join("app.sls");
    host.open(&path, &text, 1);
    let _ = host.snapshot().take_changed_files();
    println!("\nstructure of a {}-line templated SLS file, the request right after a keystroke:", text.lines().count());
    let mut version = 1;
    let mut current = text.clone();
    let mut samples: [Vec<Duration>; 5] = Default::default();
    let mut tokens = 0;
    for k in 0..rounds(200) {
        // Type one character into an ID, and take it out on the next round.
        let i = (k / 2) % n;
        let prefix = format!("\npkg_{i}_");
        let at = current.find(&prefix).expect("the ID") + prefix.len();
        let edit = if k % 2 == 0 { (at..at, "x") } else { (at..at + 1, "") };
        version += 1;
        host.change(&path, vec![(Some(edit.0.clone()), edit.1.to_string())], version);
        current.replace_range(edit.0, edit.1);
        let a = host.snapshot();
        let cursor = current.find(&format!("- pkg: pkg_{i}_")).expect("requisite") + 10;
        let timed = |f: &mut dyn FnMut()| {
            let t = Instant::now();
            f();
            t.elapsed()
        };
        samples[0].push(timed(&mut || tokens = a.semantic_tokens(&path, None).len()));
        samples[1].push(timed(&mut || drop(a.folding_ranges(&path))));
        samples[2].push(timed(&mut || drop(a.document_links(&path))));
        samples[3].push(timed(&mut || drop(a.document_highlight(&path, cursor))));
        samples[4].push(timed(&mut || drop(a.selection_ranges(&path, &[cursor]))));
    }
    for (what, s) in
        ["semantic tokens (whole file)", "folding ranges", "document links", "document highlight", "selection ranges"].iter().zip(samples.iter_mut())
    {
        println!("  {what}: p50 {}  p99 {}", ms(percentile(s, 0.5)), ms(percentile(s, 0.99)));
    }
    println!("  ({tokens} tokens)");
}

/// Rename in the formula workspace (2,200 files and more): a state ID that 50 files name in a
/// requisite, renamed at its declaration, and its SLS file moved (`willRenameFiles`), each
/// right after a keystroke in one of the requiring files.
fn rename(root: &Path) {
    let (nf, np, users) = if quick() { (10, 100, 10) } else { (200, 2000, 50) };
    formula_workspace(root, nf, np);
    write(&root.join("lib/init.sls"), "shared_ℝ_id:\n  test.nop: []\n");
    let mut top = std::fs::read_to_string(root.join("top.sls")).expect("top");
    for u in 0..users {
        write(&root.join(format!("users/u{u}.sls")), &format!("include:\n  - lib\nuser_{u}:\n  test.nop:\n    - require:\n      - test: shared_ℝ_id\n"));
        top.push_str(&format!("    - users.u{u}\n"));
    }
    write(&root.join("top.sls"), &top);
    let mut host = AnalysisHost::new(root);
    let lib = root.join("lib/init.sls");
    let typed = root.join("users/u0.sls");
    let text = std::fs::read_to_string(&typed).expect("u0");
    host.open(&typed, &text, 1);
    let _ = host.snapshot().take_changed_files();
    let files = host.snapshot().workspace_files().len();
    println!("\nrename in a {files}-file workspace, an ID {users} files require, right after a keystroke:");
    let at = text.find("user_0").expect("id") + 4;
    let mut samples: [Vec<Duration>; 2] = Default::default();
    let mut edits = 0;
    let mut moved = 0;
    for k in 0..rounds(100) {
        let edit = if k % 2 == 0 { (at..at, "x") } else { (at..at + 1, "") };
        host.change(&typed, vec![(Some(edit.0), edit.1.to_string())], k as i32 + 2);
        let a = host.snapshot();
        let t = Instant::now();
        let change = a.rename(&lib, 2, "shared_id_renamed").expect("not cancelled").expect("renamed");
        samples[0].push(t.elapsed());
        edits = change.text_edits.len();
        let t = Instant::now();
        let change = a.will_rename_files(&[(root.join("lib"), root.join("library"))]).expect("not cancelled");
        samples[1].push(t.elapsed());
        moved = change.text_edits.len();
    }
    for (what, s) in ["rename the ID", "move its SLS directory (willRenameFiles)"].iter().zip(samples.iter_mut()) {
        println!("  {what}: p50 {}  p99 {}", ms(percentile(s, 0.5)), ms(percentile(s, 0.99)));
    }
    println!("  ({edits} and {moved} edits)");
}
