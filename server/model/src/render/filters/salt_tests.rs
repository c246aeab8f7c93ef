//! One test per filter: the template, and the text Salt 3008.4 printed for it with
//! `salt.utils.templates.render_jinja_tmpl(template, context)` (context: `opts` from
//! `salt.config.minion_config(None)` with `file_client: local`, `saltenv: base`, grains
//! `{os: Debian}`, `generate_sls_context` for `web/tls.sls`). Structured results go through
//! `| json` so that both sides print them the same way.

use std::sync::Arc;

use crate::render::context::JinjaContext;
use crate::render::jinja::render;

fn run(src: &str) -> String {
    let ctx = JinjaContext {
        grains: crate::workspace::facts::Data::new(crate::workspace::facts::Which::Grains, serde_json::json!({"os": "Debian"})),
        pillar: crate::workspace::facts::Data::new(crate::workspace::facts::Which::Pillar, serde_json::json!({})),
        opts: crate::workspace::facts::Data::new(crate::workspace::facts::Which::Opts, serde_json::json!({})),
        saltenv: "base".into(),
        sls: "web.tls".into(),
        tplfile: "web/tls.sls".into(),
        tplpath: "/srv/salt/web/tls.sls".into(),
        extra: Vec::new(),
        map_data: None,
        functions: serde_json::Value::Null,
        list_states: None,
        template_pillar: None,
        budget: crate::render::budget::DEFAULT,
        version: Default::default(),
        exec: None,
        loader: Arc::new(|_| None),
        probe: None,
        trace: None,
        matcher: None,
    };
    render(src, &ctx).map(|r| r.text).unwrap_or_else(|e| format!("ERROR {}", e.message))
}

#[test]
fn yaml() {
    assert_eq!(
            run("{{ {'b': [1, 'ß'], 'a': {'k': 'yes', 'n': none}, 'ℝ': '💣'} | yaml }}|{{ {'b': [1, 'ß'], 'a': {'k': 'yes'}} | yaml(False) }}|{{ 'x' | yaml }}|{{ none | yaml }}|{{ [] | yaml(flow_style=False) }}"),
            "{a: {k: 'yes', n: null}, b: [1, ß], ℝ: \"\\U0001F4A3\"}|a:\n  k: 'yes'\nb:\n- 1\n- ß|x|null|[]"
        );
}

#[test]
fn json() {
    assert_eq!(
            run("{{ {'b': 1, 'a': ['ß', 'ℝ', '💣', none, true, 1.5]} | json }}|{{ {'b': 1, 'a': 2} | json(sort_keys=False) }}|{{ [1, {'a': 'x'}] | json(indent=2) }}|{{ 'x' | json }}"),
            "{\"a\": [\"ß\", \"ℝ\", \"💣\", null, true, 1.5], \"b\": 1}|{\"b\": 1, \"a\": 2}|[\n  1,\n  {\n    \"a\": \"x\"\n  }\n]|\"x\""
        );
}

#[test]
fn tojson() {
    assert_eq!(
            run("{{ {'b': 1, 'a': ['ß', 'ℝ', '💣', \"<&'>\"]} | tojson }}|{{ {'b': 1, 'a': 2} | tojson(sort_keys=True) }}|{{ [1] | tojson(indent=1) }}|{{ {'ß': 1} | tojson(ensure_ascii=False) }}"),
            "{\"b\": 1, \"a\": [\"\\u00df\", \"\\u211d\", \"\\ud83d\\udca3\", \"\\u003c\\u0026\\u0027\\u003e\"]}|{\"a\": 2, \"b\": 1}|[\n 1\n]|{\"ß\": 1}"
        );
}

#[test]
fn regex_replace() {
    assert_eq!(
            run("{{ 'lets replace spaces' | regex_replace('\\s+', '__') }}|{{ 'abxd' | regex_replace('x*', '-') }}|{{ 'ab\\nAB' | regex_replace('^a', 'Z', ignorecase=True, multiline=True) }}|{{ 'john smith' | regex_replace('(\\w+) (?P<last>\\w+)', '\\g<last>, \\\\1') }}|{{ 'ß-ℝ-💣' | regex_replace('-', '💣') }}|{{ 'xx' | regex_replace('x*?', '-') }}|{{ 'abc' | regex_replace('', '-') }}|{{ 'abc' | regex_replace('(?P<x>b)', '[\\g<x>\\g<0>\\g<1>]') }}|{{ 'a1b22' | regex_replace('\\d', '\\\\t') }}"),
            "lets__replace__spaces|-a-b--d-|Zb\nZB|smith, john|ß💣ℝ💣💣|-----|-a-b-c-|a[bbb]c|a\tb\t\t"
        );
}

#[test]
fn regex_search() {
    assert_eq!(
            run("{{ 'abcd' | regex_search('^(.*)BC(.*)$', ignorecase=True) | json }}|{{ 'abcd' | regex_search('bc') | json }}|{{ 'abcd' | regex_search('x') | json }}|{{ 'ß ℝ 💣' | regex_search('(\\w+) (\\w+)') | json }}|{{ 'x\\nab' | regex_search('^a(b)?$', multiline=True) | json }}"),
            "[\"a\", \"d\"]|[\"bc\"]|null|[\"ß\", \"ℝ\"]|[\"b\"]"
        );
}

