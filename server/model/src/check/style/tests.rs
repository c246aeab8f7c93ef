//! The style rules on texts salt-lint 0.9.2 was run on (its findings in each test's comment).

use std::path::Path;

use super::rule::{py_line_count, PyLines};
use super::*;

fn all_on() -> Rules {
    Rules::default().with_salt_lint("{}")
}

fn run(path: &str, text: &str, rules: &Rules) -> String {
    lint(Path::new(path), text, rules, path)
        .iter()
        .map(|d| {
            let id = d.message.rsplit_once("(salt-lint ").map_or("", |(_, id)| id.trim_end_matches(')'));
            format!("{}:{} {id} {:?}\n", syntax::line_index::line_number(text, d.span.start), d.code.as_str(), &text[d.span.clone()])
        })
        .collect()
}

/// Every rule fires on this text (salt-lint 0.9.2, `salt-lint ß.sls t.jinja` with the same
/// text in both: ß.sls 1 201, 4 207 210, 5 207 208, 6 208, 11 219, 14 210, 16 213, 18 216,
/// 20 217, 28 901, 29 912, 31 904, 32 202 206 209, 36 211, 37 203, 38 212, 39 204; t.jinja 1
/// 201 205, 32 202 206 209, 36 211, 38 212, 39 204). 901 is at 28, the line after `- quiet`:
/// its pattern's `\s?.*` runs over the line break.
fn every_rule() -> String {
    "web:   \n  file.managed:\n    - name: /etc/💣\n    - mode: 0644\n    - dir_mode: 755\n    - file_mode: \"644\"\n    - mode: '0644'\n    # - mode: 0644\n    - mode: 0644  # noqa 207 210\n    - context:\n      port: 80\n    - defaults:\n        port: 80\nport: 0123 {# ℝ #}\nrun:\n  cmd.wait:\n    - name: x\n    - onchange:\n      - file: web\n    - requires:\n      - file: web\n    - onchanges_in: []\n    - onchange: [] # noqa 216\nq:\n  cmd.run:\n    - name: x\n    - quiet\nbox:\n  docker.running: []\n    docker.running: []\n  virt.saved:\n{%if x%}{{x}}{#c#}\n{% raw %}\n{%if y%}\n{% endraw %}\n{{ pillar.get['a'] }}\n\ta: 1\ns:\u{a0}x\n{long}\n".replace("{long}", &"x".repeat(161))
}

