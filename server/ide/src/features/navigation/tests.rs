//! Tests of `features/navigation.rs`, on `#- path` fixtures with `$0` cursors.

use expect_test::{expect, Expect};

use crate::fixture::{at, Fixture};

/// A tree exercising every kind of reference; `$A`..`$Z` mark cursor positions.
const TREE: &str = r#"
#- salt-analyzer.yaml
file_roots: {base: [base], dev: [dev]}
#- base/top.sls
base:
  '*':
    - w$Beb
    - app.relative
dev:
  'db*':
    - to$Cols
#- base/web.sls
web_id:
  pkg.installed:
    - name: nginx
#- base/web/init.sls
shadowed: test.nop
#- base/app/relative.sls
include:
  - .sib$Aling
  - ..w$Deb
  - dev: too$Els
requi$Prer:
  cmd.run:
    - require:
      - pkg: ngi$Fnx
      - sib$G_id
      - sls: w$Heb
    - source: salt://files/co$Inf.txt
    - require_in:
      - file: ß_fi$Jle
extend:
  sib_$Kid:
    test:
      - watch:
        - cmd: requirer
#- base/app/sibling.sls
sib_$Lid:
  test.nop:
    - require:
      - cmd: requ$Mirer
ß_file:
  file.managed: []
#- base/files/conf.txt
text
#- dev/tools/init.sls
tools: test.nop
"#;

fn at_marker(marker: char) -> String {
    crate::fixture::pick_marker(TREE, marker)
}

fn goto(marker: char, expect: Expect) {
    let f = Fixture::new(&at_marker(marker));
    let a = f.analysis();
    let (path, offset) = f.cursor();
    let targets = a.goto_definition(&path, offset).unwrap();
    let out: String = targets.iter().map(|t| format!("{} ({})\n", at(&a, &t.path, t.focus_range.clone()), t.name)).collect();
    expect.assert_eq(&out);
}

fn references(marker: char, expect: Expect) {
    let f = Fixture::new(&at_marker(marker));
    let a = f.analysis();
    let (path, offset) = f.cursor();
    let refs = a.references(&path, offset, true).unwrap();
    let out: String = refs.iter().map(|r| format!("{}\n", at(&a, &r.path, r.range.clone()))).collect();
    expect.assert_eq(&out);
}