#[test]
fn regex_match() {
    assert_eq!(
            run("{{ 'abcd' | regex_match('bc') | json }}|{{ 'abcd' | regex_match('(a)(x)?') | json }}|{{ 'ABcd' | regex_match('ab', ignorecase=True) | json }}|{{ 'ß💣' | regex_match('\\w(.)') | json }}"),
            "null|[\"a\", null]|[\"AB\"]|[\"💣\"]"
        );
}

#[test]
fn regex_escape() {
    assert_eq!(run("{{ 'a.b*c ß' | regex_escape }}"), "a\\.b\\*c\\ ß");
}

#[test]
fn traverse() {
    assert_eq!(
            run("{{ {'a': {'b': [1, {'c': 'x'}]}} | traverse('a:b:1:c') }}|{{ {'a': {'b': [1, {'c': 'x'}]}} | traverse('a:b:c') }}|{{ {'a': 1} | traverse('z', 'def') }}|{{ {'a': {'b': 1}} | traverse('a/b', delimiter='/') }}|{{ {'a': [5, 6]} | traverse('a:-1') }}|{{ {'a': {1: 'int'}} | traverse('a:1') }}|{{ {'a': 1} | traverse('z') | json }}|{{ {'a': 'str'} | traverse('a:b', 'd') }}|{{ {'ß': {'ℝ': '💣'}} | traverse('ß:ℝ') }}|{{ {'a': [{'k': 1}]} | traverse(['a', 0, 'k']) }}|{{ {'a': [5]} | traverse('a:7', 'out') }}"),
            "x|x|def|1|6|int|null|d|💣|1|out"
        );
}

#[test]
fn load_yaml() {
    assert_eq!(
            run("{{ \"{'a': 1, 'b': [x, y]}\" | load_yaml | json }}|{{ '' | load_yaml | json }}|{{ 'a: 0755\\nb: 1e3\\nc: 2001-01-01\\nd: yes\\ne: ß' | load_yaml | json }}"),
            "{\"a\": 1, \"b\": [\"x\", \"y\"]}|null|{\"a\": 755, \"b\": \"1e3\", \"c\": \"2001-01-01\", \"d\": true, \"e\": \"ß\"}"
        );
}

#[test]
fn load_json() {
    assert_eq!(run("{{ '{\"b\": 1, \"a\": [1.5, \"ℝ\"]}' | load_json | json(sort_keys=False) }}"), "{\"b\": 1, \"a\": [1.5, \"ℝ\"]}");
}

#[test]
fn load_text() {
    assert_eq!(run("{{ 'ß x' | load_text }}"), "ß x");
}

#[test]
fn to_bool() {
    assert_eq!(
            run("{{ 'yes' | to_bool }}|{{ 'On' | to_bool }}|{{ 'TRUE' | to_bool }}|{{ '1' | to_bool }}|{{ 'y' | to_bool }}|{{ 0 | to_bool }}|{{ 2 | to_bool }}|{{ -1 | to_bool }}|{{ [] | to_bool }}|{{ [0] | to_bool }}|{{ {} | to_bool }}|{{ none | to_bool }}|{{ 1.5 | to_bool }}|{{ true | to_bool }}|{{ '' | to_bool }}|{{ 'ß' | to_bool }}"),
            "True|False|True|True|False|False|True|False|False|True|False|False|False|True|False|False"
        );
}

#[test]
fn yaml_dquote() {
    assert_eq!(
            run("{{ 'a\"b\\\\c\\nß ℝ 💣\\t' | yaml_dquote }}|{{ 5 | yaml_dquote }}|{{ ('word ' * 20) | yaml_dquote }}"),
            "\"a\\\"b\\\\c\\n\\xDF \\u211D \\U0001F4A3\\t\"|\"5\"|\"word word word word word word word word word word word word word word word word word word word word \""
        );
}

#[test]
fn yaml_squote() {
    assert_eq!(run("{{ \"it's ß ℝ 💣\" | yaml_squote }}|{{ 'a\\nb' | yaml_squote }}|{{ 5 | yaml_squote }}"), "'it''s ß ℝ 💣'|'a\n\nb'|'5'");
}

#[test]
fn yaml_encode() {
    assert_eq!(
        run("{{ 'ß ℝ 💣' | yaml_encode }}|{{ false | yaml_encode }}|{{ none | yaml_encode }}|{{ 1e17 | yaml_encode }}|{{ 7 | yaml_encode }}"),
        "\"\\xDF \\u211D \\U0001F4A3\"|false|null|1.0e+17|7"
    );
}

#[test]
fn unique() {
    assert_eq!(
        run("{{ [1, 2, 1, 'a', 'a', [1], [1], 'ß', 'ß'] | unique | json }}|{{ {'b': 1, 'a': 2} | unique | json }}|{{ 'abca' | unique | sort | json }}"),
        "[1, 2, \"a\", [1], \"ß\"]|[\"b\", \"a\"]|[\"a\", \"b\", \"c\"]"
    );
}

#[test]
fn union() {
    assert_eq!(
        run("{{ [1, 2, 3, 4] | union([2, 4, 6]) | json }}|{{ [1, 1, 'ß'] | union(['ß', 'ℝ']) | json }}|{{ 'ab' | union('bc') | sort | json }}"),
        "[1, 2, 3, 4, 6]|[1, \"ß\", \"ℝ\"]|[\"a\", \"b\", \"c\"]"
    );
}

