//! The pipeline's tests: one minion compiled end to end over small in-memory file roots, the
//! caches and the patch after an edit.

#[test]
fn each_in_parallel_hands_every_result_over_in_order() {
    let items: Vec<u64> = (0..200).collect();
    let mut got = Vec::new();
    // Uneven work, so results finish out of order.
    super::each_in_parallel(&items, 3, |&i| (i * i, std::thread::sleep(std::time::Duration::from_micros((i * 37) % 500))).0, |i, sq| got.push((i, sq)));
    assert_eq!(got, items.iter().map(|&i| (i as usize, i * i)).collect::<Vec<_>>());
}

use std::path::PathBuf;

use super::*;
use crate::workspace::vfs::MemFs;

const TREE: &str = "\
#- salt-analyzer.yaml
file_roots: {base: [base]}
minions:
  web01: {grains: {role: web}}
  db01: {grains: {role: db}}
#- base/top.sls
base:
  'G@role:web': [web]
  'G@role:db': [db]
#- base/web.sls
{% from 'lib.jinja' import port %}
nginx: {pkg.installed: [], service.running: [{port: {{ port }}}]}
#- base/lib.jinja
{% set port = 80 %}
#- base/db.sls
postgres: {pkg.installed: []}
#- base/unrelated.sls
x: test.nop
";

fn setup(fs: &MemFs) -> (Workspace, Arc<FileRoots>) {
    let ws = Workspace::load(fs, Path::new("/ws"), None).expect("workspace");
    let roots = Arc::new(FileRoots::scan(fs, &ws.opts.file_roots));
    (ws, roots)
}

fn ids(c: &Compiled) -> Vec<String> {
    c.low.as_ref().and_then(|l| l.chunks.as_ref()).into_iter().flatten().map(|ch| ch.get_str("__id__").to_string()).collect()
}

