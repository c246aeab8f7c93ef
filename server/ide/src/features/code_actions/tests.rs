//! Tests of `features/code_actions.rs`, on `#- path` fixtures with `$0` cursors.

use expect_test::{expect, Expect};

use crate::fixture::Fixture;

/// The code actions at the fixture's cursor: each one's kind (`*` when preferred) and title,
/// then what it does: the files it creates or moves, and the cursor file's text after its
/// edits.
fn check_actions(fixture: &str, expect: Expect) {
    let f = Fixture::new(fixture);
    let a = f.analysis();
    let (path, offset) = f.cursor();
    if std::env::var("SHOW_DIAGNOSTICS").is_ok() {
        eprintln!("{}", crate::fixture::all_diagnostics(&a));
    }
    let mut out = String::new();
    for action in a.code_actions(&path, offset..offset).unwrap() {
        out.push_str(&format!("{:?}{} {}\n", action.kind, if action.preferred { "*" } else { "" }, action.title));
        for c in &action.edit.create_files {
            out.push_str(&format!("  create {}\n", c.display()));
        }
        for (from, to) in &action.rename_files {
            out.push_str(&format!("  rename {} -> {}\n", from.display(), to.display()));
        }
        let mut edits: Vec<_> = action.edit.text_edits.iter().filter(|e| e.path == path).collect();
        if edits.is_empty() {
            continue;
        }
        assert!(action.edit.text_edits.iter().all(|e| e.path == path), "edits of other files");
        edits.sort_by_key(|e| std::cmp::Reverse(e.range.start));
        let mut text = a.text(&path).unwrap().to_string();
        for e in edits {
            text.replace_range(e.range.clone(), &e.new_text);
        }
        out.push_str(&text.lines().map(|l| format!("  | {l}").trim_end().to_string() + "\n").collect::<String>());
    }
    expect.assert_eq(&out);
}