#[test]
fn intersect() {
    assert_eq!(run("{{ [1, 2, 3, 4] | intersect([2, 4, 6]) | json }}|{{ ['ß', 'ℝ', 'ß'] | intersect(['ß']) | json }}"), "[2, 4]|[\"ß\"]");
}

#[test]
fn difference() {
    assert_eq!(run("{{ [1, 2, 3, 4] | difference([2, 4, 6]) | json }}|{{ ['ß', 'ℝ', '💣'] | difference(['ℝ']) | json }}"), "[1, 3]|[\"ß\", \"💣\"]");
}

#[test]
fn symmetric_difference() {
    assert_eq!(
        run("{{ [1, 2, 3, 4] | symmetric_difference([2, 4, 6]) | json }}|{{ ['ß', 'ℝ'] | symmetric_difference(['ℝ', '💣']) | json }}"),
        "[1, 3, 6]|[\"ß\", \"💣\"]"
    );
}

#[test]
fn is_list() {
    assert_eq!(run("{{ [1] | is_list }}|{{ 'x' | is_list }}|{{ {} | is_list }}|{{ none | is_list }}"), "True|False|False|False");
}

#[test]
fn is_iter() {
    assert_eq!(run("{{ [1] | is_iter }}|{{ 'x' | is_iter }}|{{ {} | is_iter }}|{{ 1 | is_iter }}|{{ none | is_iter }}"), "True|False|True|False|False");
}

#[test]
fn sequence() {
    assert_eq!(
            run("{{ 'foo' | sequence | json }}|{{ ['bar'] | sequence | json }}|{{ {'baz': 'qux'} | sequence | json }}|{{ none | sequence | json }}|{{ 1 | sequence | json }}"),
            "[\"foo\"]|[\"bar\"]|{\"baz\": \"qux\"}|[null]|[1]"
        );
}

#[test]
fn path_join() {
    assert_eq!(
            run("{{ '/a' | path_join('b', '/c') }}|{{ 'a' | path_join('b/../c', 'd/') }}|{{ '' | path_join('x') }}|{{ 'ß' | path_join('ℝ', '💣') }}|{{ '/a/' | path_join }}|{{ 'a//b' | path_join('./c') }}|{{ '//x' | path_join('..', '..', 'y') }}|{{ 'a' | path_join('../../b') }}"),
            "/a/b/c|a/c/d|x|ß/ℝ/💣|/a|a/b/c|//y|../b"
        );
}

#[test]
fn flatten() {
    assert_eq!(
            run("{{ [3, [4, 2]] | flatten | json }}|{{ [3, [4, [2]]] | flatten(levels=1) | json }}|{{ [3, None, [4, [2]]] | flatten(levels=1, preserve_nulls=True) | json }}|{{ [3, None, 'None', 'null', [None, 'x']] | flatten | json }}|{{ [[{'a': 1}], 'ab', ['ß']] | flatten | json }}"),
            "[3, 4, 2]|[3, 4, [2]]|[3, null, 4, [2]]|[3, \"x\"]|[\"a\", \"ab\", \"ß\"]"
        );
}

#[test]
fn to_num() {
    assert_eq!(
            run("{{ '5' | to_num }}|{{ '5.5' | to_num }}|{{ 'x' | to_num }}|{{ ' 7 ' | to_num }}|{{ '1_000' | to_num }}|{{ '1e3' | to_num }}|{{ 'inf' | to_num }}|{{ 5 | to_num }}|{{ '0x10' | to_num }}|{{ 'ß' | to_num }}|{{ 3.7 | to_num }}"),
            "5|5.5|x|7|1000|1000.0|inf|5|0x10|ß|3"
        );
}

#[test]
fn str_to_num() {
    assert_eq!(run("{{ '-12' | str_to_num + 1 }}|{{ '2.5' | str_to_num * 2 }}|{{ 'ℝ' | str_to_num }}"), "-11|5.0|ℝ");
}

#[test]
fn quote() {
    assert_eq!(
        run("{{ 'my_text' | quote }}|{{ \"it's\" | quote }}|{{ '' | quote }}|{{ 'a-b/c.d:e=f@g%h+i,j' | quote }}|{{ 'ß' | quote }}|{{ 'a b' | quote }}"),
        "my_text|'it'\"'\"'s'|''|a-b/c.d:e=f@g%h+i,j|'ß'|'a b'"
    );
}

#[test]
fn tests() {
    assert_eq!(
            run("{{ 1 is equalto 1 }}|{{ 1 is equalto 1.0 }}|{{ 'a' is equalto 'a' }}|{{ [1, 'ß'] is equalto [1, 'ß'] }}|{{ 'abc' is match('b') }}|{{ 'abc' is match('A', ignorecase=True) }}|{{ 'x\\nabc' is match('^a', multiline=True) }}|{{ 'ßx' is match('\\w') }}|{{ [1] is list }}|{{ 'x' is list }}|{{ {} is list }}"),
            "True|True|True|True|False|True|False|True|True|False|False"
        );
}