#[test]
fn one_compile_gives_the_top_the_chunks_and_what_they_read() {
    let fs = MemFs::from_fixture(TREE);
    let (ws, roots) = setup(&fs);
    let c = compile(Arc::new(fs), &ws, &roots, &Request::new(Some("web01"), Scope::Highstate));
    assert_eq!(c.minion.as_ref().map(|m| m.id.as_str()).ok(), Some("web01"));
    assert_eq!(c.top.as_ref().map(|t| t.show_top_json().to_string()).as_deref(), Some(r#"{"base":["web"]}"#));
    assert_eq!(ids(&c), ["nginx", "nginx"]);
    let read: Vec<PathBuf> = c.reads.paths().map(Path::to_path_buf).collect();
    // The Jinja import is read through the same recorder as the SLS files.
    for f in ["base/top.sls", "base/web.sls", "base/lib.jinja"] {
        assert!(read.contains(&Path::new("/ws").join(f)), "{f} not in {read:?}");
    }
    assert!(!read.contains(&PathBuf::from("/ws/base/db.sls")));
}

#[test]
fn an_edit_re_renders_only_the_files_whose_reads_changed() {
    let mut fs = MemFs::from_fixture(
        "\
#- salt-analyzer.yaml
file_roots: {base: [base]}
minions:
  m1: {grains: {os_family: Debian}}
  m2: {grains: {os_family: RedHat}}
#- base/top.sls
base:
  '*': [f, f.conf, plain, lone]
#- base/f/map.jinja
{%- set mapdata = salt[\"map.data\"](tpldir) %}
#- base/f/parameters/defaults.yaml
values: {pkg: nginx, port: 80}
#- base/f/init.sls
{%- from tpldir ~ \"/map.jinja\" import mapdata with context %}
ß-pkg: {pkg.installed: [{name: '{{ mapdata.pkg }}'}]}
#- base/f/conf.sls
{%- from tpldir ~ \"/map.jinja\" import mapdata with context %}
ℝ-conf: {test.nop: [{name: 'port={{ mapdata.port }}'}]}
#- base/plain.sls
💣: {test.nop: []}
#- base/lone.sls
lone: {test.nop: [{name: '{{ grains.os_family }}'}]}
",
    );
    let (ws, roots) = setup(&fs);
    let memo = Memo::keeping_renders();
    let renders = || memo.renders.as_ref().map_or(0, RenderMemo::renders);
    let compile = |fs: &MemFs, who: &str| compile_with(Arc::new(fs.clone()), &ws, &roots, &Request::new(Some(who), Scope::Highstate), &memo);
    let names = |c: &Compiled| {
        c.low.as_ref().and_then(|l| l.chunks.as_ref()).into_iter().flatten().map(|ch| ch.get_str("name").to_string()).collect::<Vec<_>>().join(" ")
    };
    let first = compile(&fs, "m1");
    assert_eq!(names(&first), "nginx port=80 💣 Debian");
    assert_eq!(renders(), 4);
    // Nothing changed: nothing rendered, the same answer and the same reads.
    let again = compile(&fs, "m1");
    assert_eq!(renders(), 4);
    assert_eq!(names(&again), names(&first));
    assert!(first.reads.paths().all(|p| again.reads.touches(p)), "a kept render's reads count for the compile");
    // One file edited: that file only.
    fs.files.insert("/ws/base/plain.sls".into(), "💣: {test.nop: [{name: edited}]}\n".into());
    assert_eq!(names(&compile(&fs, "m1")), "nginx port=80 edited Debian");
    assert_eq!(renders(), 5);
    // A layer both formula files read through `map.data` (the second through the first's
    // answer): both, and only they.
    fs.files.insert("/ws/base/f/parameters/defaults.yaml".into(), "values: {pkg: apache2, port: 8080}\n".into());
    assert_eq!(names(&compile(&fs, "m1")), "apache2 port=8080 edited Debian");
    assert_eq!(renders(), 7);
    // Another minion: its own renders; back to the first: kept.
    assert_eq!(names(&compile(&fs, "m2")), "apache2 port=8080 edited RedHat");
    assert_eq!(renders(), 11);
    compile(&fs, "m1");
    assert_eq!(renders(), 11);
}

/// Everything a compile answers, to compare a patched compile with a fresh one.
fn answer(c: &Compiled) -> String {
    let low = c.low.as_ref().expect("a highstate");
    let errors = |l: &[SaltError]| l.iter().map(|e| format!("{:?} {} {:?}", e.code, e.message, e.loc)).collect::<Vec<_>>();
    let rendered: Vec<String> =
        low.highstate.rendered.iter().map(|r| format!("{}:{} {:?}", r.env, r.sls, r.includes.iter().map(|i| &i.sls).collect::<Vec<_>>())).collect();
    let texts: Vec<String> = (0..c.files.len()).map(|i| format!("{} {}", c.files.path(i as u32).display(), c.files.text(i as u32))).collect();
    format!(
        "chunks {}\nhigh {}\nshow {:?}\napply {:?}\ncalls {:?}\nhints {:?}\nrendered {rendered:?}\nfiles {texts:?}",
        low.chunks_json(),
        low.highstate.high.to_json(),
        errors(&low.show_errors),
        errors(&low.apply_errors),
        errors(&low.calls),
        errors(&low.highstate.hints),
    )
}

#[test]
fn an_edit_of_argument_values_is_patched_into_the_kept_compile() {
    let mut fs = MemFs::from_fixture(
        "\
#- salt-analyzer.yaml
file_roots: {base: [base]}
minions:
  m1: {grains: {os_family: Debian}}
#- base/top.sls
base:
  '*': [f, f.conf, plain]
#- base/f/map.jinja
{%- set mapdata = salt[\"map.data\"](tpldir) %}
#- base/f/parameters/defaults.yaml
values: {pkg: nginx, port: 80, mode: '0644'}
#- base/f/init.sls
{%- from tpldir ~ \"/map.jinja\" import mapdata with context %}
ß-pkg: {pkg.installed: [{name: '{{ mapdata.pkg }}'}, {version: latest}]}
#- base/f/conf.sls
{%- from tpldir ~ \"/map.jinja\" import mapdata with context %}
include: [f]
{%- for i in range(2) %}
ℝ-conf-{{ i }}:
  file.managed:
    - name: /etc/f{{ i }}.conf
    - contents: 'port={{ mapdata.port }}'
    - mode: '{{ mapdata.mode }}'
    - require: [{pkg: ß-pkg}]
u-{{ i }}:
  user.present:
    - home: '/home/{{ mapdata.port }}'
    - bogus: 1
{%- endfor %}
#- base/plain.sls
💣: {test.nop: [{name: '{{ grains.os_family }}'}]}
",
    );
    let (ws, roots) = setup(&fs);
    let memo = Memo::keeping_renders();
    let mut cache = MinionCache::default();
    let req = Request::new(Some("m1"), Scope::Highstate);
    let mut check = |fs: &MemFs, patched: bool, why: &str| {
        let (before, compiles) = (cache.patches, cache.compiles);
        let c = cache.get(&(Arc::new(fs.clone()) as Arc<dyn Vfs>), &ws, &roots, &req, &memo);
        assert_eq!((cache.patches - before, cache.compiles - compiles), if patched { (1, 0) } else { (0, 1) }, "{why}");
        let fresh = compile(Arc::new(fs.clone()), &ws, &roots, &req);
        assert_eq!(answer(&c), answer(&fresh), "{why}");
        c
    };
    let first = check(&fs, false, "the first compile");
    assert!(first.low.as_ref().is_some_and(|l| !l.calls.is_empty()), "the unknown argument is found");
    let conf = "/ws/base/f/conf.sls";
    let edit = |fs: &mut MemFs, path: &str, from: &str, to: &str| {
        let text = fs.files[Path::new(path)].replace(from, to);
        fs.files.insert(path.into(), text);
    };
    edit(&mut fs, conf, "port=", "listen=");
    check(&fs, true, "a value in a templated file");
    edit(&mut fs, "/ws/base/f/parameters/defaults.yaml", "port: 80", "port: 8080");
    check(&fs, true, "a layer both formula files read, changing a value only");
    edit(&mut fs, "/ws/base/f/parameters/defaults.yaml", "mode: '0644'", "mode: '0600'");
    edit(&mut fs, conf, "listen=", "port=");
    check(&fs, true, "two files, values only");
    edit(&mut fs, "/ws/base/f/parameters/defaults.yaml", "pkg: nginx", "pkg: apache2");
    check(&fs, true, "a layer that changes a name no requisite names");
    edit(&mut fs, "/ws/base/f/parameters/defaults.yaml", "pkg: apache2", "pkg: ß-pkg");
    check(&fs, false, "a name a requisite names");
    edit(&mut fs, "/ws/base/f/parameters/defaults.yaml", "pkg: ß-pkg", "pkg: nginx");
    check(&fs, false, "a name a requisite named");
    edit(&mut fs, conf, "bogus: 1", "mode2: 1");
    check(&fs, false, "an argument renamed");
    edit(&mut fs, conf, "range(2)", "range(3)");
    check(&fs, false, "another state");
    edit(&mut fs, conf, "{pkg: ß-pkg}", "{pkg: ß-pkg}, {file: /etc/f0.conf}");
    check(&fs, false, "another requisite");
    edit(&mut fs, conf, "'port={{", "'{{ salt['cmd.run']('x') }} port={{");
    check(&fs, true, "a value and a render hint");
    edit(&mut fs, conf, "'{{ salt['cmd.run']('x') }} port={{", "'{{ salt['cmd.run']('y') }} port={{");
    check(&fs, true, "a value and its hint again");
    edit(&mut fs, conf, "{% endfor %}", "");
    edit(&mut fs, conf, "{%- endfor %}", "{%- endfor");
    check(&fs, false, "a render error");
    edit(&mut fs, conf, "'{{ mapdata.mode }}'", "'{{ (mapdata.mode }}'");
    check(&fs, true, "another render error in the same file");
    edit(&mut fs, conf, "'{{ (mapdata.mode }}'", "'{{ mapdata.mode }}'");
    check(&fs, true, "the first error again");
    edit(&mut fs, conf, "{%- endfor", "{%- endfor %}");
    check(&fs, false, "renders again");
    edit(&mut fs, "/ws/base/top.sls", "plain]", "plain ]");
    check(&fs, false, "the top file");
    edit(&mut fs, "/ws/base/f/init.sls", "{version: latest}", "{version: '1.0'}");
    check(&fs, true, "a value in the included file");
    edit(&mut fs, "/ws/base/plain.sls", "test.nop: [", "test.nop: [{use: [{pkg: ß-pkg}]}, ");
    check(&fs, false, "a state that copies arguments");
    edit(&mut fs, "/ws/base/f/init.sls", "{version: '1.0'}", "{version: '2.0'}");
    check(&fs, false, "while one does, values are compiled");
}

#[test]
fn a_pillar_changed_in_place_reaches_the_files_rendered_after_and_edits_recompile() {
    // Salt 3008.4 (tests/conformance/cases/r1-pillar-changed-in-place): `__pillar__` is one
    // dict for the run, and the templates' `pillar` variable another, one for the run too.
    let mut fs = MemFs::from_fixture(
        "\
#- salt-analyzer.yaml
file_roots: {base: [base]}
pillar_roots: {base: [pillar]}
minions: {m1: {grains: {os_family: Debian}}}
#- base/top.sls
base:
  '*': [a, b]
#- base/a.sls
{%- do salt['pillar.get']('vpn').update({'port': 443}) %}
{%- do pillar.vpn.update({'proto': 'tcp'}) %}
a: {test.nop: [{port: '{{ pillar.vpn.port }}'}, {got: '{{ salt['pillar.get']('vpn:port') }}'}]}
#- base/b.sls
b: {test.nop: [{port: '{{ salt['pillar.get']('vpn:port') }}'}, {own: '{{ pillar.vpn.port }}'}, {proto: '{{ pillar.vpn.proto }}'}, {fn_proto: '{{ salt['pillar.get']('vpn:proto', 'none') }}'}, {ß: 1}]}
#- pillar/top.sls
base: {'*': [p]}
#- pillar/p.sls
vpn: {port: 1194}
",
    );
    let (ws, roots) = setup(&fs);
    let memo = Memo::keeping_renders();
    let mut cache = MinionCache::default();
    let req = Request::new(Some("m1"), Scope::Highstate);
    let mut check = |fs: &MemFs| {
        let compiles = cache.compiles;
        let c = cache.get(&(Arc::new(fs.clone()) as Arc<dyn Vfs>), &ws, &roots, &req, &memo);
        assert_eq!(cache.compiles - compiles, 1, "a carried highstate is compiled, never patched");
        let fresh = compile(Arc::new(fs.clone()), &ws, &roots, &req);
        assert_eq!(answer(&c), answer(&fresh));
        let chunks: serde_json::Value = serde_json::from_str(&c.low.as_ref().expect("a highstate").chunks_json().to_string()).expect("json");
        let args = |ch: &serde_json::Value| {
            let d = ch.as_object().expect("a chunk");
            let own = d.iter().filter(|(k, _)| !k.starts_with("__") && !["state", "fun", "name", "order"].contains(&k.as_str()));
            own.map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join(" ")
        };
        chunks.as_array().expect("chunks").iter().map(|ch| format!("{}: {}", ch["__id__"].as_str().unwrap_or("?"), args(ch))).collect::<Vec<_>>().join("\n")
    };
    expect_test::expect![[r#"
        a: port="1194" got="443"
        b: port="443" own="1194" proto="tcp" fn_proto="none" ß=1"#]]
    .assert_eq(&check(&fs));
    let edit = |fs: &mut MemFs, path: &str, from: &str, to: &str| {
        let text = fs.files[Path::new(path)].replace(from, to);
        fs.files.insert(path.into(), text);
    };
    // A value in the later file: compiled again, not patched (its render depends on a's).
    edit(&mut fs, "/ws/base/b.sls", "ß: 1", "ß: 2");
    expect_test::expect![[r#"
        a: port="1194" got="443"
        b: port="443" own="1194" proto="tcp" fn_proto="none" ß=2"#]]
    .assert_eq(&check(&fs));
    // The change itself: the kept render of b is not the answer any more.
    edit(&mut fs, "/ws/base/a.sls", "'port': 443", "'port': 8443");
    expect_test::expect![[r#"
        a: port="1194" got="8443"
        b: port="8443" own="1194" proto="tcp" fn_proto="none" ß=2"#]]
    .assert_eq(&check(&fs));
}

/// A generated tree of templated SLS files whose states take their names and values from
/// a Jinja dict (and a shared import), so that most edits of a value change only argument
/// values or names: some may be patched, some not; every result must be a compile's.
fn generated_tree(seed: u64) -> (MemFs, Vec<(String, String)>) {
    let mut rng = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407) | 1;
    let mut next = move |n: usize| {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        (rng % n as u64) as usize
    };
    let pool = ["/x", "/y", "a0", "b1", "p", "q", "s-1", "c2"];
    let funs = ["test.nop", "file.managed", "pkg.installed", "cmd.run", "user.present"];
    let mut fs =
        String::from("#- salt-analyzer.yaml\nfile_roots: {base: [base]}\nminions:\n  m: {grains: {os: x}}\n#- base/top.sls\nbase:\n  '*': [a, b, c]\n");
    fs.push_str(&format!("#- base/lib.jinja\n{{%- set shared = {{'n': '{}', 'c': '{}'}} %}}\n", pool[next(8)], pool[next(8)]));
    let mut values = Vec::new();
    // `c` is plain YAML in half the trees: its values are written in it, located in its
    // text, and an edit moves what follows.
    let plain_c = next(2) == 0;
    for f in ["a", "b", "c"] {
        let plain = plain_c && f == "c";
        let path = format!("/ws/base/{f}.sls");
        let states = 1 + next(4);
        let mut vars = Vec::new();
        let mut body = String::new();
        for k in 0..states {
            let id = format!("{f}{k}");
            vars.push(format!("'n{k}': '{}', 'c{k}': '{}'", pool[next(8)], pool[next(8)]));
            body.push_str(&format!("{id}:\n  {}:\n", funs[next(funs.len())]));
            if plain {
                let name = match next(3) {
                    0 => format!("    # n{k}\n    - names: ['{}', '{}']\n", pool[next(8)], pool[next(8)]),
                    _ => format!("    # n{k}\n    - name: '{}'\n", pool[next(8)]),
                };
                values.push((path.clone(), name[..name.rfind('\'').and_then(|e| name[..e].rfind('\'')).map_or(0, |q| q + 1)].to_string()));
                body.push_str(&name);
                let contents = format!("    # c{k}\n    - contents: '{}'\n", pool[next(8)]);
                values.push((path.clone(), format!("# c{k}\n    - contents: '")));
                body.push_str(&contents);
            } else {
                values.push((path.clone(), format!("'n{k}': '")));
                values.push((path.clone(), format!("'c{k}': '")));
                body.push_str(&match next(4) {
                    0 => "    - name: {{ shared.n }}\n".to_string(),
                    1 => format!("    - names: ['{{{{ v.n{k} }}}}', '{}']\n", pool[next(8)]),
                    _ => format!("    - name: '{{{{ v.n{k} }}}}'\n"),
                });
                body.push_str(&format!("    - contents: '{{{{ v.c{k} }}}} {{{{ shared.c }}}}'\n"));
            }
            if next(3) == 0 {
                body.push_str(&format!("    - order: {}\n", next(3)));
            }
            for req in ["require", "watch", "require_in", "onchanges"] {
                if next(4) == 0 {
                    let kind = ["file", "id", "id", "id", "test"][next(5)];
                    let target = if next(3) != 0 { format!("{}{}", ["a", "b", "c"][next(3)], next(2)) } else { pool[next(8)].to_string() };
                    body.push_str(&format!("    - {req}:\n      - {kind}: '{target}'\n"));
                }
            }
            if next(30) == 0 {
                body.push_str(&format!("    - use:\n      - id: {}0\n", ["a", "b", "c"][next(3)]));
            }
        }
        if next(15) == 0 {
            body.push_str("extend:\n  a0:\n    test.nop:\n      - contents: extended\n");
        }
        if plain {
            fs.push_str(&format!("#- base/{f}.sls\n{body}"));
        } else {
            fs.push_str(&format!("#- base/{f}.sls\n{{%- from 'lib.jinja' import shared %}}\n{{%- set v = {{{}}} %}}\n{body}", vars.join(", ")));
        }
    }
    values.push(("/ws/base/lib.jinja".into(), "'n': '".into()));
    values.push(("/ws/base/lib.jinja".into(), "'c': '".into()));
    (MemFs::from_fixture(&fs), values)
}

#[test]
fn patched_compiles_match_fresh_ones_on_generated_trees() {
    // More with SALT_PATCH_SEEDS (3,000 were run once, in release).
    let seeds: u64 = std::env::var("SALT_PATCH_SEEDS").ok().and_then(|s| s.parse().ok()).unwrap_or(60);
    let (mut patched, mut edits) = (0, 0);
    // The last value breaks the template for good: later edits of that file find it broken.
    let pool = ["/x", "/y", "a0", "b1", "p", "q", "s-1", "c2", "zz", "a1", "b' ~ ("];
    for seed in 0..seeds {
        let (mut fs, values) = generated_tree(seed);
        let (ws, roots) = setup(&fs);
        let memo = Memo::keeping_renders();
        let mut cache = MinionCache::default();
        let req = Request::new(Some("m"), Scope::Highstate);
        cache.get(&(Arc::new(fs.clone()) as Arc<dyn Vfs>), &ws, &roots, &req, &memo);
        for e in 0..12u64 {
            let (path, key) = &values[((seed * 31 + e * 7) as usize) % values.len()];
            let text = fs.files[Path::new(path)].clone();
            let Some(at) = text.find(key.as_str()) else { continue };
            let start = at + key.len();
            let end = start + text[start..].find('\'').expect("a quoted value");
            let value = pool[((seed + e * 3) as usize) % pool.len()];
            fs.files.insert(path.into(), format!("{}{value}{}", &text[..start], &text[end..]));
            let before = cache.patches;
            let c = cache.get(&(Arc::new(fs.clone()) as Arc<dyn Vfs>), &ws, &roots, &req, &memo);
            let fresh = compile(Arc::new(fs.clone()), &ws, &roots, &req);
            assert_eq!(answer(&c), answer(&fresh), "seed {seed} edit {e}: {path} {key} = {value}\n{}", fs.files[Path::new(path)]);
            edits += 1;
            patched += cache.patches - before;
        }
    }
    // Most edits change a value or a name no requisite names: many are patched.
    assert!(patched * 4 > edits, "{patched} of {edits} edits patched");
    eprintln!("{patched} of {edits} edits patched");
}

#[test]
fn an_edit_in_a_plain_file_moves_what_follows_it() {
    let mut fs = MemFs::from_fixture(
        "\
#- salt-analyzer.yaml
file_roots: {base: [base]}
minions:
  m: {grains: {os: ß}}
#- base/top.sls
base:
  '*': [plain, other]
#- base/plain.sls
ß-conf:
  file.managed:
    - name: /etc/ß.conf
    - contents: ℝ
    - require:
      - user: 💣
💣:
  user.present:
    - home: /home/💣
    - bogus: 1
#- base/other.sls
other:
  test.nop:
    - require_in:
      - user: 💣
",
    );
    let (ws, roots) = setup(&fs);
    let memo = Memo::keeping_renders();
    let mut cache = MinionCache::default();
    let req = Request::new(Some("m"), Scope::Highstate);
    let mut check = |fs: &MemFs, patched: bool, why: &str| {
        let (before, compiles) = (cache.patches, cache.compiles);
        let c = cache.get(&(Arc::new(fs.clone()) as Arc<dyn Vfs>), &ws, &roots, &req, &memo);
        assert_eq!((cache.patches - before, cache.compiles - compiles), if patched { (1, 0) } else { (0, 1) }, "{why}");
        assert_eq!(answer(&c), answer(&compile(Arc::new(fs.clone()), &ws, &roots, &req)), "{why}");
        c
    };
    let first = check(&fs, false, "the first compile");
    assert!(first.low.as_ref().is_some_and(|l| l.calls.iter().any(|e| e.message.contains("bogus"))), "the unknown argument is found");
    let path = "/ws/base/plain.sls";
    let edit = |fs: &mut MemFs, from: &str, to: &str| {
        let text = fs.files[Path::new(path)].replace(from, to);
        fs.files.insert(path.into(), text);
    };
    // Longer, shorter, a name: what follows (the requisite, the other state, the unknown
    // argument's place) moves.
    edit(&mut fs, "contents: ℝ", "contents: ℝℝℝ");
    check(&fs, true, "a longer value");
    edit(&mut fs, "/home/💣", "/h");
    check(&fs, true, "a shorter value after the requisite");
    edit(&mut fs, "/etc/ß.conf", "/etc/ß-2.conf");
    check(&fs, true, "a name");
    edit(&mut fs, "user: 💣", "user:  💣");
    check(&fs, false, "a requisite, even one that reads the same");
    edit(&mut fs, "contents: ℝℝℝ", "contents: 💣");
    check(&fs, false, "a value a requisite names");
}

#[test]
fn a_compile_that_parses_ahead_gives_what_one_that_does_not_gives() {
    // `compile` parses plain files ahead on every core; a compile that keeps renders does
    // not (its memo does better).
    let fs = MemFs::from_fixture(
        "\
#- salt-analyzer.yaml
file_roots: {base: [base], dev: [dev]}
minions:
  m: {grains: {os: ß}}
#- base/top.sls
base:
  '*': ['app*', broken, tpl, ℝ]
#- base/app/init.sls
include: [.web, {dev: tools}, 'lib.*']
app: {test.nop: [{name: '💣'}]}
#- base/app/web.sls
include: [..lib.one]
web: {test.nop: [{require: [{test: one}]}]}
#- base/lib/one.sls
one: {test.nop: []}
#- base/lib/two.sls
two: {test.nop: []}
app: {test.nop: []}
#- base/broken.sls
x: [unclosed
#- base/tpl.sls
include: [lib.one]
tpl: {test.nop: [{name: '{{ grains.os }}'}]}
#- base/ℝ.sls
#!json
{\"ℝ\": {\"test.nop\": []}}
#- dev/tools.sls
tools: {test.nop: []}
",
    );
    let (ws, roots) = setup(&fs);
    let req = Request::new(Some("m"), Scope::Highstate);
    let ahead = compile(Arc::new(fs.clone()), &ws, &roots, &req);
    let walked = compile_with(Arc::new(fs.clone()), &ws, &roots, &req, &Memo::keeping_renders());
    assert_eq!(answer(&ahead), answer(&walked));
    let low = ahead.low.as_ref().expect("a highstate");
    assert!(low.show_errors.iter().any(|e| e.message.contains("broken")), "{:?}", low.show_errors);
    for id in ["app", "web", "one", "two", "tools", "tpl", "ℝ"] {
        assert!(low.highstate.high.contains(id), "{id}");
    }
}

#[test]
fn the_cache_recompiles_only_when_something_read_changed() {
    let mut fs = MemFs::from_fixture(TREE);
    let (ws, roots) = setup(&fs);
    let mut cache = MinionCache::default();
    let req = Request::new(Some("web01"), Scope::Highstate);
    let get = |cache: &mut MinionCache, fs: &MemFs, roots: &Arc<FileRoots>| {
        let fs: Arc<dyn Vfs> = Arc::new(fs.clone());
        cache.get(&fs, &ws, roots, &req, &Memo::default())
    };
    get(&mut cache, &fs, &roots);
    assert_eq!(cache.compiles, 1);
    // Files web01's highstate never read: cached.
    fs.files.insert("/ws/base/db.sls".into(), "postgres: {pkg.removed: []}\n".into());
    fs.files.insert("/ws/base/unrelated.sls".into(), "y: test.nop\n".into());
    get(&mut cache, &fs, &roots);
    assert_eq!(cache.compiles, 1);
    // A created file no include or top entry can resolve to: cached.
    fs.files.insert("/ws/base/new/ß💣.sls".into(), "z: test.nop\n".into());
    let roots = Arc::new(FileRoots::scan(&fs, &ws.opts.file_roots));
    get(&mut cache, &fs, &roots);
    assert_eq!(cache.compiles, 1);
    // The imported library changed: recompiled, with the new value.
    fs.files.insert("/ws/base/lib.jinja".into(), "{% set port = 8080 %}\n".into());
    let c = get(&mut cache, &fs, &roots);
    assert_eq!(cache.compiles, 2);
    assert!(c.low.as_ref().and_then(|l| l.chunks.as_ref()).is_some_and(|ch| ch.iter().any(|c| format!("{:?}", c.d).contains("8080"))));
    // A file that shadows a resolved SLS (`web.sls` by nothing, `web/init.sls` loses to
    // `web.sls`): a created `web/init.sls` changes nothing, a deleted `web.sls` does.
    fs.files.insert("/ws/base/web/init.sls".into(), "other: test.nop\n".into());
    let roots = Arc::new(FileRoots::scan(&fs, &ws.opts.file_roots));
    get(&mut cache, &fs, &roots);
    assert_eq!(cache.compiles, 2);
    fs.files.remove(Path::new("/ws/base/web.sls"));
    let roots = Arc::new(FileRoots::scan(&fs, &ws.opts.file_roots));
    let c = get(&mut cache, &fs, &roots);
    assert_eq!(cache.compiles, 3);
    assert_eq!(ids(&c), ["other"]);
    // Another minion is another result.
    get(&mut cache, &fs, &roots);
    let fs2: Arc<dyn Vfs> = Arc::new(fs.clone());
    cache.get(&fs2, &ws, &roots, &Request::new(Some("db01"), Scope::Highstate), &Memo::default());
    assert_eq!(cache.compiles, 4);
}

#[test]
fn the_pillar_comes_from_pillar_roots_and_its_files_are_reads() {
    let tree = "#- salt-analyzer.yaml\nfile_roots: {base: [base]}\npillar_roots: {base: [pillar]}\nminions: {web01: {grains: {role: web}}}\n\
                    #- base/top.sls\nbase: {'*': [web]}\n#- base/web.sls\nsite: {test.nop: [{name: p{{ pillar['port'] }}}]}\n\
                    #- pillar/top.sls\nbase: {'G@role:web': [app]}\n#- pillar/app.sls\nport: 80\n#- pillar/other.sls\nport: 1\n";
    let mut fs = MemFs::from_fixture(tree);
    let (ws, roots) = setup(&fs);
    let mut cache = MinionCache::default();
    let req = Request::new(Some("web01"), Scope::Highstate);
    let arc = |fs: &MemFs| -> Arc<dyn Vfs> { Arc::new(fs.clone()) };
    let name = |c: &Compiled| c.low.as_ref().and_then(|l| l.chunks.as_ref()).map(|ch| ch[0].get_str("name").to_string());
    assert_eq!(name(&cache.get(&arc(&fs), &ws, &roots, &req, &Memo::default())).as_deref(), Some("p80"));
    // A pillar file the top never assigns: cached.
    fs.files.insert("/ws/pillar/other.sls".into(), "port: 2\n".into());
    cache.get(&arc(&fs), &ws, &roots, &req, &Memo::default());
    assert_eq!(cache.compiles, 1);
    // The assigned one changed: recompiled, and the state sees the new value.
    fs.files.insert("/ws/pillar/app.sls".into(), "port: 8080\n".into());
    assert_eq!(name(&cache.get(&arc(&fs), &ws, &roots, &req, &Memo::default())).as_deref(), Some("p8080"));
    assert_eq!(cache.compiles, 2);
    // A created pillar file counts (the pillar roots' listing is a read).
    fs.files.insert("/ws/pillar/new.sls".into(), "x: 1\n".into());
    cache.get(&arc(&fs), &ws, &roots, &req, &Memo::default());
    assert_eq!(cache.compiles, 3);
}

#[test]
fn a_rendered_pillar_s_dicts_are_ordered_dicts_and_the_yaml_filter_keeps_their_order() {
    // Salt 3008.4 (`salt-call --local state.show_low_sls t`, this pillar from pillar_roots):
    // Salt's YAML renderer builds the pillar's dicts as OrderedDicts, which the `yaml` filter
    // writes in their order; a plain dict (a template's own, the top of a merge into one) has its
    // keys sorted; `str()` prints both as dicts.
    let tree = r#"#- salt-analyzer.yaml
file_roots: {base: [base]}
pillar_roots: {base: [pillar]}
minions: {web01: {grains: {os_family: Debian}}}
#- base/top.sls
base: {'*': [t]}
#- base/t.sls
{%- set m = salt['pillar.get']('x', {'mm': {'z': 1, 'a': 2}, 'aa': {'k': 1}}, merge=True) %}
t:
  test.nop:
    - a: "{{ pillar.x }}"
    - b: {{ pillar.x | yaml }}
    - c: {{ m | yaml }}
    - d: "{{ m }}"
    - e: {{ salt['defaults.merge']({'y': 1, 'b': 2}, pillar.x) | yaml }}
    - f: {{ salt['slsutil.merge']({'y': 1, 'b': 2}, pillar.x) | yaml }}
    - g: {{ salt['config.get']('x') | yaml }}
#- pillar/top.sls
base: {'*': [p]}
#- pillar/p.sls
x:
  zz: 1
  aa: {q: 1, b: 2}
"#;
    let fs = MemFs::from_fixture(tree);
    let (ws, roots) = setup(&fs);
    let c = compile(Arc::new(fs.clone()), &ws, &roots, &Request::new(Some("web01"), Scope::Highstate));
    let chunk = &c.low.as_ref().and_then(|l| l.chunks.as_ref()).expect("chunks")[0];
    let got: Vec<String> =
        "abcdefg".chars().map(|k| format!("{k} {}", chunk.d.get(&k.to_string()).map(|v| v.to_json().to_string()).unwrap_or_default())).collect();
    expect_test::expect![[r#"
        a "{'zz': 1, 'aa': {'q': 1, 'b': 2}}"
        b {"zz":1,"aa":{"q":1,"b":2}}
        c {"aa":{"b":2,"k":1,"q":1},"mm":{"a":2,"z":1},"zz":1}
        d "{'mm': {'z': 1, 'a': 2}, 'aa': {'k': 1, 'q': 1, 'b': 2}, 'zz': 1}"
        e {"aa":{"q":1,"b":2},"b":2,"y":1,"zz":1}
        f {"aa":{"q":1,"b":2},"b":2,"y":1,"zz":1}
        g {"zz":1,"aa":{"q":1,"b":2}}"#]]
    .assert_eq(&got.join("\n"));
}

#[test]
fn cp_list_states_lists_the_environment_s_sls_names_and_a_new_file_changes_it() {
    // Salt 3008.4, `state.show_low_sls a` of this tree: states ["a", "b", "c.d", "top"], dev [].
    // php-formula's php.modules includes `php.<module>` when `cp.list_states()` lists it.
    let tree = "#- salt-analyzer.yaml\nfile_roots: {base: [srv]}\nminions: {m: {grains: {}}}\n\
                #- srv/top.sls\nbase: {'*': [a]}\n\
                #- srv/a.sls\nx: {test.nop: [{states: {{ salt['cp.list_states']() | json }}}, {dev: {{ salt['cp.list_states']('dev') | json }}}]}\n\
                #- srv/b/init.sls\ny: {test.nop: []}\n#- srv/c/d.sls\nz: {test.nop: []}\n";
    let mut fs = MemFs::from_fixture(tree);
    let (ws, roots) = setup(&fs);
    let shown = |c: &Compiled| {
        let ch = &c.low.as_ref().and_then(|l| l.chunks.as_ref()).expect("chunks")[0];
        format!(
            "{} {}",
            ch.d.get("states").map(|v| v.to_json().to_string()).unwrap_or_default(),
            ch.d.get("dev").map(|v| v.to_json().to_string()).unwrap_or_default()
        )
    };
    let req = Request::new(Some("m"), Scope::Highstate);
    let mut cache = MinionCache::default();
    let arc = |fs: &MemFs| -> Arc<dyn Vfs> { Arc::new(fs.clone()) };
    assert_eq!(shown(&cache.get(&arc(&fs), &ws, &roots, &req, &Memo::default())), r#"["a","b","c.d","top"] []"#);
    // A new SLS file is in the answer: the listing is a read of the compile.
    fs.files.insert("/ws/srv/e.sls".into(), "w: {test.nop: []}\n".into());
    let roots = Arc::new(crate::workspace::roots::FileRoots::scan(&fs, &ws.opts.file_roots));
    assert_eq!(shown(&cache.get(&arc(&fs), &ws, &roots, &req, &Memo::default())), r#"["a","b","c.d","e","top"] []"#);
}

#[test]
fn a_profile_that_cannot_be_read_is_an_answer_that_depends_on_its_file() {
    let mut fs = MemFs::from_fixture("#- salt-analyzer.yaml\nminions: {web01: {grains_file: g.json}}\n#- top.sls\nbase: {'*': [a]}\n");
    let (ws, roots) = setup(&fs);
    let mut cache = MinionCache::default();
    let req = Request::new(Some("web01"), Scope::Top);
    let arc = |fs: &MemFs| -> Arc<dyn Vfs> { Arc::new(fs.clone()) };
    assert!(cache.get(&arc(&fs), &ws, &roots, &req, &Memo::default()).minion.is_err());
    fs.files.insert("/ws/g.json".into(), "{\"os\": \"Debian\"}".into());
    let c = cache.get(&arc(&fs), &ws, &roots, &req, &Memo::default());
    assert_eq!(c.minion.as_ref().map(|m| m.grains["os"].clone()).ok(), Some("Debian".into()));
    assert_eq!(cache.compiles, 2);
}

#[test]
fn mapdata_layers_values_and_who_set_them() {
    // Salt 3008.4 + saltext-formula 0.3.0, `salt["map.data"]("tpl")` for this minion:
    // {"pkg": "nginx", "l": [1, 2], "conf": {"a": 1, "b": 2}, "map_jinja": {...}}.
    let tree = "\
#- salt-analyzer.yaml
file_roots: {base: [srv]}
minions:
  web01: {grains: {os_family: Debian, os: Debian, roles: [web]}}
#- srv/tpl/parameters/defaults.yaml
values:
  pkg: apache2
  l: [1]
  conf: {a: 1}
#- srv/tpl/parameters/os_family/Debian.yaml
merge_lists: true
values:
  pkg: nginx
  l: [2]
#- srv/parameters/map_jinja.yaml
merge_lists: true
values:
  sources: [Y!G@roles]
#- srv/tpl/parameters/roles/web.yaml.jinja
values: {conf: {b: {{ 1 + 1 }}}}
";
    let fs = MemFs::from_fixture(tree);
    let (ws, roots) = setup(&fs);
    let req = Request::new(Some("web01"), Scope::MapData { tpldir: "tpl".into() });
    let c = compile(Arc::new(fs.clone()), &ws, &roots, &req);
    let data = c.mapdata.as_ref().expect("mapdata");
    let values = data.values.as_ref().expect("values");
    expect_test::expect![[r#"{"pkg":"nginx","l":[1,2],"conf":{"a":1,"b":2},"map_jinja":{"sources":["Y!P@defaults.yaml","Y!G@osarch","Y!G@os_family","Y!G@os","Y!G@osfinger","C@tpl","Y!G@id","Y!G@roles"],"parameter_dirs":["tpl/parameters"],"config_get_strategy":null,"default_merge_strategy":null,"default_merge_lists":false,"post_map":"post-map.jinja","post_map_template":"jinja","cache":true}}"#]]
            .assert_eq(&values.to_string());
    let origins = data.origins.as_ref().expect("origins");
    let who = |path: &[&str]| {
        let o = &origins.at_path(path).expect("origin").origin;
        let layer = &data.layers[o.layer];
        let line = o.at.as_ref().map(|at| c.files.human(at.file, at.span.start).0);
        format!(
            "{} {} line {:?} over {:?}",
            layer.source,
            layer.path.as_deref().unwrap_or("-"),
            line,
            o.overrode.iter().map(|i| data.layers[*i].path.clone().unwrap_or_default()).collect::<Vec<_>>()
        )
    };
    expect_test::expect![[r#"
            Y!G@os_family tpl/parameters/os_family/Debian.yaml line Some(3) over ["tpl/parameters/defaults.yaml"]
            Y!G@os_family tpl/parameters/os_family/Debian.yaml line Some(4) over ["tpl/parameters/defaults.yaml"]
            Y!P@defaults.yaml tpl/parameters/defaults.yaml line Some(4) over []
            Y!G@roles tpl/parameters/roles/web.yaml.jinja line None over []
            map_jinja.yaml parameters/map_jinja.yaml line Some(3) over [""]"#]]
    .assert_eq(&[who(&["pkg"]), who(&["l"]), who(&["conf", "a"]), who(&["conf", "b"]), who(&["map_jinja", "sources"])].join("\n"));
    // The layer files are among the reads: changing one invalidates the cached result.
    let read: Vec<PathBuf> = c.reads.paths().map(Path::to_path_buf).collect();
    assert!(read.contains(&PathBuf::from("/ws/srv/tpl/parameters/os_family/Debian.yaml")), "{read:?}");
    let mut cache = MinionCache::default();
    let arc = |fs: &MemFs| -> Arc<dyn Vfs> { Arc::new(fs.clone()) };
    cache.get(&arc(&fs), &ws, &roots, &req, &Memo::default());
    let mut fs2 = fs.clone();
    fs2.files.insert("/ws/srv/tpl/parameters/defaults.yaml".into(), "values: {pkg: x, other: 1}\n".into());
    let c2 = cache.get(&arc(&fs2), &ws, &roots, &req, &Memo::default());
    assert_eq!(cache.compiles, 2);
    assert_eq!(c2.mapdata.as_ref().and_then(|d| d.values.as_ref().ok()).map(|v| v["other"].clone()), Some(serde_json::json!(1)));
}

#[test]
fn mapdata_of_a_template_formula_follows_libmapstack() {
    // Salt 3008.4 rendering `{% from tplroot ~ "/map.jinja" import mapdata with context %}`
    // (tests/conformance/mapstack/jinja's libraries, which the stubs stand for) gave:
    // {"a":2,"dns":"literal","l":[2,3],"pkg":{"name":"custom"},"tpl":{"pkg":{"name":"custom"}},
    //  "web":true,"z":1,"map_jinja":{"sources":[...]}}. `merge_lists: 'false'` is false
    // (to_bool), `tpl:merge_lists` the default, an empty file skipped, extra keys ignored,
    // the `!` delimiter ignored for grains (a literal file instead), keys sorted.
    let tree = "\
#- salt-analyzer.yaml
file_roots: {base: [srv]}
minions:
  web01:
    grains: {os_family: Debian, os: Debian, roles: [web], dns: {domain: x.net}}
    pillar: {tpl: {lookup: {pkg: {name: custom}}, merge_lists: true, strategy: recurse}}
#- srv/tpl/map.jinja
{#- imports mapstack from libmapstack.jinja #}
#- srv/tpl/libmapstack.jinja
{#- the macro #}
#- srv/tpl/parameters/defaults.yaml
values:
  pkg: {name: tpl}
  l: [1]
  z: 1
  a: 2
#- srv/tpl/parameters/os_family/Debian.yaml
merge_lists: 'false'
values:
  l: [2]
#- srv/tpl/parameters/os/Debian.yaml
#- srv/parameters/map_jinja.yaml
values:
  sources: [Y:G@os_family, Y:G@os, C@tpl:lookup, C:SUB@tpl:lookup, Y:G@roles, Y:G:!@dns!domain]
#- srv/tpl/parameters/roles/web.yaml
ignored: 1
values: {web: true, l: [3]}
#- srv/tpl/parameters/dns!domain.yaml
values: {dns: literal}
";
    let fs = MemFs::from_fixture(tree);
    let (ws, roots) = setup(&fs);
    let c = compile(Arc::new(fs.clone()), &ws, &roots, &Request::new(Some("web01"), Scope::MapData { tpldir: "tpl".into() }));
    let data = c.mapdata.as_ref().expect("mapdata");
    assert_eq!(data.implementation, crate::mapstack::Implementation::Jinja);
    expect_test::expect![[r#"{"a":2,"dns":"literal","l":[2,3],"pkg":{"name":"custom"},"tpl":{"pkg":{"name":"custom"}},"web":true,"z":1,"map_jinja":{"sources":["Y:G@os_family","Y:G@os","C@tpl:lookup","C:SUB@tpl:lookup","Y:G@roles","Y:G:!@dns!domain"]}}"#]]
            .assert_eq(&data.values.as_ref().expect("values").to_string());
    let layers: Vec<String> = data.layers.iter().map(|l| format!("{} {} {}", l.source, l.path.as_deref().unwrap_or("-"), l.status.as_str())).collect();
    assert!(layers.contains(&"Y:G@os tpl/parameters/os/Debian.yaml empty".to_string()), "{layers:?}");
    // A map.jinja that calls map.data is saltext-formula's, libmapstack.jinja or not.
    let mut fs2 = fs.clone();
    fs2.files.insert("/ws/srv/tpl/map.jinja".into(), "{%- set mapdata = salt['map.data'](tpldir) %}\n".into());
    let c2 = compile(Arc::new(fs2), &ws, &roots, &Request::new(Some("web01"), Scope::MapData { tpldir: "tpl".into() }));
    assert_eq!(c2.mapdata.as_ref().map(|d| d.implementation), Some(crate::mapstack::Implementation::Saltext));
}

/// A `map.jinja` built the older way: what the formula's `_mapdata` state dumps (Salt 3008,
/// `state.show_sls ngx._mapdata` on this tree for `web01`: the `context.map` below), what
/// `map.jinja` exports when there is no such state, and "no map to show" without a map.
#[test]
fn mapdata_of_an_older_map_jinja() {
    let tree = r#"
#- salt-analyzer.yaml
file_roots: {base: [srv]}
minions:
  web01:
    grains: {os_family: Debian, os: Debian}
    pillar: {ngx: {lookup: {service: custom}, extra: [1]}}
#- srv/ngx/defaults.yaml
ngx:
  port: 80
  lookup: {package: nginx}
#- srv/ngx/osfamilymap.yaml
Debian:
  lookup: {service: nginx, user: www-data}
RedHat:
  lookup: {service: nginx, user: nginx}
#- srv/ngx/map.jinja
{% import_yaml "ngx/defaults.yaml" as defaults %}
{% import_yaml "ngx/osfamilymap.yaml" as osfamilymap %}
{% set osfamily = salt['grains.filter_by'](osfamilymap, grain='os_family') or {} %}
{% do defaults.ngx.update(salt['defaults.merge'](defaults.ngx, osfamily, in_place=False)) %}
{% set ngx = salt['pillar.get']('ngx', default=defaults.ngx, merge=True) %}
#- srv/ngx/_mapdata/init.sls
{%- set tplroot = tpldir.split("/")[0] %}
{%- from tplroot ~ "/map.jinja" import ngx with context %}
{%- set _mapdata = {"values": ngx} %}
{{ tplroot }}-mapdata-dump:
  file.managed:
    - name: /tmp/salt_mapdata_dump.yaml
    - source: salt://{{ tplroot }}/_mapdata/_mapdata.jinja
    - template: jinja
    - context:
        map: {{ _mapdata | yaml }}
#- srv/other/init.sls
x: test.nop
"#;
    let fs = MemFs::from_fixture(tree);
    let mapdata = |fs: &MemFs, tpldir: &str| {
        let (ws, roots) = setup(fs);
        let c = compile(Arc::new(fs.clone()), &ws, &roots, &Request::new(Some("web01"), Scope::MapData { tpldir: tpldir.into() }));
        let d = c.mapdata.expect("mapdata");
        let layers: Vec<String> = d.layers.iter().map(|l| format!("{} {}", l.source, l.path.as_deref().unwrap_or("-"))).collect();
        let values = match &d.values {
            Ok(v) => v.to_string(),
            Err(e) => format!("error: {}", e.message),
        };
        format!("{} {layers:?} {values}", d.implementation.as_str())
    };
    expect_test::expect![[r#"map.jinja ["_mapdata ngx/_mapdata/init.sls", "map.jinja ngx/map.jinja", "import_yaml ngx/osfamilymap.yaml", "import_yaml ngx/defaults.yaml", "pillar pillar:ngx"] {"extra":[1],"lookup":{"package":"nginx","service":"custom","user":"www-data"},"port":80}"#]]
    .assert_eq(&mapdata(&fs, "ngx"));
    let mut no_state = fs.clone();
    no_state.files.remove(std::path::Path::new("/ws/srv/ngx/_mapdata/init.sls"));
    expect_test::expect![[r#"map.jinja ["map.jinja ngx/map.jinja", "import_yaml ngx/osfamilymap.yaml", "import_yaml ngx/defaults.yaml", "pillar pillar:ngx"] {"extra":[1],"lookup":{"package":"nginx","service":"custom","user":"www-data"},"port":80}"#]]
    .assert_eq(&mapdata(&no_state, "ngx"));
    expect_test::expect![[r#"none [] error: no map to show: `other` has no `map.jinja`, no `_mapdata` state and no `parameters/`"#]]
        .assert_eq(&mapdata(&fs, "other"));
}

#[test]
fn map_data_in_a_template_reads_its_layers_through_the_compile() {
    let tree = "\
#- salt-analyzer.yaml
file_roots: {base: [srv]}
minions:
  web01: {grains: {os_family: Debian}}
#- srv/tpl/parameters/defaults.yaml
values: {port: 80}
#- srv/tpl/parameters/os_family/Debian.yaml
values: {port: 8080}
#- srv/tpl/init.sls
{%- set m = salt['map.data'](tpldir) %}
port: {{ m.port }}
again: {{ salt['map.data'](tpldir).port }}
";
    let fs = MemFs::from_fixture(tree);
    let (ws, roots) = setup(&fs);
    let req = Request::new(Some("web01"), Scope::Render { path: "/ws/srv/tpl/init.sls".into(), probe: None });
    let c = compile(Arc::new(fs.clone()), &ws, &roots, &req);
    let r = c.rendered.as_ref().expect("rendered");
    assert_eq!(r.data.as_ref().expect("data").to_json(), serde_json::json!({"port": 8080, "again": 8080}));
    assert!(r.hints.is_empty(), "{:?}", r.hints);
    let read: Vec<PathBuf> = c.reads.paths().map(Path::to_path_buf).collect();
    assert!(read.contains(&PathBuf::from("/ws/srv/tpl/parameters/os_family/Debian.yaml")), "{read:?}");
}

#[test]
fn match_filter_by_in_a_template_asks_this_minions_matchers() {
    // Salt 3008.4 printed MATCHED for this template rendered by salt.utils.templates.JINJA
    // with minion_mods over minion_config(None) (file_client local, id m1) and these grains
    // and pillar (see render/salt_fns/tests.rs).
    const TEMPLATE: &str = r#"{%- set J = salt['slsutil.serialize'] -%}
1 {{ salt['match.filter_by']({'m1': 'me', '*': 'all'}) }}
2 {{ salt['match.filter_by']({'web*': 'web', '*': 'all'}) }}
3 {{ salt['match.filter_by']({'G@os:Debian': 'deb', 'G@os:CentOS and m*': 'centos'}) }}
4 {{ salt['match.filter_by']({'os:CentOS': 'grain'}, tgt_type='grain') }}
5 {{ salt['match.filter_by']({'m1': 'me', 'other': 'other'}, minion_id='other') }}
6 {{ salt['match.filter_by']({'x': 1, 'default': 'dflt'}) }} {{ J('json', salt['match.filter_by']({'x': 1})) }}
7 {{ J('json', salt['match.filter_by']({'m1': {'a': 1, 'l': [1]}}, merge={'l': [2]}, merge_lists=True)) }}
8 {{ J('json', salt['match.filter_by']({'m1': None}, merge={'b': 1})) }}
9 {{ salt['match.filter_by']({'m1': 'L'}, tgt_type='list_') }} {{ salt['match.filter_by']({'m.*': 'P'}, 'pcre') }} {{ salt['match.filter_by']({'nginx:port:8080': 'I'}, 'pillar') }}
10 {{ salt['match.filter_by']({'m1': 'x', 'default': 'y'}, tgt_type='glob', default='nope') }} {{ J('json', salt['match.filter_by']({'q': 'x'}, default='nope')) }}
"#;
    const MATCHED: &str = r#"1 me
2 all
3 centos
4 grain
5 other
6 dflt null
7 {"a": 1, "l": [1, 2]}
8 {"b": 1}
9 L P I
10 x null
"#;
    let tree = format!(
        "#- salt-analyzer.yaml\nfile_roots: {{base: [base]}}\nminions:\n  m1: {}\n#- base/t.sls\n{TEMPLATE}",
        r#"{"grains": {"os_family": "RedHat", "os": "CentOS", "osmajorrelease": 7, "osfinger": "CentOS-7", "roles": ["db", "web"], "ip_interfaces": {"eth0": ["10.0.0.5"]}, "num_cpus": 4, "selinux": {"enabled": true}, "id": "m1", "empty": "", "zero": 0, "flag": false, "nested": {"list": [{"name": "a"}, {"name": "b"}]}, "shared": "fromgrains", "gonly": {"g": 1}}, "pillar": {"nginx": {"port": 8080, "lookup": {"pkg": "nginx-custom"}, "listen": [80, 443]}, "users": ["alice", "bob"], "master": {"mkey": "mv", "shared": "frommaster", "mdict": {"m": 1}}, "shared": "frompillar", "pdict": {"p": 1, "both": "pillar"}, "gonly": {"p": 2}, "word": "text", "numkey": {"1": "one"}}}"#
    );
    let fs = MemFs::from_fixture(&tree);
    let (ws, roots) = setup(&fs);
    let c = compile(Arc::new(fs), &ws, &roots, &Request::new(Some("m1"), Scope::Render { path: "/ws/base/t.sls".into(), probe: None }));
    let text = c.rendered.map(|r| r.text);
    assert_eq!(text.as_ref().map(|t| t.as_ref().map(|t| t.as_deref())), Some(Ok(Some(MATCHED))), "{text:?}");
}

/// A fleet in small: minions that differ in their ids and addresses only, or in what the
/// tree reads (the role, the OS), and one state that reads the id itself.
const FLEET: &str = "\
#- salt-analyzer.yaml
file_roots: {base: [base]}
pillar_roots: {base: [pillar]}
minions:
  web01: {grains: {role: web, os_family: Debian, fqdn: web01.example.com, ipv4: [10.0.0.1]}}
  web02: {grains: {role: web, os_family: Debian, fqdn: web02.example.com, ipv4: [10.0.0.2]}}
  web03: {grains: {role: web, os_family: RedHat, fqdn: web03.example.com, ipv4: [10.0.0.3]}}
  db01: {grains: {role: db, os_family: Debian, fqdn: db01.example.com, ipv4: [10.0.1.1]}}
  db02: {grains: {role: db, os_family: Debian, fqdn: db02.example.com, ipv4: [10.0.1.2]}}
  mon01: {grains: {role: mon, os_family: Debian, fqdn: mon01.example.com, ipv4: [10.0.2.1]}}
  mon02: {grains: {role: mon, os_family: Debian, fqdn: mon02.example.com, ipv4: [10.0.2.2]}}
#- pillar/top.sls
base:
  '*': [common]
  'G@role:db': [db]
#- pillar/common.sls
ntp: {server: {{ 'ntp-' ~ grains['os_family']|lower }}}
#- pillar/db.sls
db: {port: 5432}
#- base/top.sls
base:
  '*': [common]
  'web*': [web]
  'G@role:db': [db]
  'mon*':
    - match: glob
    - mon
#- base/common.sls
{% set pkgs = {'Debian': 'chrony', 'RedHat': 'chronyd'} %}
ntp: {pkg.installed: [{name: {{ salt['grains.filter_by'](pkgs, grain='os_family') }}}], file.managed: [{name: /etc/ntp.conf, contents: {{ pillar['ntp']['server'] }}}]}
#- base/web.sls
nginx:
  pkg.installed: []
{% if salt['match.glob']('web0[12]') %}
front: test.nop
{% endif %}
#- base/db.sls
postgres: {service.running: [{port: {{ salt['pillar.get']('db:port') }}}, {name: {{ salt['config.get']('os_family') }}}]}
#- base/mon.sls
agent: {file.managed: [{name: /etc/agent.conf, contents: 'host={{ grains['fqdn'] }}'}]}
";

/// What a minion's compile shows: its top, its chunks, its errors.
fn shown(c: &Compiled) -> String {
    let top = c.top.as_ref().map(|t| t.show_top_json().to_string()).unwrap_or_default();
    let low = c.low.as_ref().map(|l| (l.chunks_json().to_string(), format!("{:?}", l.show_errors)));
    format!("{top} {low:?} {:?}", c.pillar.as_ref().map(|p| p.pillar.to_string()))
}

#[test]
fn minions_that_read_the_same_share_one_compile_and_get_what_their_own_would_give() {
    let mem = MemFs::from_fixture(FLEET);
    let (ws, roots) = setup(&mem);
    let fs: Arc<dyn Vfs> = Arc::new(mem);
    let ids = ["web01", "web02", "web03", "db01", "db02", "mon01", "mon02"];
    let shared = Memo::sharing();
    for id in ids {
        for scope in [Scope::Highstate, Scope::Top] {
            let req = Request::new(Some(id), scope.clone());
            let alone = compile(fs.clone(), &ws, &roots, &req);
            let with = compile_with(fs.clone(), &ws, &roots, &req, &shared);
            assert_eq!(shown(&with), shown(&alone), "{id} {scope:?}");
            assert_eq!(with.minion.as_ref().map(|m| m.id.as_str()).ok(), Some(id));
        }
    }
    // web01 and web02 share (web03 has another OS, and web0[12] is asked by a template);
    // db01 and db02 share; each mon reads its fqdn: 5 highstates kept. The tops: web01/02
    // and web03 differ in nothing the top asked, db and mon each one: 3.
    assert_eq!(shared.shared_compiles(), 5 + 3);
}

#[test]
fn a_compile_that_reads_the_minion_id_is_not_shared() {
    let tree = "\
#- salt-analyzer.yaml
file_roots: {base: [base]}
minions:
  a1: {grains: {role: x}}
  a2: {grains: {role: x}}
#- base/top.sls
base:
  '*': [s]
#- base/s.sls
{{ grains['id'] }}: test.nop
";
    let mem = MemFs::from_fixture(tree);
    let (ws, roots) = setup(&mem);
    let fs: Arc<dyn Vfs> = Arc::new(mem);
    let shared = Memo::sharing();
    let one = compile_with(fs.clone(), &ws, &roots, &Request::new(Some("a1"), Scope::Highstate), &shared);
    let two = compile_with(fs.clone(), &ws, &roots, &Request::new(Some("a2"), Scope::Highstate), &shared);
    assert_eq!((ids(&one), ids(&two)), (vec!["a1".to_string()], vec!["a2".to_string()]));
}

/// An older-style map's value the pillar sets is placed on the pillar file and line.
#[test]
fn an_older_map_value_from_the_pillar_is_placed_on_its_pillar_line() {
    let tree = "\
#- salt-analyzer.yaml
file_roots: {base: [srv]}
pillar_roots: {base: [pillar]}
minions:
  web01: {grains: {os_family: Debian}}
#- pillar/top.sls
base:
  '*': [ngx]
#- pillar/ngx.sls
other: 1
ngx:
  port: 8080
#- srv/ngx/defaults.yaml
ngx:
  port: 80
  user: www
#- srv/ngx/map.jinja
{% import_yaml 'ngx/defaults.yaml' as defaults %}
{% set ngx = salt['pillar.get']('ngx', default=defaults.ngx, merge=True) %}
";
    let fs = MemFs::from_fixture(tree);
    let (ws, roots) = setup(&fs);
    let c = compile(Arc::new(fs), &ws, &roots, &Request::new(Some("web01"), Scope::MapData { tpldir: "ngx".into() }));
    let d = c.mapdata.expect("mapdata");
    let got: Vec<String> = d
        .origins
        .as_ref()
        .expect("origins")
        .leaves()
        .iter()
        .map(|(p, o)| format!("{} {}", p.join("."), crate::mapstack::report::describe(&d, &c.files, o)))
        .collect();
    expect_test::expect![[r#"
        port #3 pillar [base] ngx:3, over #1
        user #1 ngx/defaults.yaml:3"#]]
    .assert_eq(&got.join("\n"));
}

#[test]
fn a_stateconf_file_renders_as_salt_renders_it_and_an_extend_of_its_values_reaches_it() {
    // Salt 3008.4 (tests/conformance/cases/r1-stateconf): `other` renders first and extends
    // `svc::sls_params`; svc's first pass reads that value, its `.id`s become `svc::id`.
    let mut fs = MemFs::from_fixture(
        "\
#- salt-analyzer.yaml
file_roots: {base: [base]}
minions: {m1: {grains: {os_family: Debian}}}
#- base/top.sls
base:
  '*': [other]
#- base/other.sls
#!stateconf yaml . jinja
include: [svc]
extend:
  svc::sls_params:
    stateconf.set: [{parent: ß-other}]
#- base/svc.sls
#!stateconf -G yaml . jinja
.sls_params:
  stateconf.set: [{parent: default}]
# --- end of state config ---
.pkg:
  pkg.installed: [{name: 'nginx-{{ sls_params.parent }}'}]
svc-conf:
  file.managed: [{name: /etc/nginx.conf}, {require: [{pkg: .pkg}]}]
",
    );
    let (ws, roots) = setup(&fs);
    let memo = Memo::keeping_renders();
    let mut cache = MinionCache::default();
    let req = Request::new(Some("m1"), Scope::Highstate);
    let mut check = |fs: &MemFs| {
        let c = cache.get(&(Arc::new(fs.clone()) as Arc<dyn Vfs>), &ws, &roots, &req, &memo);
        assert_eq!(answer(&c), answer(&compile(Arc::new(fs.clone()), &ws, &roots, &req)));
        let chunks: serde_json::Value = serde_json::from_str(&c.low.as_ref().expect("a highstate").chunks_json().to_string()).expect("json");
        let line = |ch: &serde_json::Value| {
            let req = ch.get("require").map(|r| format!(" require={r}")).unwrap_or_default();
            format!(
                "{} {}.{} {}{req}",
                ch["__id__"].as_str().unwrap_or("?"),
                ch["state"].as_str().unwrap_or("?"),
                ch["fun"].as_str().unwrap_or("?"),
                ch["name"]
            )
        };
        chunks.as_array().expect("chunks").iter().map(line).collect::<Vec<_>>().join("\n")
    };
    expect_test::expect![[r#"
        svc::pkg pkg.installed "nginx-ß-other"
        svc-conf file.managed "/etc/nginx.conf" require=[{"pkg":"svc::pkg"}]
        svc::sls_params stateconf.set "svc::sls_params"
        other::goal stateconf.set "other::goal" require=[]"#]]
    .assert_eq(&check(&fs));
    // An edit of the extending file: the kept render of svc is not the answer any more.
    let text = fs.files[Path::new("/ws/base/other.sls")].replace("ß-other", "ℝ-other");
    fs.files.insert("/ws/base/other.sls".into(), text);
    let after = check(&fs);
    assert_eq!(after.lines().next(), Some(r#"svc::pkg pkg.installed "nginx-ℝ-other""#), "{after}");
}

#[test]
fn a_template_finds_the_execution_functions_of_its_minion_s_release_extensions_and_modules() {
    // `docker.ps` is in the core of Salt 3006 and 3007; Salt 3008 moved it to saltext-dockermod.
    // Salt 3008.4 without that extension: "Rendering SLS 'base:a' failed: Jinja variable
    // 'salt.utils.templates.AliasedLoader object' has no attribute 'docker.ps'; line 1".
    let run = |head: &str| {
        let tree = format!(
            "#- salt-analyzer.yaml\n{head}file_roots: {{base: [srv]}}\nminions: {{m: {{grains: {{}}}}}}\n\
             #- srv/top.sls\nbase: {{'*': [a]}}\n\
             #- srv/a.sls\nx: {{test.nop: [{{ps: {{{{ salt['docker.ps']() | json }}}}}}, {{site: {{{{ salt.corp.owner('x') | json }}}}}}]}}\n\
             #- srv/_modules/site.py\n__virtualname__ = 'corp'\ndef owner(name):\n    return name\n"
        );
        let fs = MemFs::from_fixture(&tree);
        let (ws, roots) = setup(&fs);
        let c = compile(Arc::new(fs), &ws, &roots, &Request::new(Some("m"), Scope::Highstate));
        let low = c.low.as_ref().expect("a highstate");
        match low.show_errors.first() {
            Some(e) => format!("{:?}: {}", e.code, e.message),
            None => format!("clean: {}", low.chunks_json()),
        }
    };
    expect_test::expect![[r#"clean: [{"state":"test","name":"x","__sls__":"a","__env__":"base","__id__":"x","ps":"","site":"","order":10000,"fun":"nop"}]"#]]
        .assert_eq(&run("salt_version: 3006\n"));
    expect_test::expect![[r#"
        NotInCore: Rendering SLS 'base:a' failed: Jinja variable 'salt.utils.templates.AliasedLoader object' has no attribute 'docker.ps'; line 1
        Reason: `docker.ps` is not in Salt 3008's core: install saltext-dockermod, or list it under `saltexts:`
        Salt 3006 and 3007 ship it in their core: if this minion runs one of them, say so with `salt_version:`"#]]
    .assert_eq(&run("salt_version: 3008\n"));
    expect_test::expect![[r#"clean: [{"state":"test","name":"x","__sls__":"a","__env__":"base","__id__":"x","ps":"","site":"","order":10000,"fun":"nop"}]"#]]
        .assert_eq(&run("salt_version: 3008\nsaltexts: [saltext.dockermod]\n"));
}
