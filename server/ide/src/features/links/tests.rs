//! Tests of `features/links.rs`, on `#- path` fixtures with `$0` cursors.

use expect_test::{expect, Expect};

use crate::fixture::ws;
use crate::fixture::{at, Fixture};
use crate::LinkTarget;

fn check(tree: &str, file: &str, expect: Expect) {
    let f = Fixture::new(tree);
    let a = f.analysis();
    let path = ws(file);
    let mut out = String::new();
    for l in a.document_links(&path) {
        let target = match &l.target {
            LinkTarget::File(p) => p.strip_prefix("/ws").unwrap_or(p).display().to_string(),
            LinkTarget::Url(u) => u.clone(),
        };
        out.push_str(&format!("{} -> {target} ({})\n", at(&a, &path, l.range), l.tooltip));
    }
    expect.assert_eq(&out);
}

const TREE: &str = r#"
#- salt-analyzer.yaml
file_roots: {base: [base], dev: [dev]}
#- base/top.sls
base:
  '*':
    - ß_web
    - missing
dev:
  '*':
    - tools
#- base/ß_web/init.sls
{% from "ß_web/map.jinja" import ℝ with context %}
{% import_yaml './defaults.yaml' as defaults %}
{% include '../nowhere.jinja' %}
include:
  - .sub
  - dev: tools
💣_conf:
  file.managed:
    - source: salt://ß_web/files/💣.conf
    - template: jinja
    - require:
      - sls: ß_web.sub
ghost:
  file.managed:
    - source: salt://ß_web/files/ghost.conf
#- base/ß_web/map.jinja
{% set ℝ = {} %}
#- base/ß_web/defaults.yaml
a: 1
#- base/ß_web/sub.sls
sub: test.nop
#- base/ß_web/files/💣.conf
x
#- dev/tools.sls
tools: test.nop
"#;

#[test]
fn links_of_an_sls_file() {
    check(
        TREE,
        "base/ß_web/init.sls",
        expect![[r#"
            base/ß_web/init.sls:1:10 "ß_web/map.jinja" -> base/ß_web/map.jinja (salt://ß_web/map.jinja)
            base/ß_web/init.sls:2:17 "./defaults.yaml" -> base/ß_web/defaults.yaml (salt://ß_web/defaults.yaml)
            base/ß_web/init.sls:5:5 ".sub" -> base/ß_web/sub.sls (SLS ß_web.sub in base)
            base/ß_web/init.sls:6:10 "tools" -> dev/tools.sls (SLS tools in dev)
            base/ß_web/init.sls:9:15 "salt://ß_web/files/💣.conf" -> base/ß_web/files/💣.conf (salt://ß_web/files/💣.conf)
            base/ß_web/init.sls:12:14 "ß_web.sub" -> base/ß_web/sub.sls (SLS ß_web.sub in base)
        "#]],
    );
}

#[test]
fn links_of_a_top_file() {
    check(
        TREE,
        "base/top.sls",
        expect![[r#"
            base/top.sls:3:7 "ß_web" -> base/ß_web/init.sls (SLS ß_web in base)
            base/top.sls:7:7 "tools" -> dev/tools.sls (SLS tools in dev)
        "#]],
    );
}