#[test]
fn indent() {
    assert_eq!(
            run("[{{ 'a\\nb\\n\\nc' | indent }}]|[{{ 'a\\nb' | indent(2, true) }}]|[{{ 'a\\n\\nb' | indent(2, blank=true) }}]|[{{ 'a\\nb\\n' | indent(first=true) }}]|[{{ 'a\\nb' | indent('> ') }}]|[{{ 'ß\\nℝ\\r\\n💣' | indent(1) }}]"),
            "[a\n    b\n\n    c]|[  a\n  b]|[a\n  \n  b]|[    a\n    b\n]|[a\n> b]|[ß\n ℝ\n 💣]"
        );
}

#[test]
fn default() {
    assert_eq!(
            run("{{ '' | default('d') }}|{{ '' | default('d', true) }}|{{ none | default('d') }}|{{ none | default('d', true) }}|{{ 0 | default('d', true) }}|{{ undefined_x | default('ß') }}|{{ false | d('x', true) }}|{{ [] | default([1], boolean=true) | json }}|{{ '' | default('d', boolean=false) }}"),
            "|d|None|d|d|ß|x|[1]|"
        );
}

#[test]
fn join() {
    assert_eq!(
            run("{{ {'b': 1, 'a': 2} | join(',') }}|{{ 'abc' | join('-') }}|{{ [1, 'ß', none, true, 1.5] | join }}|{{ [{'a': 1}, {'a': 2}] | join(',', attribute='a') }}|{{ ['ℝ', '💣'] | join(d='+') }}"),
            "b,a|a-b-c|1ßNoneTrue1.5|1,2|ℝ+💣"
        );
}

#[test]
fn list() {
    assert_eq!(
        run("{{ 'abc' | list | json }}|{{ {'b': 1, 'a': 2} | list | json }}|{{ 'ßℝ💣' | list | json }}"),
        "[\"a\", \"b\", \"c\"]|[\"b\", \"a\"]|[\"ß\", \"ℝ\", \"💣\"]"
    );
}

#[test]
fn int() {
    assert_eq!(
            run("{{ 3.7 | int }}|{{ '3.7' | int }}|{{ '42' | int }}|{{ 'x' | int }}|{{ 'x' | int(5) }}|{{ '0x1A' | int(0, 16) }}|{{ '0x1A' | int(base=16) }}|{{ '0b11' | int(0, 2) }}|{{ ' 7 ' | int }}|{{ '1_000' | int }}|{{ -3.7 | int }}|{{ true | int }}|{{ none | int }}|{{ '1e3' | int }}|{{ '12abc' | int }}|{{ 'ß' | int }}"),
            "3|3|42|0|5|26|26|3|7|1000|-3|1|0|1000|0|0"
        );
}

#[test]
fn float() {
    assert_eq!(
            run("{{ '3' | float }}|{{ 'x' | float }}|{{ '1e3' | float }}|{{ 3 | float }}|{{ ' 2.5 ' | float }}|{{ 'inf' | float }}|{{ '1_0.5' | float }}|{{ 'ß' | float(1.5) }}"),
            "3.0|0.0|1000.0|3.0|2.5|inf|10.5|1.5"
        );
}

#[test]
fn string() {
    assert_eq!(
            run("{{ 42 | string }}|{{ none | string }}|{{ [1, 'a'] | string }}|{{ true | string }}|{{ 'ß' | string }}|{{ {'a': none} | string }}|{{ 1.0 | string }}"),
            "42|None|[1, 'a']|True|ß|{'a': None}|1.0"
        );
}

#[test]
fn format() {
    assert_eq!(
            run("{{ '%s-%d' | format('a', 3) }}|{{ '%s' | format([1, 'a']) }}|{{ '%5.2f|%x|%05d|%-4s|%r' | format(3.14159, 255, 42, 'ab', 'ß') }}|{{ '%(a)s' | format(a=1) }}|{{ '%s %s' | format(1.0, True) }}|{{ '%d' | format(3.9) }}|{{ '%i%%' | format(5) }}|{{ '%s' | format(none) }}|{{ '%s|%s' | format('ℝ', '💣') }}"),
            "a-3|[1, 'a']| 3.14|ff|00042|ab  |'ß'|1|1.0 True|3|5%|None|ℝ|💣"
        );
}

#[test]
fn format_conversions() {
    assert_eq!(
            run("{{ '%e|%E|%g|%G|%.3g|%10.4e|%#x|%#o|%+d|% d|%-6d|%06.2f|%c|%c|%.2s|%5s|%-5s|%a' | format(1234.5, 0.000012, 1234567.0, 1e-5, 3.14159, 12345.678, 255, 8, 5, 5, 42, -3.14159, 65, 'z', 'ßℝ💣', 'ß', 'ℝ', 'ß') }}|{{ '%g|%g|%g|%g|%#g|%g|%g|%f' | format(100000.0, 1000000.0, 0.0001, 0.00001, 1.5, 1e16, 1.0, -0.0) }}|{{ '%(a)s %(b)05.1f' | format(a='ß', b=2.25) }}|{{ '%*d|%.*f' | format(5, 42, 2, 3.14159) }}|{{ '%x|%o' | format(-255, -8) }}|{{ '%s' | format(none) }}|{{ 'no args' | format }}|{{ '%%' | format }}|{{ '%5.1s|' | format(true) }}|{{ '%d %s' | format(true, {'a': [1, none]}) }}|{{ '%r' | format({'a': 'x'}) }}|{{ '%.0f|%.0f|%.0f|%.1f' | format(0.5, 1.5, 2.5, 0.25) }}|{{ '%.3e' | format(0) }}|{{ '%g' | format(123456789) }}|{{ '%s' | format(1e22) }}"),
            "1.234500e+03|1.200000E-05|1.23457e+06|1E-05|3.14|1.2346e+04|0xff|0o10|+5| 5|42    |-03.14|A|z|ßℝ|    ß|ℝ    |'\\xdf'|100000|1e+06|0.0001|1e-05|1.50000|1e+16|1|-0.000000|ß 002.2|   42|3.14|-ff|-10|None|no args|%|    T||1 {'a': [1, None]}|{'a': 'x'}|0|2|2|0.2|0.000e+00|1.23457e+08|1e+22"
        );
}

