use expect_test::{expect, Expect};

use crate::fixture::ws;
use crate::fixture::{at, Fixture};
use crate::FoldKind;

fn folds(tree: &str, file: &str, expect: Expect) {
    let f = Fixture::new(tree);
    let a = f.analysis();
    let path = ws(file);
    let li = a.line_index(&path).unwrap();
    let mut out = String::new();
    for fold in a.folding_ranges(&path) {
        let kind = if fold.kind == FoldKind::Comment { " comment" } else { "" };
        out.push_str(&format!("{}-{}{kind}\n", li.line_col(fold.range.start).line + 1, li.line_col(fold.range.end).line + 1));
    }
    expect.assert_eq(&out);
}

#[test]
fn folding_yaml_and_jinja_blocks_and_comments() {
    folds(
        r#"
#- a.sls
# one
# two
{% if grains.os == 'ß' %}
ß_id:
  pkg.installed:
    - pkgs:
      - ℝ
      - 💣
{% for x in [1, 2] %}
  {% raw %}
  {{ not jinja }}
  {% endraw %}
{% endfor %}
{% endif %}
{#
a long comment
#}
{% macro m() %}
x
{% endmacro %}
"#,
        "a.sls",
        expect![[r#"
            1-2 comment
            3-13
            4-11
            5-8
            6-8
            9-12
            10-11
            15-17 comment
            18-19
        "#]],
    );
}

fn selection(tree: &str, expect: Expect) {
    let f = Fixture::new(tree);
    let a = f.analysis();
    let (path, offset) = f.cursor();
    let mut out = String::new();
    for r in &a.selection_ranges(&path, &[offset])[0] {
        out.push_str(&format!("{}\n", at(&a, &path, r.clone())));
    }
    expect.assert_eq(&out);
}

#[test]
fn selection_from_a_yaml_value() {
    selection(
        r#"
#- a.sls
ß_id:
  pkg.installed:
    - pkgs:
      - ℝ$0x
      - 💣
b: test.nop
"#,
        expect![[r#"
            a.sls:4:9 "ℝx"
            a.sls:4:7 "- ℝx"
            a.sls:4:7 "- ℝx\n      - 💣"
            a.sls:3:7 "pkgs:\n      - ℝx\n      - 💣"
            a.sls:3:5 "- pkgs:\n      - ℝx\n      - 💣"
            a.sls:2:3 "pkg.installed:\n    - pkgs:\n      - ℝx\n      - 💣"
            a.sls:1:1 "ß_id:\n  pkg.installed:\n    - pkgs:\n      - ℝx\n      - 💣"
            a.sls:1:1 "ß_id:\n  pkg.installed:\n    - pkgs:\n      - ℝx\n      - 💣\nb: test.nop\n"
        "#]],
    );
}

#[test]
fn selection_from_inside_jinja() {
    selection(
        r#"
#- a.sls
{% if x %}
ß_id:
  test.nop:
    - name: {{ pillar['ℝ$0'] | upper }}
{% endif %}
"#,
        expect![[r#"
            a.sls:4:23 "'ℝ'"
            a.sls:4:16 "pillar['ℝ'] | upper"
            a.sls:4:13 "{{ pillar['ℝ'] | upper }}"
            a.sls:4:7 "name: {{ pillar['ℝ'] | upper }}"
            a.sls:4:5 "- name: {{ pillar['ℝ'] | upper }}"
            a.sls:3:3 "test.nop:\n    - name: {{ pillar['ℝ'] | upper }}"
            a.sls:2:1 "ß_id:\n  test.nop:\n    - name: {{ pillar['ℝ'] | upper }}"
            a.sls:1:1 "{% if x %}\nß_id:\n  test.nop:\n    - name: {{ pillar['ℝ'] | upper }}\n{% endif %}"
            a.sls:1:1 "{% if x %}\nß_id:\n  test.nop:\n    - name: {{ pillar['ℝ'] | upper }}\n{% endif %}\n"
        "#]],
    );
}

fn highlight(tree: &str, expect: Expect) {
    let f = Fixture::new(tree);
    let a = f.analysis();
    let (path, offset) = f.cursor();
    let mut out = String::new();
    for h in a.document_highlight(&path, offset) {
        out.push_str(&format!("{}{}\n", at(&a, &path, h.range), if h.declaration { " (declaration)" } else { "" }));
    }
    expect.assert_eq(&out);
}

const IDS: &str = r#"
#- a.sls
include:
  - other
ß_$Aid:
  pkg.installed:
    - name: ℝ_pkg
b:
  test.nop:
    - require:
      - pkg: ß_$Bid
      - pkg: ℝ_pkg
      - id: ß_id
      - file: ß_id
      - sls: ot$Dher
c:
  test.nop:
    - watch:
      - 💣_$Cfar
    - require:
      - 💣_far
      - sls: other
extend:
  💣_far:
    test: []
{% set v = 1 %}
{{ $Ev }} {{ v + 1 }}
"#;

#[test]
fn highlight_an_id_from_its_declaration_and_a_requisite() {
    let from_decl = crate::fixture::pick_marker(IDS, 'A');
    let expected = expect![[r#"
        a.sls:3:1 "ß_id" (declaration)
        a.sls:9:14 "ß_id"
        a.sls:10:14 "ℝ_pkg"
        a.sls:11:13 "ß_id"
    "#]];
    highlight(&from_decl, expected);
    highlight(
        &crate::fixture::pick_marker(IDS, 'B'),
        expect![[r#"
            a.sls:3:1 "ß_id" (declaration)
            a.sls:9:14 "ß_id"
            a.sls:10:14 "ℝ_pkg"
            a.sls:11:13 "ß_id"
        "#]],
    );
}

#[test]
fn highlight_an_id_declared_elsewhere_an_sls_and_a_jinja_name() {
    for (marker, expect) in [
        (
            'C',
            expect![[r#"
                a.sls:17:9 "💣_far"
                a.sls:19:9 "💣_far"
                a.sls:22:3 "💣_far"
            "#]],
        ),
        (
            'D',
            expect![[r#"
                a.sls:2:5 "other"
                a.sls:13:14 "other"
                a.sls:20:14 "other"
            "#]],
        ),
        (
            'E',
            expect![[r#"
                a.sls:24:8 "v" (declaration)
                a.sls:25:4 "v"
                a.sls:25:12 "v"
            "#]],
        ),
    ] {
        highlight(&crate::fixture::pick_marker(IDS, marker), expect);
    }
}

fn signature(tree: &str, expect: Expect) {
    let f = Fixture::new(tree);
    let a = f.analysis();
    let (path, offset) = f.cursor();
    let out = match a.signature_help(&path, offset) {
        None => "none\n".to_string(),
        Some(s) => {
            let active = s.active.map(|i| s.label[s.parameters[i].0.clone()].to_string());
            let first: Vec<String> =
                s.parameters.iter().take(3).map(|(r, what)| format!("{} = {}", &s.label[r.clone()], what.lines().next().unwrap_or(""))).collect();
            format!("{}\n{}\nactive: {active:?}\n{}\n", s.label.chars().take(60).collect::<String>(), s.documentation, first.join("\n"))
        }
    };
    expect.assert_eq(&out);
}

#[test]
fn signature_help_under_a_state_function() {
    signature(
        r#"
#- a.sls
ß_id:
  file.managed:
    - source: salt://ℝ/💣
    - us$0
"#,
        expect![[r#"
            file.managed(name, source=None, source_hash='', source_hash_
            No argument is required besides `name`.
            active: None
            name = Required; Salt fills it from the state ID when it is not given.
            source=None = Default: `None`
            source_hash='' = Default: `''`
        "#]],
    );
    signature(
        r#"
#- a.sls
ß_id:
  pkg:
    - installed
    - pkgs:
      - ℝ$0
"#,
        expect![[r#"
            pkg.installed(name, version=None, refresh=None, fromrepo=Non
            No argument is required besides `name`.
            active: Some("pkgs=None")
            name = Required; Salt fills it from the state ID when it is not given.
            version=None = Default: `None`
            refresh=None = Default: `None`
        "#]],
    );
    signature(
        r#"
#- a.sls
include:
  - ß$0
"#,
        expect![[r#"
            none
        "#]],
    );
}
