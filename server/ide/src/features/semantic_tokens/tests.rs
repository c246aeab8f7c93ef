//! Tests of `features/semantic_tokens.rs`, on `#- path` fixtures with `$0` cursors.

use expect_test::{expect, Expect};

use crate::fixture::ws;
use crate::fixture::{at, Fixture};
use crate::{TokenModifiers, TokenType};

fn check(tree: &str, file: &str, expect: Expect) {
    let f = Fixture::new(tree);
    let a = f.analysis();
    let path = ws(file);
    let mut out = String::new();
    for t in a.semantic_tokens(&path, None) {
        let mut mods = String::new();
        for (bit, name) in [(TokenModifiers::DECLARATION, "decl"), (TokenModifiers::READONLY, "readonly"), (TokenModifiers::DEFAULT_LIBRARY, "lib")] {
            if t.modifiers.contains(bit) {
                mods.push_str(&format!("+{name}"));
            }
        }
        out.push_str(&format!("{:?}{mods} @ {}\n", t.kind, at(&a, &path, t.range)));
    }
    expect.assert_eq(&out);
}

#[test]
fn tokens_of_a_templated_sls_file() {
    check(
        r#"
#- web.sls
{% set ß = pillar.get('ℝ:💣', 'x') | default('y') %}
include:
  - dev: tools
  - .lib
ß_💣_id:
  pkg.installed:
    - name: {{ grains['os'] }}
    - require:
      - sls: lib
      - file: conf_ℝ
  service:
    - running
    - custom_ℝ: 1
{# a comment #}
{% if ß is defined %}
conf_ℝ: file.managed
{% endif %}
"#,
        "web.sls",
        expect![[r#"
            Macro @ web.sls:1:1 "{%"
            Keyword @ web.sls:1:4 "set"
            Variable+decl @ web.sls:1:8 "ß"
            Operator @ web.sls:1:10 "="
            Variable+readonly+lib @ web.sls:1:12 "pillar"
            Operator @ web.sls:1:18 "."
            Property @ web.sls:1:19 "get"
            Operator @ web.sls:1:22 "("
            Property @ web.sls:1:23 "'ℝ:💣'"
            Operator @ web.sls:1:28 ","
            String @ web.sls:1:30 "'x'"
            Operator @ web.sls:1:33 ")"
            Operator @ web.sls:1:35 "|"
            Function+lib @ web.sls:1:37 "default"
            Operator @ web.sls:1:44 "("
            String @ web.sls:1:45 "'y'"
            Operator @ web.sls:1:48 ")"
            Macro @ web.sls:1:50 "%}"
            Keyword @ web.sls:2:1 "include"
            Type @ web.sls:3:5 "dev"
            Namespace @ web.sls:3:10 "tools"
            Namespace @ web.sls:4:5 ".lib"
            Variable+decl @ web.sls:5:1 "ß_💣_id"
            Namespace+lib @ web.sls:6:3 "pkg"
            Function+lib @ web.sls:6:7 "installed"
            Parameter @ web.sls:7:7 "name"
            Macro @ web.sls:7:13 "{{"
            Variable+readonly+lib @ web.sls:7:16 "grains"
            Operator @ web.sls:7:22 "["
            Property @ web.sls:7:23 "'os'"
            Operator @ web.sls:7:27 "]"
            Macro @ web.sls:7:29 "}}"
            Keyword @ web.sls:8:7 "require"
            Keyword @ web.sls:9:9 "sls"
            Namespace @ web.sls:9:14 "lib"
            Namespace+lib @ web.sls:10:9 "file"
            Variable @ web.sls:10:15 "conf_ℝ"
            Namespace+lib @ web.sls:11:3 "service"
            Function+lib @ web.sls:12:7 "running"
            Parameter @ web.sls:13:7 "custom_ℝ"
            Comment @ web.sls:14:1 "{# a comment #}"
            Macro @ web.sls:15:1 "{%"
            Keyword @ web.sls:15:4 "if"
            Variable @ web.sls:15:7 "ß"
            Keyword @ web.sls:15:9 "is"
            Function+lib @ web.sls:15:12 "defined"
            Macro @ web.sls:15:20 "%}"
            Variable+decl @ web.sls:16:1 "conf_ℝ"
            Namespace+lib @ web.sls:16:9 "file"
            Function+lib @ web.sls:16:14 "managed"
            Macro @ web.sls:17:1 "{%"
            Keyword @ web.sls:17:4 "endif"
            Macro @ web.sls:17:10 "%}"
        "#]],
    );
}

#[test]
fn tokens_of_a_top_file() {
    check(
        r#"
#- top.sls
base:
  'web*':
    - ß_web
  'G@os:Debian and not ℝ*':
    - match: compound
    - 💣
"#,
        "top.sls",
        expect![[r#"
            Type @ top.sls:1:1 "base"
            Regexp @ top.sls:2:3 "'web*'"
            Namespace @ top.sls:3:7 "ß_web"
            Operator @ top.sls:4:4 "G@"
            Regexp @ top.sls:4:6 "os:Debian"
            Keyword @ top.sls:4:16 "and"
            Keyword @ top.sls:4:20 "not"
            Regexp @ top.sls:4:24 "ℝ*"
            Keyword @ top.sls:5:7 "match"
            EnumMember @ top.sls:5:14 "compound"
            Namespace @ top.sls:6:7 "💣"
        "#]],
    );
}

#[test]
fn a_range_asks_for_the_tokens_it_meets() {
    let f = Fixture::new("#- a.sls\none: test.nop\ntwo: {{ x }}\nthree: test.nop\n");
    let a = f.analysis();
    let path = ws("a.sls");
    let text = a.text(&path).unwrap();
    let line2 = text.find("two").unwrap()..text.find("three").unwrap() - 1;
    let got: Vec<String> = a.semantic_tokens(&path, Some(line2)).into_iter().map(|t| format!("{:?} {}", t.kind, &text[t.range])).collect();
    expect![[r#"
        [
            "Variable two",
            "Macro {{",
            "Variable x",
            "Macro }}",
        ]
    "#]]
    .assert_debug_eq(&got);
    assert!(got.iter().all(|t| !t.contains("one") && !t.contains("three")));
    let _ = TokenType::Namespace;
}

#[test]
fn a_pillar_file_has_its_jinja_coloured_not_states() {
    let tree = r#"
#- salt-analyzer.yaml
file_roots: {base: [salt]}
pillar_roots: {base: [pillar]}
#- pillar/top.sls
base:
  '*':
    - ß_data
#- pillar/ß_data.sls
ℝ_key:
  port: {{ 80 }}
"#;
    check(
        tree,
        "pillar/ß_data.sls",
        expect![[r#"
            Macro @ pillar/ß_data.sls:2:9 "{{"
            Number @ pillar/ß_data.sls:2:12 "80"
            Macro @ pillar/ß_data.sls:2:15 "}}"
        "#]],
    );
    check(
        tree,
        "pillar/top.sls",
        expect![[r#"
            Type @ pillar/top.sls:1:1 "base"
            Regexp @ pillar/top.sls:2:3 "'*'"
            Namespace @ pillar/top.sls:3:7 "ß_data"
        "#]],
    );
}