#[test]
fn round() {
    assert_eq!(
            run("{{ 2.675 | round(99999) }}|{{ 2.675 | round(2) }}|{{ 2.5 | round }}|{{ 3.5 | round }}|{{ 7.3 | round(0, 'ceil') }}|{{ 7.7 | round(method='floor') }}|{{ 5 | round }}|{{ -2.5 | round }}|{{ 1234.5678 | round(-2) }}|{{ 0.125 | round(2) }}|{{ 2.567 | round(1, 'floor') }}"),
            "2.675|2.67|2.0|4.0|8.0|7.0|5|-2.0|1200.0|0.12|2.5"
        );
}

#[test]
fn replace() {
    assert_eq!(
            run("{{ 'a-b-c-d' | replace('-', '_', 2) }}|{{ 'a-b' | replace('-', '+') }}|{{ 'ab' | replace('', '.') }}|{{ 'ab' | replace('', '.', 1) }}|{{ 5 | replace('5', 'ß') }}|{{ 'ßℝß' | replace('ß', '💣') }}"),
            "a_b_c-d|a+b|.a.b.|.ab|ß|💣ℝ💣"
        );
}

#[test]
fn dictsort() {
    assert_eq!(
            run("{{ {'b': 1, 'A': 2, 'a': 3, 'ß': 0} | dictsort | json }}|{{ {'b': 1, 'A': 2, 'a': 3} | dictsort(true) | json }}|{{ {'b': 1, 'A': 2, 'a': 3} | dictsort(by='value', reverse=true) | json }}"),
            "[[\"A\", 2], [\"a\", 3], [\"b\", 1], [\"ß\", 0]]|[[\"A\", 2], [\"a\", 3], [\"b\", 1]]|[[\"a\", 3], [\"A\", 2], [\"b\", 1]]"
        );
}

#[test]
fn more_tests() {
    assert_eq!(
        run("{{ range is callable }}|{{ 'x' is callable }}|{{ {} is callable }}|{{ 6 is divisibleby 3 }}|{{ 7 is divisibleby(3) }}"),
        "True|False|False|True|False"
    );
}

#[test]
fn type_tests() {
    assert_eq!(
            run("{% for v in ['abc', 3, 1.5, true, none, [1], {'a': 1}, 'ß'] %}{{ v is number }} {{ v is sequence }} {{ v is iterable }} {{ v is mapping }} {{ v is string }} {{ v is integer }} {{ v is float }} {{ v is boolean }};{% endfor %}"),
            "False True True False True False False False;True False False False False True False False;True False False False False False True False;True False False False False False False True;False False False False False False False False;False True True False False False False False;False True True True False False False False;False True True False True False False False;"
        );
}

#[test]
fn filesizeformat() {
    assert_eq!(
            run("{{ 1536000 | filesizeformat }}|{{ 1536000 | filesizeformat(true) }}|{{ 1 | filesizeformat }}|{{ 999 | filesizeformat }}|{{ 1000 | filesizeformat }}|{{ 1024 | filesizeformat(binary=true) }}|{{ '2048' | filesizeformat }}|{{ (10 ** 30) | filesizeformat }}|{{ 0.5 | filesizeformat }}"),
            "1.5 MB|1.5 MiB|1 Byte|999 Bytes|1.0 kB|1.0 KiB|2.0 kB|1000000.0 YB|0 Bytes"
        );
}

#[test]
fn hashes() {
    assert_eq!(
            run("{{ 'abc' | md5 }}|{{ 'ß' | sha1 }}|{{ 'ß' | sha256 }}|{{ 'ℝ💣' | sha512 }}|{{ '' | md5 }}"),
            "900150983cd24fb0d6963f7d28e17f72|00b39d61cc9b61a36437c4de643ec56b831e36d5|cd3a7e92a9114307055e4a0583acd6549ec3bb6d7c10ecc6ce11ae3d76b3d7db|563d678ee2240892a6b898f38f3ffe2f9ac14c1133c09766cc20ec2524ed17ffe86216d486e0db0b29d723453ceb5b0d6e7625987aa1c0752a50e2f93a0d96c5|d41d8cd98f00b204e9800998ecf8427e"
        );
}