#[test]
fn every_rule_as_salt_lint_finds_it() {
    let text = every_rule();
    expect_test::expect![[r#"
        1:trailing-whitespace 201 "   "
        4:file-mode-unquoted 207 "- mode: 0644"
        4:octal-unquoted 210 "- mode: 0644"
        5:file-mode-unquoted 207 "- dir_mode: 755"
        5:file-mode-leading-zero 208 "- dir_mode: 755"
        6:file-mode-leading-zero 208 "- file_mode: \"644\""
        11:nested-dict-indent 219 "port: 80"
        14:octal-unquoted 210 "port: 0123 "
        16:cmd-wait 213 "cmd.wait:"
        18:onchanges-typo 216 "- onchange:"
        20:require-typo 217 "- requires:"
        28:cmd-run-quiet 901 "box:"
        29:deprecated-state 912 "docker.running"
        31:deprecated-state 904 "virt.saved"
        32:jinja-statement-spacing 202 "{%if x%}{{x}}{#c#}"
        32:jinja-variable-spacing 206 "{%if x%}{{x}}{#c#}"
        32:jinja-comment-spacing 209 "{%if x%}{{x}}{#c#}"
        36:pillar-get-subscript 211 "{{ pillar.get['a'] }}"
        37:tab-character 203 "\t"
        38:irregular-whitespace 212 "\u{a0}"
        39:line-too-long 204 "x"
    "#]]
    .assert_eq(&run("ß.sls", &text, &all_on()));
    expect_test::expect![[r#"
        1:trailing-whitespace 201 "   "
        1:sls-extension 205 "web:   "
        32:jinja-statement-spacing 202 "{%if x%}{{x}}{#c#}"
        32:jinja-variable-spacing 206 "{%if x%}{{x}}{#c#}"
        32:jinja-comment-spacing 209 "{%if x%}{{x}}{#c#}"
        36:pillar-get-subscript 211 "{{ pillar.get['a'] }}"
        38:irregular-whitespace 212 "\u{a0}"
        39:line-too-long 204 "x"
    "#]]
    .assert_eq(&run("t.jinja", &text, &all_on()));
}

#[test]
fn defaults_report_what_salt_gets_wrong() {
    let text = every_rule();
    expect_test::expect![[r#"
        4:file-mode-unquoted 207 "- mode: 0644"
        4:octal-unquoted 210 "- mode: 0644"
        5:file-mode-unquoted 207 "- dir_mode: 755"
        11:nested-dict-indent 219 "port: 80"
        14:octal-unquoted 210 "port: 0123 "
        16:cmd-wait 213 "cmd.wait:"
        18:onchanges-typo 216 "- onchange:"
        20:require-typo 217 "- requires:"
        28:cmd-run-quiet 901 "box:"
        36:pillar-get-subscript 211 "{{ pillar.get['a'] }}"
        38:irregular-whitespace 212 "\u{a0}"
    "#]]
    .assert_eq(&run("ß.sls", &text, &Rules::default()));
    assert!(lint(Path::new("map.txt"), &text, &all_on(), "map.txt").is_empty());
}

#[test]
fn salt_lint_skips_per_id() {
    let rules = Rules::default().with_salt_lint("skip_list: [jinja, 912]\nrules:\n  204: {ignore: '*.sls'}\n");
    let found = run("ß.sls", &every_rule(), &rules);
    for gone in [" 202 ", " 206 ", " 209 ", " 211 ", " 912 ", " 204 "] {
        assert!(!found.contains(gone), "{gone} in {found}");
    }
    assert!(found.contains(" 904 ") && found.contains(" 201 "), "{found}");
}

#[test]
fn raw_blocks_keep_line_numbers() {
    // salt-lint: 206 at 1 and 6 (the raw block, greedy to the last endraw, is blanked).
    let text = "{{x}}\n{% raw %}\n{{y}}\n{% endraw %}{{ ok }}\n{% raw %}{{z}}{% endraw %}\n{{w}}\n";
    expect_test::expect![[r#"
        1:jinja-variable-spacing 206 "{{x}}"
        6:jinja-variable-spacing 206 "{{w}}"
    "#]]
    .assert_eq(&run("a.sls", text, &all_on()));
}

#[test]
fn nested_dict_windows_and_cmd_run_quiet_blocks() {
    // salt-lint: 219 at 4 only (the match at 9 holds `# noqa 219`); 901 at 16 only (the greedy
    // block runs to the last `- quiet` of the states written without a blank line between them).
    let text = "a:\n  file.managed:\n    - context:\n      x: 1\n\n    - defaults:\n        y: 2\n    - context: # noqa 219\n      z: 3\nq:\n  cmd.run:\n    - quiet\nr:\n  cmd.run:\n    - name: x\n    - quiet: True\n\n";
    expect_test::expect![[r#"
        4:nested-dict-indent 219 "x: 1"
        16:cmd-run-quiet 901 "- quiet: True"
    "#]]
    .assert_eq(&run("a.sls", text, &all_on()));
}

#[test]
fn python_line_counts() {
    assert_eq!((py_line_count("a\nb"), py_line_count("a\r\nb\n"), py_line_count("a\x0cb"), py_line_count("")), (2, 2, 2, 0));
    assert_eq!(noqa("x # noqa 201 203 # noqa 204"), vec!["201", "203"]);
    // Counted as the ends grow, a `\r\n` split between two ends is still one boundary.
    let text = "a\r\nb\x0cc\n";
    let mut lines = PyLines::new(text);
    assert_eq!((lines.count(2), lines.count(3), lines.count(5), lines.count(text.len())), (1, 1, 2, 3));
}