#[test]
fn create_the_missing_file_of_an_include() {
    let f = Fixture::new(
        r#"
#- salt-analyzer.yaml
file_roots: {base: [srv/a, srv/b]}
#- srv/a/app/init.sls
include:
  - .ne$0w.ß
  - app.present
#- srv/b/app/present.sls
x: test.nop
"#,
    );
    let a = f.analysis();
    let (path, offset) = f.cursor();
    let actions = a.code_actions(&path, offset..offset).unwrap();
    expect![[r#"
        [
            CodeAction {
                title: "Create `srv/a/app/new/ß.sls`",
                kind: QuickFix,
                preferred: false,
                rename_files: [],
                edit: SourceChange {
                    create_files: [
                        "/ws/srv/a/app/new/ß.sls",
                    ],
                    text_edits: [],
                },
            },
            CodeAction {
                title: "Remove the include of `.new.ß` (Salt finds no file by that name)",
                kind: QuickFix,
                preferred: false,
                rename_files: [],
                edit: SourceChange {
                    create_files: [],
                    text_edits: [
                        TextEdit {
                            path: "/ws/srv/a/app/init.sls",
                            range: 9..21,
                            new_text: "",
                        },
                    ],
                },
            },
        ]
    "#]]
    .assert_debug_eq(&actions);
    // An include that resolves has no fix.
    let text = a.text(&path).unwrap();
    let at = text.find("app.present").unwrap();
    assert!(a.code_actions(&path, at..at).unwrap().is_empty());
}

#[test]
fn rewrite_the_top_file_shorthand_as_a_list() {
    let f = Fixture::new("#- top.sls\nbase:\n  '*': web$0\n");
    let a = f.analysis();
    let (path, offset) = f.cursor();
    let actions = a.code_actions(&path, offset..offset).unwrap();
    assert_eq!(actions.len(), 1);
    let edit = &actions[0].edit.text_edits[0];
    let mut text = a.text(&path).unwrap().to_string();
    text.replace_range(edit.range.clone(), &edit.new_text);
    assert_eq!(text, "base:\n  '*':\n    - web\n");
}

#[test]
fn did_you_mean_an_unknown_function_in_each_form() {
    // The dotted key: the misspelt part of it.
    check_actions(
        "#- a.sls\nnginx_ß:\n  pkg.insta$0led:\n    - name: nginx\n",
        expect![[r#"
            QuickFix* Change `instaled` to `installed`
              | nginx_ß:
              |   pkg.installed:
              |     - name: nginx
        "#]],
    );
    // The list form: only the function's item.
    check_actions(
        "#- a.sls\nnginx:\n  pkg:\n    - instal$0ed\n    - name: ℝ\n",
        expect![[r#"
            QuickFix* Change `instaled` to `installed`
              | nginx:
              |   pkg:
              |     - installed
              |     - name: ℝ
        "#]],
    );
    // The module misspelt in the list form: its key.
    check_actions(
        "#- a.sls\nnginx:\n  servic$0:\n    - running\n",
        expect![[r#"
            QuickFix* Change `servic` to `service`
              | nginx:
              |   service:
              |     - running
        "#]],
    );
    // The module misspelt in the dotted key, and the string form.
    check_actions(
        "#- a.sls\nnginx:\n  pgk.inst$0alled: []\n",
        expect![[r#"
            QuickFix* Change `pgk` to `pkg`
              | nginx:
              |   pkg.installed: []
        "#]],
    );
    check_actions(
        "#- a.sls\nnginx: pkg.instal$0ed\n",
        expect![[r#"
            QuickFix* Change `instaled` to `installed`
              | nginx: pkg.installed
        "#]],
    );
    // In a template, from the selected minion's rendered highstate.
    check_actions(
        "#- salt-analyzer.yaml\nminions: {m: {}}\ndefault_minion: m\n#- top.sls\nbase: {'*': [a]}\n#- a.sls\n{% set ß = 'ℝ' %}\n{% if ß %}\nnginx:\n  pkg.instal$0ed:\n    - name: {{ ß }}\n{% endif %}\n",
        expect![[r#"
            QuickFix* Change `instaled` to `installed`
              | {% set ß = 'ℝ' %}
              | {% if ß %}
              | nginx:
              |   pkg.installed:
              |     - name: {{ ß }}
              | {% endif %}
        "#]],
    );
    // Nothing near enough: no action.
    check_actions("#- a.sls\nnginx:\n  zzqx.q$0q: []\n", expect![[""]]);
}

#[test]
fn did_you_mean_an_unknown_argument() {
    // `pkg.installed` takes **kwargs: a likely typo; `file.absent` takes no **kwargs: Salt
    // refuses it. Both replace exactly the key.
    check_actions(
        "#- a.sls\n💣:\n  pkg.installed:\n    - pkgz: [a]\n    - refreh$0: true\n",
        expect![[r#"
            QuickFix* Change `refreh` to `refresh`
              | 💣:
              |   pkg.installed:
              |     - pkgz: [a]
              |     - refresh: true
        "#]],
    );
    check_actions(
        "#- a.sls\nx:\n  file.absent:\n    - nmae$0: /tmp/ß\n",
        expect![[r#"
            QuickFix* Change `nmae` to `name`
              | x:
              |   file.absent:
              |     - name: /tmp/ß
        "#]],
    );
}

#[test]
fn include_the_sls_that_declares_a_requisite_target() {
    // Into the existing list, in its indentation; one action per SLS declaring it.
    check_actions(
        r#"
#- web.sls
include:
    - base_ß

site:
  service.running:
    - require:
      - pkg: ngi$0nx
#- base_ß.sls
x: test.nop
#- pkgs/a.sls
nginx:
  pkg.installed: []
#- pkgs/b/init.sls
b:
  pkg.installed:
    - name: nginx
#- top.sls
base:
  '*': [web]
"#,
        expect![[r#"
            QuickFix Include `pkgs.a`, which declares `pkg: nginx`
              | include:
              |     - base_ß
              |     - pkgs.a
              |
              | site:
              |   service.running:
              |     - require:
              |       - pkg: nginx
            QuickFix Include `pkgs.b`, which declares `pkg: nginx`
              | include:
              |     - base_ß
              |     - pkgs.b
              |
              | site:
              |   service.running:
              |     - require:
              |       - pkg: nginx
        "#]],
    );
    // No `include:`: a block after the comments and the Jinja set-up.
    check_actions(
        r#"
#- web.sls
#!jinja|yaml
# The web server.
{% set port = 80 %}
{% import_yaml "defaults.yaml" as defaults %}

# nginx, after its package
site:
  service.running:
    - require:
      - sls: pk$0gs
#- salt-analyzer.yaml
minions: {web01: {}}
default_minion: web01
#- defaults.yaml
port: 80
#- pkgs.sls
nginx-pkg: test.nop
#- top.sls
base:
  '*': [web]
"#,
        expect![[r#"
            QuickFix Include `pkgs`
              | #!jinja|yaml
              | # The web server.
              | {% set port = 80 %}
              | {% import_yaml "defaults.yaml" as defaults %}
              |
              | include:
              |   - pkgs
              |
              | # nginx, after its package
              | site:
              |   service.running:
              |     - require:
              |       - sls: pkgs
        "#]],
    );
    // An empty list, and entries at the key's column.
    check_actions(
        "#- web.sls\ninclude: []\nw:\n  test.nop:\n    - require:\n      - n$0ginx\n#- b.sls\nnginx: test.nop\n",
        expect![[r#"
            QuickFix Include `b`, which declares `id: nginx`
              | include: [b]
              | w:
              |   test.nop:
              |     - require:
              |       - nginx
        "#]],
    );
    check_actions(
        "#- web.sls\ninclude:\n- a\nw:\n  test.nop:\n    - require:\n      - n$0ginx\n#- a.sls\n#- b.sls\nnginx: test.nop\n",
        expect![[r#"
            QuickFix Include `b`, which declares `id: nginx`
              | include:
              | - a
              | - b
              | w:
              |   test.nop:
              |     - require:
              |       - nginx
        "#]],
    );
    // A flow list, and a bare ID.
    check_actions(
        "#- web.sls\ninclude: [a]\nw:\n  test.nop:\n    - require: [ng$0inx]\n#- a.sls\na: test.nop\n#- b.sls\nnginx: test.nop\n",
        expect![[r#"
            QuickFix Include `b`, which declares `id: nginx`
              | include: [a, b]
              | w:
              |   test.nop:
              |     - require: [nginx]
        "#]],
    );
}

#[test]
fn remove_an_include_that_does_nothing() {
    // A repeat of an earlier entry, after resolving the relative name.
    check_actions(
        "#- app/init.sls\ninclude:\n  - app.ß\n  - .ß$0\nx: test.nop\n#- app/ß.sls\ny: test.nop\n",
        expect![[r#"
            QuickFix Remove the include of `.ß` (it repeats an earlier entry)
              | include:
              |   - app.ß
              | x: test.nop
        "#]],
    );
    // The file itself, the only entry: the `include:` key goes too.
    check_actions(
        "#- app.sls\n# top\ninclude:\n  - ap$0p\n\nx: test.nop\n",
        expect![[r#"
            QuickFix Remove the include of `app` (it names this file)
              | # top
              |
              | x: test.nop
        "#]],
    );
    // Entries at the key's column: the others stay.
    check_actions(
        "#- app.sls\ninclude:\n- ap$0p\n- b\nx: test.nop\n#- b.sls\n",
        expect![[r#"
            QuickFix Remove the include of `app` (it names this file)
              | include:
              | - b
              | x: test.nop
        "#]],
    );
    // The only entry of a flow list: the line.
    check_actions(
        "#- app.sls\ninclude: [ap$0p]\nx: test.nop\n",
        expect![[r#"
            QuickFix Remove the include of `app` (it names this file)
              | x: test.nop
        "#]],
    );
    // A missing one: create it, or drop it from a flow list.
    check_actions(
        "#- app.sls\ninclude: [a, gon$0e, b]\n#- a.sls\n#- b.sls\n",
        expect![[r#"
            QuickFix Create `gone.sls`
              create /ws/gone.sls
            QuickFix Remove the include of `gone` (Salt finds no file by that name)
              | include: [a, b]
        "#]],
    );
}

#[test]
fn rename_a_dotted_sls_file() {
    check_actions(
        "#- web.conf.sls\n$0nginx: test.nop\n",
        expect![[r#"
            QuickFix Rename the file to `web/conf.sls`, where Salt looks for `web.conf`
              rename /ws/web.conf.sls -> /ws/web/conf.sls
            QuickFix Rename the file to `web_conf.sls`
              rename /ws/web.conf.sls -> /ws/web_conf.sls
        "#]],
    );
    // At an include naming it.
    check_actions(
        "#- web.conf.sls\nnginx: test.nop\n#- site.sls\ninclude:\n  - web.co$0nf\n",
        expect![[r#"
            QuickFix Remove the include of `web.conf` (Salt finds no file by that name)
            QuickFix Rename `web.conf.sls` to `web/conf.sls`, where Salt looks for `web.conf`
              rename /ws/web.conf.sls -> /ws/web/conf.sls
        "#]],
    );
    // Never over an existing file, nor where another file answers the name.
    check_actions(
        "#- ß.1/init.sls\n$0x: test.nop\n#- ß/1/init.sls\ny: test.nop\n",
        expect![[r#"
            QuickFix Rename the file to `ß_1/init.sls`
              rename /ws/ß.1/init.sls -> /ws/ß_1/init.sls
        "#]],
    );
    // `web/conf/init.sls` answers `web.conf`: moving to `web/conf.sls` would take the name.
    check_actions(
        "#- web.conf.sls\n$0x: test.nop\n#- web/conf/init.sls\n",
        expect![[r#"
            QuickFix Rename the file to `web_conf.sls`
              rename /ws/web.conf.sls -> /ws/web_conf.sls
        "#]],
    );
}