#[test]
fn base64() {
    assert_eq!(
            run("{{ 'ß ℝ 💣' | base64_encode }}|{{ 'w58=' | base64_decode }}|{{ 'w5 8=' | base64_decode }}|{{ '' | base64_encode }}|{{ 'aGVsbG8=' | base64_decode }}"),
            "w58g4oSdIPCfkqM=|ß|ß||hello"
        );
}

#[test]
fn uuid() {
    assert_eq!(run("{{ 'example' | uuid }}|{{ 'ß' | uuid }}"), "9ade8beb-355a-50d8-9011-1c99848a7719|a57b0635-1c37-55e3-a1a8-35460f7abbbc");
}

/// Salt's error text (the part after `Jinja error: `) is in ours.
#[test]
fn errors_carry_pythons_words() {
    let cases: &[(&str, &str)] = &[
        ("{{ '%d' | format('x') }}", "%d format: a real number is required, not str"),
        ("{{ '%s %s' | format('x') }}", "not enough arguments for format string"),
        ("{{ '%s' | format('ß', 'x') }}", "not all arguments converted during string formatting"),
        ("{{ '%q' | format('x') }}", "unsupported format character 'q' (0x71) at index 1"),
        ("{{ '%x' | format(2.5) }}", "%x format: an integer is required, not float"),
        ("{{ 'a' | regex_replace('(a)|b', '[\\\\2]') }}", "invalid group reference 2 at position 2"),
        ("{{ 'a' | regex_replace('a', '\\\\q') }}", "bad escape \\q at position 0"),
        ("{{ 5 | regex_search('x') }}", "expected string or bytes-like object, got 'int'"),
        ("{{ nope | yaml }}", "Jinja variable 'nope' is undefined"),
        ("{{ nope | traverse('a') }}", "Jinja variable 'nope' is undefined"),
        ("{{ nope | int }}", "Jinja variable 'nope' is undefined"),
        // Salt: "expected string or bytes-like object, got 'StrictUndefined'".
        ("{{ nope | regex_replace('a', 'b') }}", "got 'StrictUndefined'"),
        ("{{ [] | yaml_encode }}", "yaml_encode() only works with YAML scalar data; failed for <class 'list'>"),
        ("{{ 'w58' | base64_decode }}", "Incorrect padding"),
        ("{{ 5 | md5 }}", "expected str, bytes, or bytearray not <class 'int'>"),
        // Python would try to allocate these; ours refuses past a million characters.
        ("{{ '%99999999999s' | format('x') }}", "width too big"),
        ("{{ '%.99999999999f' % 1.5 }}", "precision too big"),
        ("{{ 'x' | center(99999999999) }}", "width too big"),
        ("{{ 'a\\nb' | indent(99999999999) }}", "width too big"),
        ("{{ {} | json(indent=99999999999) }}", "width too big"),
    ];
    for (src, msg) in cases {
        let out = run(src);
        assert!(out.starts_with("ERROR") && out.contains(msg), "{src}: {out}");
    }
}

/// Host-touching and random filters never run: an inert value and a hint each. (Salt, on
/// a host without `x` on its PATH and no file `f`: `None|False`.)
#[test]
fn host_filters_are_inert_with_a_hint() {
    let ctx = JinjaContext {
        grains: crate::workspace::facts::Data::new(crate::workspace::facts::Which::Grains, serde_json::json!({})),
        pillar: crate::workspace::facts::Data::new(crate::workspace::facts::Which::Pillar, serde_json::json!({})),
        opts: crate::workspace::facts::Data::new(crate::workspace::facts::Which::Opts, serde_json::json!({})),
        saltenv: "base".into(),
        sls: String::new(),
        tplfile: "top.sls".into(),
        tplpath: "/srv/salt/top.sls".into(),
        extra: Vec::new(),
        map_data: None,
        functions: serde_json::Value::Null,
        list_states: None,
        template_pillar: None,
        budget: crate::render::budget::DEFAULT,
        version: Default::default(),
        exec: None,
        loader: Arc::new(|_| None),
        probe: None,
        trace: None,
        matcher: None,
    };
    let r = render("{{ 'x' | which }}|{{ 'f' | is_bin_file }}|{{ [1, 2] | random_shuffle | json }}|{{ 'h' | http_query | json }}|{{ rand_str is defined }}|{{ [3, 1] | random }}", &ctx).unwrap();
    assert_eq!(r.text, "None|False|[1, 2]|{}|False|3");
    assert_eq!(r.hints.len(), 5, "{:?}", r.hints);
    assert!(r.hints[0].contains("`which` filter"), "{:?}", r.hints);
}

#[test]
fn case_and_sorting() {
    assert_eq!(
            run("{{ 'camelCaseName' | to_snake_case }}|{{ 'HTTPServerError' | to_snake_case }}|{{ 'ABC' | to_snake_case }}|{{ 'snake_case_ßx' | to_camelcase }}|{{ 'snake_case' | to_camelcase(true) }}|{{ ['b', 'A', 'c', 'B', 'a'] | sorted_ignorecase | json }}"),
            "camel_case_name|http_server_error|abc|snakeCaseSsx|SnakeCase|[\"A\", \"a\", \"b\", \"B\", \"c\"]"
        );
}