#[test]
fn goto_include_items() {
    goto(
        'A',
        expect![[r#"
        base/app/sibling.sls:1:1 (app.sibling)
    "#]],
    );
    // `web.sls` wins over `web/init.sls`.
    goto(
        'D',
        expect![[r#"
        base/web.sls:1:1 (web)
    "#]],
    );
    goto(
        'E',
        expect![[r#"
        dev/tools/init.sls:1:1 (tools)
    "#]],
    );
}

#[test]
fn goto_top_entries() {
    goto(
        'B',
        expect![[r#"
        base/web.sls:1:1 (web)
    "#]],
    );
    goto(
        'C',
        expect![[r#"
        dev/tools/init.sls:1:1 (tools)
    "#]],
    );
}

#[test]
fn goto_requisite_targets() {
    // By name, module-typed.
    goto(
        'F',
        expect![[r#"
        base/web.sls:1:1 "web_id" (web_id)
    "#]],
    );
    // By ID, untyped.
    goto(
        'G',
        expect![[r#"
        base/app/sibling.sls:1:1 "sib_id" (sib_id)
    "#]],
    );
    goto(
        'H',
        expect![[r#"
        base/web.sls:1:1 (web)
    "#]],
    );
    // An `_in` requisite, to a non-ASCII ID.
    goto(
        'J',
        expect![[r#"
        base/app/sibling.sls:5:1 "ß_file" (ß_file)
    "#]],
    );
    // From an included file back to its includer (they share the closure of `app.relative`).
    goto(
        'M',
        expect![[r#"
        base/app/relative.sls:5:1 "requirer" (requirer)
    "#]],
    );
}

#[test]
fn goto_extend_and_urls() {
    goto(
        'K',
        expect![[r#"
        base/app/sibling.sls:1:1 "sib_id" (sib_id)
    "#]],
    );
    goto(
        'I',
        expect![[r#"
        base/files/conf.txt:1:1 (salt://files/conf.txt)
    "#]],
    );
    // Nothing to go to from a declaration itself.
    goto('L', expect![[""]]);
}

#[test]
fn references_of_a_state_id() {
    references(
        'L',
        expect![[r#"
        base/app/relative.sls:9:9 "sib_id"
        base/app/relative.sls:15:3 "sib_id"
        base/app/sibling.sls:1:1 "sib_id"
    "#]],
    );
    references(
        'P',
        expect![[r#"
        base/app/relative.sls:5:1 "requirer"
        base/app/relative.sls:18:16 "requirer"
        base/app/sibling.sls:4:14 "requirer"
    "#]],
    );
    // From a reference: the same as from the declaration.
    references(
        'G',
        expect![[r#"
        base/app/relative.sls:9:9 "sib_id"
        base/app/relative.sls:15:3 "sib_id"
        base/app/sibling.sls:1:1 "sib_id"
    "#]],
    );
}

#[test]
fn references_of_an_sls() {
    // `web` is named by a relative include, a top entry and an `sls:` requisite.
    references(
        'D',
        expect![[r#"
        base/app/relative.sls:3:5 "..web"
        base/app/relative.sls:10:14 "web"
        base/top.sls:3:7 "web"
    "#]],
    );
    references(
        'E',
        expect![[r#"
        base/app/relative.sls:4:10 "tools"
        base/top.sls:7:7 "tools"
    "#]],
    );
}

/// Go to definition on an include or requisite that Jinja writes: its values for the selected
/// minion, resolved as Salt resolves them.
#[test]
fn definition_through_a_templated_include_and_requisite() {
    let src = r#"
#- salt-analyzer.yaml
minions: {m1: {grains: {os_family: Debian}}}
default_minion: m1
#- TEMPLATE/package/install.sls
pkg_install: {pkg.installed: []}
#- TEMPLATE/config/file.sls
{%- set tplroot = tpldir.split('/')[0] %}
{%- set sls_package_install = tplroot ~ '.package.install' %}
include:
  - {{ sls_package_$0install }}
  - .ß💣
conf:
  file.managed:
    - require:
      - pkg: pkg_install
#- TEMPLATE/config/ß💣.sls
x: test.nop
"#;
    let f = Fixture::new(src);
    let (path, offset) = f.cursor();
    let a = f.analysis();
    let got: Vec<String> = a.goto_definition(&path, offset).unwrap().iter().map(|t| at(&a, &t.path, t.focus_range.clone())).collect();
    assert_eq!(got, ["TEMPLATE/package/install.sls:1:1"]);
    // The same written as a relative expression, in a loop: every value.
    let src = src.replace("  - {{ sls_package_$0install }}\n", "{% for s in ['..package.install', '.ß💣'] %}\n  - {{ $0s }}\n{% endfor %}\n");
    let f = Fixture::new(&src);
    let (path, offset) = f.cursor();
    let a = f.analysis();
    let got: Vec<String> = a.goto_definition(&path, offset).unwrap().iter().map(|t| at(&a, &t.path, t.focus_range.clone())).collect();
    assert_eq!(got, ["TEMPLATE/config/ß💣.sls:1:1", "TEMPLATE/package/install.sls:1:1"]);
}

#[test]
fn goto_a_custom_state_function_lands_on_its_def() {
    let f = Fixture::new(
        r#"
#- _states/webapp.py
__virtualname__ = "webapp"
__func_alias__ = {"list_": "list"}

def deployed(name, version):
    pass

def list_(name):
    pass
#- app.sls
app:
  webapp.depl$0oyed:
    - version: 1
listing:
  webapp:
    - list
"#,
    );
    let a = f.analysis();
    let (path, offset) = f.cursor();
    let show =
        |targets: Vec<crate::NavTarget>| -> String { targets.iter().map(|t| format!("{} ({})\n", at(&a, &t.path, t.focus_range.clone()), t.name)).collect() };
    expect![[r#"
        _states/webapp.py:4:5 "deployed" (webapp.deployed)
    "#]]
    .assert_eq(&show(a.goto_definition(&path, offset).unwrap()));
    // The `- list` form, renamed by `__func_alias__`.
    let text = a.text(&path).unwrap();
    let list = text.find("- list").unwrap() + 3;
    expect![[r#"
        _states/webapp.py:7:5 "list_" (webapp.list)
    "#]]
    .assert_eq(&show(a.goto_definition(&path, list).unwrap()));
}

/// A leading slash (`/formulas/x`) loads `formulas/x.sls` in Salt, and `- .` from a package's
/// file names the package (`pkg.`, its `init.sls`): definitions follow Salt there too, from
/// includes, top entries and `sls:` requisites.
#[test]
fn goto_leading_slash_and_dot_names() {
    let tree = r#"
#- salt-analyzer.yaml
file_roots: {base: [base]}
#- base/top.sls
base:
  '*':
    - /formu$Alas/ß
#- base/formulas/ß.sls
include:
  - /formulas/com$Bmon
ß_id:
  test.nop:
    - require:
      - sls: /formulas/co$Cmmon
#- base/formulas/common.sls
c: test.nop
#- base/pkg/init.sls
p: test.nop
#- base/pkg/sub.sls
include:
  - $D.
"#;
    let out: String = ['A', 'B', 'C', 'D']
        .iter()
        .map(|m| {
            let f = Fixture::new(&crate::fixture::pick_marker(tree, *m));
            let a = f.analysis();
            let (path, offset) = f.cursor();
            let targets = a.goto_definition(&path, offset).unwrap();
            let found: Vec<String> = targets.iter().map(|t| format!("{} ({})", at(&a, &t.path, t.focus_range.clone()), t.name)).collect();
            format!("{m}: {}\n", found.join(", "))
        })
        .collect();
    expect![[r#"
        A: base/formulas/ß.sls:1:1 (formulas.ß)
        B: base/formulas/common.sls:1:1 (formulas.common)
        C: base/formulas/common.sls:1:1 (formulas.common)
        D: base/pkg/init.sls:1:1 (pkg)
    "#]]
    .assert_eq(&out);
}