#[test]
fn ip_filters() {
    assert_eq!(
            run("{{ '10.0.0.1' | is_ip }}|{{ '::1' | is_ip }}|{{ '10.0.0.0/24' | is_ipv4 }}|{{ 'x' | is_ip }}|{{ '::1' | is_ipv4 }}|{{ '127.0.0.1' | is_ip('loopback') }}|{{ '10.0.0.1' | is_ip('loopback') }}|{{ 5 | is_ip }}|{{ '::1' | ipwrap }}|{{ '10.0.0.1' | ipwrap }}|{{ ['2001:DB8::1', 'x'] | ipwrap | json }}|{{ '[::1]' | ipwrap }}"),
            "True|True|True|False|False|True|False|True|[::1]|10.0.0.1|[\"[2001:db8::1]\", \"x\"]|[::1]"
        );
}

#[test]
fn dict_to_sls_yaml_params() {
    assert_eq!(run("{{ {'name': '/etc/x', 'mode': '0644', 'n': 1} | dict_to_sls_yaml_params }}"), "- name: /etc/x\n- mode: '0644'\n- n: 1");
}

#[test]
fn jinja_string_builtins() {
    assert_eq!(
            run("[{{ 'x' | center(6) }}]|[{{ 'ab' | center(5) }}]|{{ 'foo bar baz qux' | truncate(9) }}|{{ 'foo bar baz qux' | truncate(9, True) }}|{{ 'foo bar baz qux' | truncate(11) }}|{{ 'foo bar baz qux' | truncate(11, False, '...', 0) }}|{{ 'a, b_c ß-d 12' | wordcount }}|{{ '<b>x</b>  y &amp; &lt;z&gt; <!-- c --> &#65;' | striptags }}|{{ 'sALT ßx' | capitalize }}|{{ 'salt-stack (ßx) a_b' | title }}|{{ 'hello wORLD 1st' .title() }}"),
            "[  x   ]|[  ab ]|foo...|foo ba...|foo bar baz qux|foo bar...|5|x y & <z> A|Salt ßx|Salt-Stack (SSx) A_b|Hello World 1St"
        );
}

#[test]
fn json_query() {
    assert_eq!(
            run("{{ {'b': [{'n': 'x', 'e': true, 'p': 1}, {'n': 'y', 'e': false, 'p': 2.5}]} | json_query('b[?e].n') | json }}|{{ {'a': [1, 2, 3]} | json_query('a[1:]') }}|{{ {'a': [{'z': 1, 'y': 2}]} | json_query('a[0]') }}|{{ [1, 2] | json_query('length(@)') }}|{{ {'a': 'x'} | json_query('b') }}"),
            "[\"x\"]|[2, 3]|{'z': 1, 'y': 2}|2|None"
        );
}

#[test]
fn urlencode_and_xmlattr() {
    assert_eq!(
            run("{{ 'a b&c/ß' | urlencode }}|{{ {'a': 1, 'b c': 'x/y'} | urlencode }}|{{ [('k', 'v w')] | urlencode }}|{{ 5 | urlencode }}|{{ {'a': 1, 'b': none, 'c': 'x\"<y'} | xmlattr }}|{{ {'a': 'q'} | xmlattr(false) }}"),
            "a%20b%26c/%C3%9F|a=1&b+c=x%2Fy|k=v+w|5| a=\"1\" c=\"x&#34;&lt;y\"|a=\"q\""
        );
}

#[test]
fn salt_list_and_text_helpers() {
    assert_eq!(
            run("{{ ['b', 'a', 'C'] | min }}|{{ ['b', 'a', 'C'] | max }}|{{ 'hello' | max }}|{{ {'b': 1, 'a': 2} | min }}|{{ [1, 2.5, 3] | avg }}|{{ 4 | avg }}|{{ [true, 0] | max }}"),
            "C|b|o|a|2.1666666666666665|4.0|True"
        );
    assert_eq!(
            run("{{ 'ff' | is_hex }}|{{ 'xz' | is_hex }}|{{ 5 | is_hex }}|{{ '0x1F' | is_hex }}|{{ 'a b' | contains_whitespace }}|{{ 'ab' | contains_whitespace }}|{{ 'ab' | substring_in_list(['xaby', 'z']) }}|{{ [0, 1, none] | exactly_one_true }}|{{ [1, 1, 0] | exactly_n_true(2) }}|{{ 'x' | skip }}|{{ {'a': 1} | to_entries }}|{{ ['x'] | to_entries }}|{{ [{'key': 'a', 'value': 1}, {'Name': 'b', 'Value': 2}, {'key': '', 'value': 3}] | from_entries }}"),
            "True|False|False|True|True|False|True|True|True||[{'key': 'a', 'value': 1}]|[{'key': 0, 'value': 'x'}]|{'a': 1, 'b': 2}"
        );
    assert!(run("{{ [] | min }}").contains("min() arg is an empty sequence"));
    assert!(run("{{ [1, 'a'] | min }}").contains("'<' not supported between instances of 'str' and 'int'"));
}

#[test]
fn ip_address_filters() {
    assert_eq!(
            run("{{ ['10.0.0.1', '8.8.8.8', '::1', 'fe80::1', 'x', '2001:DB8::1', '100.64.1.1', '::ffff:1.2.3.4', '192.168.1.1/24', '10.0.0.1/255.255.255.0'] | ipaddr }}"),
            "['10.0.0.1', '8.8.8.8', '100.64.1.1', '192.168.1.1/24', '10.0.0.1/24', '::1', 'fe80::1', '2001:db8::1', '::ffff:102:304']"
        );
    assert_eq!(
            run("{{ ['10.0.0.1', '8.8.8.8', '::1', 'fe80::1', '2001:DB8::1', '100.64.1.1', '::ffff:1.2.3.4', '192.168.1.1/24', '2a00:1450::1'] | ipaddr('private') }}|{{ ['10.0.0.1', '8.8.8.8', '100.64.1.1', '2a00:1450::1', '::1'] | ipaddr('global') }}"),
            "['10.0.0.1', '192.168.1.1/24', '::1', 'fe80::1', '2001:db8::1']|['8.8.8.8', '100.64.1.1', '2a00:1450::1']"
        );
    assert_eq!(
            run("{{ '10.0.0.1' | ipv4 }}|{{ '10.0.0.1' | ipv6 }}|{{ 'x' | ipaddr }}|{{ '::1' | ipaddr }}|{{ 5 | ipv4 }}|{{ ['1:0:0:1:0:0:0:1', '1:2:3:4:5:6:7:0', '0:0:1::'] | ipv6 }}"),
            "10.0.0.1|None|None|::1|None|['1:0:0:1::1', '1:2:3:4:5:6:7:0', '0:0:1::']"
        );
    assert_eq!(
            run("{{ ['240.0.0.1', 'fec0::1', 'ff02::1', '224.0.0.1', '0.0.0.0', '::', '169.254.1.1'] | map('ipaddr', 'reserved') | list }}|{{ ['fec0::1', '10.0.0.1'] | map('is_ip', 'site-local') | list }}|{{ ['ff02::1', '224.0.0.1', '10.0.0.1'] | ipaddr('multicast') }}|{{ ['0.0.0.0', '::', '1.1.1.1'] | ipaddr('unspecified') }}|{{ ['169.254.1.1', 'fe80::2'] | ipaddr('link-local') }}|{{ ['10.0.0.1', '127.0.0.1'] | ipaddr('private,loopback') }}|{{ '::ffff:10.0.0.1' | is_ip('private') }}"),
            "['240.0.0.1', None, None, None, None, '::', None]|[True, False]|['224.0.0.1', 'ff02::1']|['0.0.0.0', '::']|['169.254.1.1', 'fe80::2']|['127.0.0.1']|True"
        );
}

#[test]
fn dict_key_values_compare_and_sizes() {
    assert_eq!(
            run("{% set d = {'a': {'x': 1}, 'n': none} %}{{ d | set_dict_key_value('a:b:c', 5) }}|{{ d }}|{{ {} | update_dict_key_value('p:q', {'k': 1}) }}|{{ {'l': none} | append_dict_key_value('l', 3) }}|{{ {'l': [1]} | extend_dict_key_value('l', [2, 3]) }}|{{ {'a': 'str'} | set_dict_key_value('a/b', 1, delimiter='/') }}"),
            "{'a': {'x': 1, 'b': {'c': 5}}, 'n': None}|{'a': {'x': 1, 'b': {'c': 5}}, 'n': None}|{'p': {'q': {'k': 1}}}|{'l': [3]}|{'l': [1, 2, 3]}|{'a': {'b': 1}}"
        );
    assert!(run("{{ {'a': 1} | append_dict_key_value('a', 2) }}").contains("The last key contains a <class 'int'>, which cannot append."));
    assert_eq!(
        run("{{ [1, 2, 3] | compare_lists([2, 3, 4]) }}|{{ [1] | compare_lists([1]) }}|{{ {'a': 1, 'b': 2} | compare_dicts({'a': 1, 'b': 3}) }}"),
        "{'new': [4], 'old': [1]}|{}|{'b': {'old': 2, 'new': 3}}"
    );
    assert_eq!(
            run("{{ '2G' | human_to_bytes }}|{{ '30MB' | human_to_bytes }}|{{ '30MB' | human_to_bytes(handle_metric=true) }}|{{ '64KiB' | human_to_bytes }}|{{ '1.5k' | human_to_bytes }}|{{ '512' | human_to_bytes }}|{{ '10' | human_to_bytes('M') }}|{{ 'x' | human_to_bytes }}|{{ '5 qb' | human_to_bytes }}|{{ 2048 | human_to_bytes }}|{{ '1Y' | human_to_bytes }}"),
            "2147483648|31457280|30000000|65536|1536|512|10485760|0|0|2048|1208925819614629174706176"
        );
}

#[test]
fn wordwrap() {
    assert_eq!(
            run("{{ 'The quick brown fox jumps over the lazy dog' | wordwrap(10) }}|{{ 'a well-known\\n\\nstate-of-the-art thing' | wordwrap(12, wrapstring='<br>') }}|{{ 'abcdefghij klm' | wordwrap(4, false) }}|{{ 'x-y-z-w' | wordwrap(3, break_on_hyphens=false) }}|{{ 'a b' | wordwrap }}"),
            "The quick\nbrown fox\njumps over\nthe lazy\ndog|a well-known<br><br>state-of-<br>the-art<br>thing|abcdefghij\nklm|x-y\n-z-\nw|a b"
        );
}
