//! Each template below was rendered by Salt 3008.4 for the same minion, and the `*_SALT`
//! text is what it printed, byte for byte: `salt.utils.templates.JINJA(template,
//! from_str=True, to_str=True, salt=salt.loader.minion_mods(opts), grains=..., pillar=...,
//! opts=opts, saltenv='base', sls='t')`, the registered Jinja renderer `slsutil.renderer`
//! and the state compiler use, with `opts = salt.config.minion_config(None)` plus
//! `file_client: local`, `id: m1`, the profile's grains and pillar as `opts['grains']` and
//! `opts['pillar']`, its opts merged in, and a throw-away file root (`defaults.get`'s files
//! below). Values other than strings and integers are printed through
//! `slsutil.serialize('json', ...)`, because minijinja prints `True`/`None`/dicts unlike
//! Python. `salt-call --local -c DIR slsutil.renderer path=FILE default_renderer=jinja`
//! (grains static in DIR/minion, pillar from a pillar top) printed the same text for every
//! template except `grains.items() | length`, which counts the grains salt-call computes
//! from the machine as well.

use std::sync::Arc;

use super::*;
use crate::render::context::JinjaContext;
use crate::render::jinja;

const PROFILE: &str = r#"{"grains": {"os_family": "RedHat", "os": "CentOS", "osmajorrelease": 7, "osfinger": "CentOS-7",
            "roles": ["db", "web"], "ip_interfaces": {"eth0": ["10.0.0.5"]}, "num_cpus": 4,
            "selinux": {"enabled": true}, "id": "m1", "empty": "", "zero": 0, "flag": false,
            "nested": {"list": [{"name": "a"}, {"name": "b"}]}, "shared": "fromgrains", "gonly": {"g": 1}},
 "pillar": {"nginx": {"port": 8080, "lookup": {"pkg": "nginx-custom"}, "listen": [80, 443]},
            "users": ["alice", "bob"], "master": {"mkey": "mv", "shared": "frommaster", "mdict": {"m": 1}},
            "shared": "frompillar", "pdict": {"p": 1, "both": "pillar"}, "gonly": {"p": 2},
            "word": "text", "numkey": {"1": "one"}},
 "opts": {"shared": "fromopts", "myopt": {"a": 1, "both": "opts"}, "pdict": {"o": 1, "both": "opts"}}}"#;

const FILTER_BY: &str = r#"{%- set J = salt['slsutil.serialize'] -%}
{%- set lookup = {'Debian': {'pkg': 'apache2'}, 'RedHat': {'pkg': 'httpd'}, 'default': {'pkg': 'web'}} -%}
1 {{ salt['grains.filter_by'](lookup)['pkg'] }}
2 {{ salt['grains.filter_by'](lookup, grain='os')['pkg'] }}
3 {{ salt['grains.filter_by']({'Cent*': 'glob', 'CentOS': 'exact'}, grain='os') }}
4 {{ salt['grains.filter_by']({'[DR]*': 'class'}, 'os_family') }}
5 {{ salt['grains.filter_by']({'web': 'W', 'db': 'D'}, grain='roles') }}
6 {{ salt['grains.filter_by']({'10.0.0.*': 'lan'}, grain='ip_interfaces:eth0') }}
7 {{ salt['grains.filter_by']({'7': 'seven'}, grain='osmajorrelease') }}
8 {{ J('json', salt['grains.filter_by']({'a': 1}, grain='missing')) }}
9 {{ salt['grains.filter_by']({'a': 1, 'other': 2}, grain='missing', default='other') }}
10 {{ salt['grains.filter_by']({'RedHat': None, 'default': 'dflt'}) }}
11 {{ J('json', salt['grains.filter_by']({'default': {'a': 1, 'n': {'x': 1, 'y': 1}}, 'RedHat': {'b': 2, 'n': {'y': 2}}}, base='default')) }}
12 {{ J('json', salt['grains.filter_by']({'RedHat': {'b': 2, 'l': [1]}}, merge={'l': [2], 'c': 3})) }}
13 {{ J('json', salt['grains.filter_by']({'x': 1}, grain='missing', merge={'m': 1})) }}
14 {{ J('json', salt['grains.filter_by']({'common': {'a': 1}}, grain='missing', base='common')) }}
15 {{ salt['grains.filter_by']({'RedHat': 'x', 'b': 'y'}, base='b') }}
16 {{ salt['grains.filter_by']({"{'enabled': True}": 'repr'}, grain='selinux') }}
17 {{ salt['grains.filter_by']({'False': 'f'}, grain='flag') }}
18 {{ salt['grains.filter_by']({'': 'empty', 'default': 'd'}, grain='empty') }}
19 {{ salt['grains.filter_by']({'a': 'A'}, grain='nested:list:name') }}
{%- set lk = {'RedHat': {'a': 1}} %}{% set r = salt['grains.filter_by'](lk, merge={'b': 2}) %}
20 {{ lk.RedHat.b }}
{%- set lk2 = {'RedHat': {'a': 1}} %}{% set r2 = salt['grains.filter_by'](lk2) %}{% do r2.update({'z': 9}) %}
21 {{ lk2.RedHat.z }}
22 {{ J('json', salt['grains.filter_by']({'RedHat': {'a': 1}}, merge={})) }}
23 {{ salt['grains.filter_by']({7: 'int'}, grain='osmajorrelease') }}
24 {{ J('json', salt['grains.filter_by']({'RedHat': {'a': 1}}, 'os_family', {'extra': 1})) }}
25 {{ salt.grains.filter_by({'CentOS': 'ns'}, grain='os') }}
26 {{ J('json', salt['grains.filter_by']({'default': {'a': 1}, 'RedHat': {'a': 2}}, default='default', base='default')) }}
27 {{ salt['grains.filter_by']({'C?ntOS': 'q', 'CentOS': 'x'}, grain='os') }}|{{ J('json', salt['grains.filter_by']({'centos': 'lower'}, grain='os')) }}
28 {{ J('json', salt['grains.filter_by']({'common': {'a': 1, 'l': [1]}, 'RedHat': {'l': [2]}}, base='common', merge={'l': [3]})) }}
{%- set lk3 = {'common': {'a': 1}, 'RedHat': {'b': 2}} %}{% set r3 = salt['grains.filter_by'](lk3, base='common', merge={'c': 3}) %}
29 {{ J('json', lk3) }}
"#;
const FILTER_BY_SALT: &str = r#"1 httpd
2 web
3 glob
4 class
5 D
6 lan
7 seven
8 null
9 2
10 dflt
11 {"a": 1, "n": {"x": 1, "y": 2}, "b": 2}
12 {"b": 2, "l": [2], "c": 3}
13 {"m": 1}
14 {"a": 1}
15 x
16 repr
17 f
18 empty
19 A
20 2
21 9
22 {"a": 1}
23 int
24 {"a": 1, "extra": 1}
25 ns
26 {"a": 2}
27 q|null
28 {"a": 1, "l": [3]}
29 {"common": {"a": 1}, "RedHat": {"b": 2}}
"#;

const PILLAR_GET: &str = r#"{%- set J = salt['slsutil.serialize'] -%}
1 {{ salt['pillar.get']('nginx:port') }}
2 [{{ salt['pillar.get']('nope') }}] {{ salt['pillar.get']('nope', 'd') }} {{ salt['pillar.get']('nope', default='kw') }}
3 {{ salt['pillar.get']('users:1') }} {{ salt['pillar.get']('users:-1') }} {{ J('json', salt['pillar.get']('users:5')) }}
4 {{ salt['pillar.get']('nginx/port', delimiter='/') }} {{ J('json', salt['pillar.get']('nginx:port', delimiter='/')) }}
5 {{ J('json', salt['pillar.get']('nginx', {'port': 80, 'user': 'www'}, merge=True)) }}
6 {{ J('json', salt['pillar.get']('users', ['root', 'alice'], merge=True)) }}
7 {{ J('json', salt['pillar.get']('nope', {'a': {'b': 1}}, merge=True)) }}
8 {{ salt['pillar.get']('nginx:port', 5, merge=True) }}
9 {{ salt['pillar.get']('word', {'a': 1}, merge=True) }}
10 {{ J('json', salt['pillar.get']('nginx', {'listen': [8080, 80]}, merge=True, merge_nested_lists=True)) }}
11 {{ J('json', salt['pillar.get']('nginx', {'listen': [8080]}, merge=True)) }}
12 {{ salt['pillar.get']('numkey:1') }}
13 {{ J('json', salt['pillar.get']('nginx:lookup', {'x': 1}, True)) }}
14 {{ J('json', salt['pillar.get']('users', [], merge=True)) }} {{ J('json', salt['pillar.get']('nope', [1], merge=True)) }}
15 {{ J('json', salt['pillar.get']('nginx:lookup')) }}
16 {{ salt.pillar.get('nginx:port', default=1) }} {{ salt['pillar.get'](key='word') }}
17 {{ J('json', salt['pillar.get']('nginx:listen', [443, 8443], merge=True)) }}
{%- set d = {'lookup': {'extra': 1}} %}{% set r = salt['pillar.get']('nginx', d, merge=True) %}
18 {{ J('json', d) }}
19 {{ J('json', salt['pillar.get']('nginx', 'x', merge=True)) }}
"#;
const PILLAR_GET_SALT: &str = r#"1 8080
2 [] d kw
3 bob bob ""
4 8080 ""
5 {"port": 8080, "user": "www", "lookup": {"pkg": "nginx-custom"}, "listen": [80, 443]}
6 ["root", "alice", "bob"]
7 {"a": {"b": 1}}
8 8080
9 text
10 {"listen": [8080, 80, 443], "port": 8080, "lookup": {"pkg": "nginx-custom"}}
11 {"listen": [80, 443], "port": 8080, "lookup": {"pkg": "nginx-custom"}}
12 one
13 {"x": 1, "pkg": "nginx-custom"}
14 ["alice", "bob"] [1]
15 {"pkg": "nginx-custom"}
16 8080 text
17 [443, 8443, 80]
18 {"lookup": {"extra": 1}}
19 {"port": 8080, "lookup": {"pkg": "nginx-custom"}, "listen": [80, 443]}
"#;

const CONFIG_GET: &str = r#"{%- set J = salt['slsutil.serialize'] -%}
1 {{ salt['config.get']('shared') }}
2 {{ salt['config.get']('myopt:a') }}
3 {{ salt['config.get']('os_family') }}
4 {{ salt['config.get']('word') }}
5 {{ salt['config.get']('mkey') }}
6 {{ salt['config.get']('mongo.port') }} {{ J('json', salt['config.get']('solr.dih.import_options:optimize')) }}
7 [{{ salt['config.get']('nope') }}] {{ salt['config.get']('nope', 'dflt') }}
8 {{ J('json', salt['config.get']('pdict', merge='recurse')) }}
9 {{ J('json', salt['config.get']('pdict', merge='overwrite')) }}
10 {{ J('json', salt['config.get']('pdict', merge='bogus')) }}
11 {{ J('json', salt['config.get']('gonly', merge='recurse')) }}
12 {{ salt['config.get']('shared', merge='recurse') }}
13 {{ salt['config.get']('myopt/a', '', '/') }}
14 [{{ salt['config.get']('nope', merge='recurse') }}] {{ salt['config.get']('nope', 'x', merge='overwrite') }}
15 {{ salt['config.get']('sdbkey') }}
16 {{ J('json', salt['config.get']('mdict', merge='recurse')) }} {{ salt['config.get']('mongo.port', merge='recurse') }}
17 {{ J('json', salt['config.get']('gonly')) }}
18 {{ salt['config.get']('pdict:both', merge='recurse') }} {{ salt['config.get']('pdict:p', merge='overwrite', default='gone') }}
19 {{ salt['config.get']('word', omit_pillar=True, default='omitted') }} {{ salt['config.get']('shared', omit_opts=True) }} {{ salt['config.get']('shared', omit_opts=True, omit_grains=True) }} {{ salt['config.get']('shared', omit_opts=True, omit_grains=True, omit_pillar=True) }}
20 {{ salt['config.option']('shared') }} [{{ salt['config.option']('myopt:a') }}] {{ salt['config.option']('word') }} {{ salt['config.option']('mkey') }} {{ salt['config.option']('mongo.port') }} {{ salt['config.option']('nope', 'd') }}
21 {{ J('json', salt['config.option']('pd*', wildcard=True)) }} {{ J('json', salt['config.option']('mongo.*', wildcard=True)) }} {{ J('json', salt['config.option']('zz*', wildcard=True)) }}
22 {{ salt['config.option']('shared', omit_opts=True) }} {{ salt['config.option']('shared', omit_all=True, default='all') }}
23 {{ J('json', salt['config.option']('mk*', wildcard=True)) }} {{ J('json', salt['config.option']('gonl?', wildcard=True)) }}
24 {{ J('json', salt['config.get']('numkey', merge='recurse')) }}
"#;
const CONFIG_GET_SALT: &str = r#"1 fromopts
2 1
3 RedHat
4 text
5 mv
6 27017 true
7 [] dflt
8 {"p": 1, "both": "opts", "o": 1}
9 {"o": 1, "both": "opts"}
10 {"p": 1, "both": "opts", "o": 1}
11 {"p": 2, "g": 1}
12 fromopts
13 1
14 [] x
15 sdb://noprofile/x
16 {"m": 1} 27017
17 {"g": 1}
18 opts gone
19 omitted fromgrains frompillar frommaster
20 fromopts [] text mv 27017 d
21 {"pdict": {"o": 1, "both": "opts"}} {"mongo.db": "salt", "mongo.password": "", "mongo.port": 27017, "mongo.user": ""} {}
22 fromgrains all
23 {"mkey": "mv"} {"gonly": {"g": 1}}
24 {"1": "one"}
"#;

const MERGE: &str = r#"{%- set J = salt['slsutil.serialize'] -%}
{%- set A = {'a': 1, 'l': [1, 2], 'd': {'x': 1, 'y': {'p': 1}}, 'only_a': True} -%}
{%- set B = {'a': 2, 'l': [2, 3], 'd': {'y': {'q': 2}, 'z': 3}, 'only_b': True} -%}
1 {{ J('json', salt['slsutil.merge'](A, B)) }}
2 {{ J('json', salt['slsutil.merge'](A, B, merge_lists=True)) }}
3 {{ J('json', salt['slsutil.merge'](A, B, strategy='aggregate')) }}
4 {{ J('json', salt['slsutil.merge'](A, B, 'list')) }}
5 {{ J('json', salt['slsutil.merge'](A, B, 'smart', 'yamlex')) }}
6 {{ J('json', A) }}
{%- set A2 = {'a': 1, 'd': {'x': 1}} %}{% set r = salt['slsutil.merge'](A2, {'d': {'y': 2}, 'n': 1}, strategy='overwrite') %}
7 {{ J('json', r) }} {{ J('json', A2) }}
8 {{ J('json', salt['slsutil.merge_all']([{'a': {'x': 1}}, {'a': {'y': 2}}, {'b': 1}])) }}
{%- set dest = {'a': {'x': 1}, 'l': [1]} %}{% set sub = dest.a %}{% set r = salt['slsutil.update'](dest, {'a': {'y': 2}, 'l': [2]}, merge_lists=True) %}
9 {{ J('json', dest) }} {{ J('json', sub) }} {{ J('json', r) }}
{%- set dm = {'a': {'x': 1}, 'l': [1]} %}{% set sub = dm.a %}{% do salt['defaults.merge'](dm, {'a': {'y': 2}, 'l': [2], 'n': None}) %}
10 {{ J('json', dm) }} {{ J('json', sub) }}
{%- set dm2 = {'l': [1]} %}{% set r = salt['defaults.merge'](dm2, {'l': [1, 2]}, merge_lists=True, in_place=False) %}
11 {{ J('json', dm2) }} {{ J('json', r) }}
12 {{ J('json', salt['defaults.merge']({'a': 1}, None)) }}
{%- set orig = {'a': {'b': [1]}} %}{% set cp = salt['defaults.deepcopy'](orig) %}{% do cp.a.b.append(2) %}
13 {{ J('json', orig) }} {{ J('json', cp) }}
{%- set nodes = {'n1': {'port': 1}, 'n2': {}} %}{% set r = salt['defaults.update'](nodes, {'port': 80, 'l': [1]}) %}
14 {{ J('json', nodes) }}
15 {{ J('json', salt['slsutil.merge']({'a': {'b': 1}}, {'a': None})) }}
16 {{ J('json', salt['slsutil.merge_all']([{'l': [1]}, {'l': [2]}], merge_lists=True)) }} {{ J('json', salt['slsutil.merge_all']([])) }}
"#;
const MERGE_SALT: &str = r#"1 {"a": 2, "l": [2, 3], "d": {"x": 1, "y": {"p": 1, "q": 2}, "z": 3}, "only_a": true, "only_b": true}
2 {"a": 2, "l": [1, 2, 3], "d": {"x": 1, "y": {"p": 1, "q": 2}, "z": 3}, "only_a": true, "only_b": true}
3 {"a": 2, "l": [2, 3], "d": {"y": {"q": 2}, "z": 3}, "only_a": true, "only_b": true}
4 {"a": [1, 2], "l": [[1, 2], [2, 3]], "d": [{"x": 1, "y": {"p": 1}}, {"y": {"q": 2}, "z": 3}], "only_a": true}
5 {"a": 2, "l": [2, 3], "d": {"y": {"q": 2}, "z": 3}, "only_a": true, "only_b": true}
6 {"a": 1, "l": [1, 2], "d": {"x": 1, "y": {"p": 1}}, "only_a": true}
7 {"a": 1, "d": {"y": 2}, "n": 1} {"a": 1, "d": {"y": 2}}
8 {"a": {"x": 1, "y": 2}, "b": 1}
9 {"a": {"x": 1, "y": 2}, "l": [1, 2]} {"x": 1, "y": 2} {"a": {"x": 1, "y": 2}, "l": [1, 2]}
10 {"a": {"x": 1, "y": 2}, "l": [2], "n": null} {"x": 1, "y": 2}
11 {"l": [1]} {"l": [1, 2]}
12 {"a": 1}
13 {"a": {"b": [1]}} {"a": {"b": [1, 2]}}
14 {"n1": {"port": 1, "l": [1]}, "n2": {"port": 80, "l": [1]}}
15 {"a": null}
16 {"l": [1, 2]} {}
"#;

const MISC: &str = r#"{%- set J = salt['slsutil.serialize'] -%}
1 {{ J('json', salt['log.debug']('d')) }} {{ J('json', salt['log.info']('i')) }} {{ J('json', salt['log.warning']('w')) }} {{ J('json', salt['log.error']('e')) }} {{ J('json', salt['log.critical']('c')) }} {{ J('json', salt['log.exception']('x')) }}
2 {{ J('json', salt['test.ping']()) }}
3 {{ salt['file.join']('a', 'b', 'c') }} {{ salt['file.join']('a', '/b', 'c') }} {{ salt['file.join']('a/', 'b') }} {{ salt['file.join']('a', '') }} {{ salt['file.join']('', 'b') }} {{ salt['file.join']('/') }}
4 [{{ salt['file.dirname']('/a/b/c.txt') }}] [{{ salt['file.dirname']('c') }}] [{{ salt['file.dirname']('/a/b/') }}] [{{ salt['file.dirname']('/') }}] [{{ salt['file.dirname']('//a') }}] [{{ salt['file.dirname']('a//b') }}]
5 [{{ salt['file.basename']('/a/b/c.txt') }}] [{{ salt['file.basename']('/a/b/') }}] [{{ salt['file.basename']('c') }}] [{{ salt['file.basename']('') }}]
6 {{ J('json', salt['grains.has_value']('selinux:enabled')) }} {{ J('json', salt['grains.has_value']('empty')) }} {{ J('json', salt['grains.has_value']('zero')) }} {{ J('json', salt['grains.has_value']('nope')) }} {{ J('json', salt['grains.has_value']('roles:0')) }}
7 {{ salt['grains.get']('os') }} [{{ salt['grains.get']('nope') }}] {{ salt['grains.get']('nope', 'd') }} {{ salt['grains.get']('ip_interfaces/eth0/0', delimiter='/') }} {{ salt['grains.get']('roles:1') }} {{ J('json', salt['grains.get']('ip_interfaces|eth0', 'x', '|')) }}
8 {{ salt['grains.items']()['os'] }} {{ salt['grains.items']() | length }}
9 {{ J('json', salt['grains.item']('os', 'roles:0', 'nope')) }} {{ J('json', salt['grains.item']('nope', default='d')) }}
10 {{ J('json', salt['pillar.item']('word', 'nginx:port', 'nope')) }}
11 {{ J('json', {'u': 'ß', 'f': 1.5, 'e': 1e20, 'n': None, 't': True, 'l': [1, 'x']}) }}
12 {{ J('json', {'b': 1, 'a': [1, 2]}, indent=2) }}
13 {{ J('json', {'b': 1, 'a': 2}, sort_keys=True) }} {{ J('json', 'x"y\\z') }} {{ J('json', {'a': 1}, separators=(',', ':')) }}
14 {{ J('json', {'u': 'ß'}, ensure_ascii=True) }} {{ J('json', 3) }} {{ J('json', [{}], indent=0) }} {{ J('json', {'a': [1, {'b': []}]}, indent='  ') }}
"#;
const MISC_SALT: &str = r#"1 true true true true true true
2 true
3 a/b/c /b/c a/b a/ b /
4 [/a/b] [] [/a/b] [/] [//] [a]
5 [c.txt] [] [c] []
6 true true true false true
7 CentOS [] d 10.0.0.5 web ["10.0.0.5"]
8 CentOS 15
9 {"os": "CentOS", "roles:0": "db", "nope": ""} {"nope": "d"}
10 {"word": "text", "nginx:port": 8080, "nope": ""}
11 {"u": "ß", "f": 1.5, "e": 1e+20, "n": null, "t": true, "l": [1, "x"]}
12 {
  "b": 1,
  "a": [
    1,
    2
  ]
}
13 {"a": 2, "b": 1} "x\"y\\z" {"a":1}
14 {"u": "\u00df"} 3 [
{}
] {
  "a": [
    1,
    {
      "b": []
    }
  ]
}
"#;

const DEFAULTS_GET: &str = r#"{%- set J = salt['slsutil.serialize'] -%}
1 {{ J('json', salt['defaults.get']('web')) }}
2 {{ salt['defaults.get']('web:web:port') }} {{ J('json', salt['defaults.get']('web:web:pkgs')) }} {{ salt['defaults.get']('web:nope', 'd') }} [{{ salt['defaults.get']('web:nope') }}]
3 {{ J('json', salt['defaults.get']('js')) }} {{ salt['defaults.get']('js:js:a') }}
4 {{ J('json', salt['defaults.get']('missing')) }} {{ salt['defaults.get']('missing:x', 'dm') }}
"#;
const DEFAULTS_GET_SALT: &str = r#"1 {"web": {"port": 80, "pkgs": ["nginx"]}}
2 80 ["nginx"] d []
3 {"js": {"a": 1}} 1
4 null dm
"#;

const SERIALIZE_YAML: &str = r#"{%- set S = salt['slsutil.serialize'] -%}
1 {{ S('yaml', {'b': [1, 2], 'a': {'x': 'ß', 'y': [{'k': 'v'}]}}) }}
2 {{ S('yaml', {'b': [1, 2], 'a': {'x': 'y z'}}, default_flow_style=False) }}
3 {{ S('yaml', ['yes', '1.0', 'plain text', '', None, True, 1.5]) }}
4 {{ S('yaml', 'x') }}|{{ S('yaml', '') }}|{{ S('yaml', 5) }}
5 {{ S('yaml', {'k': 'ß'}, allow_unicode=True) }} {{ S('yaml', {'z': 1, 'a': 2}, sort_keys=False) }}
6 {{ S(serializer='yaml', obj={'a': 1}, default_flow_style=True, indent=4, width=100, explicit_start=True) }}
"#;
const SERIALIZE_YAML_SALT: &str = r#"1 a:
  x: "\xDF"
  y:
  - {k: v}
b: [1, 2]
2 a:
  x: y z
b:
- 1
- 2
3 ['yes', '1.0', plain text, '', null, true, 1.5]
4 x|''|5
5 {k: ß} {z: 1, a: 2}
6 --- {a: 1}
"#;

fn ctx_with(profile: &str) -> JinjaContext {
    let p: Value = serde_json::from_str(profile).unwrap();
    let mut opts = p["opts"].clone();
    opts.as_object_mut().unwrap().insert("id".into(), "m1".into());
    JinjaContext {
        grains: crate::workspace::facts::Data::new(crate::workspace::facts::Which::Grains, p["grains"].clone()),
        pillar: crate::workspace::facts::Data::new(crate::workspace::facts::Which::Pillar, p["pillar"].clone()),
        opts: crate::workspace::facts::Data::new(crate::workspace::facts::Which::Opts, opts),
        saltenv: "base".into(),
        sls: "t".into(),
        tplfile: "t.sls".into(),
        tplpath: "/srv/salt/t.sls".into(),
        loader: Arc::new(|name| match name {
            "web/defaults.yaml" => Some("web:\n  port: 80\n  pkgs: [nginx]\n".into()),
            "js/defaults.json" => Some(r#"{"js": {"a": 1}}"#.into()),
            _ => None,
        }),
        probe: None,
        trace: None,
        matcher: None,
        map_data: None,
        extra: Vec::new(),
        functions: serde_json::Value::Null,
        list_states: None,
        template_pillar: None,
        budget: crate::render::budget::DEFAULT,
        version: Default::default(),
        exec: None,
    }
}

fn ctx() -> JinjaContext {
    let mut c = ctx_with(PROFILE);
    c.pillar.make_mut()["sdbkey"] = "sdb://noprofile/x".into();
    c
}

fn render(template: &str, ctx: &JinjaContext) -> (String, Vec<String>) {
    match jinja::render(template, ctx) {
        Ok(r) => (r.text, r.hints),
        Err(e) => (format!("ERROR: {}", e.message), Vec::new()),
    }
}

#[track_caller]
fn check(template: &str, ctx: &JinjaContext, salt_printed: &str) {
    let (got, _) = render(template, ctx);
    let (got, want): (Vec<&str>, Vec<&str>) = (got.lines().collect(), salt_printed.lines().collect());
    for (g, w) in got.iter().zip(&want) {
        assert_eq!(g, w);
    }
    assert_eq!(got.len(), want.len(), "{got:#?}");
}

#[track_caller]
fn check_error(template: &str, ctx: &JinjaContext, salt_error: &str) {
    let (got, _) = render(template, ctx);
    assert!(got.starts_with("ERROR:") && got.contains(salt_error), "{got}");
}

#[test]
fn grains_filter_by() {
    check(FILTER_BY, &ctx(), FILTER_BY_SALT);
    check_error(
        "{{ salt['grains.filter_by']({'RedHat': 'x', 'b': {'a':1}}, base='b') }}\n",
        &ctx(),
        "filter_by default and look-up values must both be dictionaries.",
    );
    check_error("{{ salt['grains.filter_by']({'RedHat': {}}, merge=[1]) }}\n", &ctx(), "filter_by merge argument must be a dictionary.");
}

#[test]
fn pillar_get() {
    check(PILLAR_GET, &ctx(), PILLAR_GET_SALT);
    // With `pillar_raise_on_missing: true` only a call without a default raises.
    let raising = ctx_with(r#"{"grains": {}, "pillar": {"a": 1}, "opts": {"pillar_raise_on_missing": true}}"#);
    check("{{ salt['pillar.get']('nope', 'd') }}\n", &raising, "d\n");
    check_error("{{ salt['pillar.get']('nope', 'd') }}\n{{ salt['pillar.get']('nope') }}\n", &raising, "'Pillar key not found: nope'");
    // `pillar_merge_lists: true` is the default for merge_nested_lists.
    let lists = ctx_with(r#"{"grains": {}, "pillar": {"d": {"l": [1]}, "l": [1]}, "opts": {"pillar_merge_lists": true}}"#);
    let j = "{%- set J = salt['slsutil.serialize'] -%}";
    check(
            &format!("{j}{{{{ J('json', salt['pillar.get']('l', {{'l': [0]}}, merge=True)) }}}}\n{{{{ J('json', salt['pillar.get']('d', {{'l': [0]}}, merge=True)) }}}}\n{{{{ J('json', salt['pillar.get']('d', {{'l': [0]}}, merge=True, merge_nested_lists=False)) }}}}\n"),
            &lists,
            "[1]\n{\"l\": [0, 1]}\n{\"l\": [1]}\n",
        );
}

#[test]
fn config_get_and_option() {
    check(CONFIG_GET, &ctx(), CONFIG_GET_SALT);
}

#[test]
fn merges_and_in_place_changes() {
    check(MERGE, &ctx(), MERGE_SALT);
    check_error("{{ salt['defaults.merge'](None, {'a': 1}) }}\n", &ctx(), "Can't perform in-place merge into NoneType");
}

#[test]
fn slsutil_deserialize() {
    // Salt 3008.4: deserialize('json', '{"b": [1, 2.5], "a": null}') is
    // {'b': [1, 2.5], 'a': None}; deserialize('yaml', 'k: [x, 0755, yes]') is
    // {'k': ['x', 493, True]} (SafeLoader's octal, not answered here).
    let (got, hints) = render(
            "{{ salt['slsutil.deserialize']('json', '{\"b\": [1, 2.5], \"a\": null}') }}|{{ salt['slsutil.deserialize']('yaml', 'k: [x, yes]') }}|{{ salt['slsutil.deserialize']('yaml', 'k: [x, 0755]') }}",
            &ctx(),
        );
    assert_eq!(got, "{'b': [1, 2.5], 'a': None}|{'k': ['x', True]}|");
    assert_eq!(hints.len(), 1, "{hints:?}");
}

#[test]
fn pure_helpers() {
    check(MISC, &ctx(), MISC_SALT);
}

#[test]
fn defaults_get_reads_the_file_roots() {
    check(DEFAULTS_GET, &ctx(), DEFAULTS_GET_SALT);
}

#[test]
fn serialize_yaml_like_salts_serializer() {
    check(SERIALIZE_YAML, &ctx(), SERIALIZE_YAML_SALT);
    check_error("{{ salt['slsutil.serialize']('yaml', {'a': 1}, foo=1) }}", &ctx(), "dump_all() got an unexpected keyword argument 'foo'");
    check_error("{{ salt['slsutil.serialize']('json', {'a': 1}, foo=1) }}", &ctx(), "JSONEncoder.__init__() got an unexpected keyword argument 'foo'");
    check_error("{{ salt['slsutil.serialize']('nope', {'a': 1}) }}", &ctx(), "Serializer 'nope' not found.");
}

#[test]
fn number_keys() {
    // salt-call --local slsutil.renderer with the pillar file `7: seven\nn: {3: three}`
    // printed "seven|g|seven|three": an int key finds YAML's int key.
    let c = ctx_with(r#"{"grains": {}, "pillar": {"7": "seven", "n": {"3": "three"}}, "opts": {}}"#);
    check(
        "{{ salt['pillar.get'](7) }}|{{ salt['grains.get'](7, 'g') }}|{{ salt['config.get'](7) }}|{{ salt['pillar.get']('n:3') }}\n",
        &c,
        "seven|g|seven|three\n",
    );
}

#[test]
fn python_argument_binding() {
    // Salt: "Jinja error: get() got an unexpected keyword argument 'foo'", and so on.
    for (call, message) in [
        ("salt['pillar.get']('x', foo=1)", "get() got an unexpected keyword argument 'foo'"),
        ("salt['pillar.get']()", "get() missing 1 required positional argument: 'key'"),
        ("salt['log.debug']('a', 'b')", "debug() takes 1 positional argument but 2 were given"),
        ("salt['pillar.get']('x', 1, 2, 3, 4, 5, 6, 7, 8)", "get() takes from 1 to 8 positional arguments but 9 were given"),
        ("salt['pillar.get']('x', key='y')", "get() got multiple values for argument 'key'"),
        ("salt['slsutil.merge']({'a': 1}, 'x')", "Cannot update using non-dict types in dictupdate.update()"),
        ("salt['slsutil.merge']({'a': 1})", "merge() missing 1 required positional argument: 'obj_b'"),
    ] {
        check_error(&format!("{{{{ {call} }}}}"), &ctx(), message);
    }
}

/// A profile's `functions:` answers a host-dependent call by its first argument; any other
/// call stays inert with its hint.
#[test]
fn pinned_answers_by_first_argument() {
    let mut c = ctx();
    c.functions = serde_json::json!({
        "file.file_exists": {"/etc/localtime": true},
        "cmd.run": {"uname -r": "6.1.0-18-amd64"},
        "pkg.version": {"nginx": "1.22.1"},
    });
    let src = "{% if salt['file.file_exists']('/etc/localtime') %}link{% endif %}|{{ salt['file.file_exists']('/etc/x') }}|{{ salt['cmd.run']('uname -r') | upper }}|{{ salt['pkg.version'](name='nginx') }}|{{ salt['cmd.run']('id') }}";
    let (text, hints) = render(src, &c);
    assert_eq!(text, "link||6.1.0-18-AMD64|1.22.1|");
    assert_eq!(hints.len(), 2, "{hints:?}");
    assert!(hints.iter().all(|h| h.contains("file.file_exists") || h.contains("cmd.run")), "{hints:?}");
}

#[test]
fn host_touching_functions_stay_inert() {
    let (text, hints) = render("[{{ salt['cmd.run']('rm -rf /') }}][{{ salt.file.file_exists('/etc') }}][{{ salt['mine.get']('*', 'x') }}]", &ctx());
    // mine.get answers an empty mapping, as it does on a masterless minion.
    assert_eq!(text, "[][][{}]");
    assert_eq!(hints.len(), 3, "{hints:?}");
    // An sdb:// value whose profile names a driver would query it.
    let mut c = ctx();
    c.opts.make_mut()["vault"] = serde_json::json!({"driver": "vault"});
    c.pillar.make_mut()["secret"] = "sdb://vault/db/pass".into();
    let (text, hints) = render("[{{ salt['config.get']('secret') }}]", &c);
    assert_eq!((text.as_str(), hints.len()), ("[]", 1));
}

#[test]
fn match_filter_by_asks_the_matcher() {
    // The real matchers answer through the pipeline (pipeline.rs tests); here, a stand-in
    // shows what each tgt_type passes on.
    let mut c = ctx();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = seen.clone();
    c.matcher = Some(Arc::new(move |m: &str, t: &str, id: Option<&str>, d: Option<&str>| {
        log.lock().unwrap().push(format!("{m} {t} {id:?} {d:?}"));
        t == "yes"
    }));
    let (text, _) = render(
            "{{ salt['match.filter_by']({'no': 1, 'yes': 2}) }} {{ salt['match.filter_by']({'yes': 3}, 'grain', 'x') }} {{ salt['match.filter_by']({'yes': 4}, tgt_type='list_', minion_id='m2') }}",
            &c,
        );
    assert_eq!(text, "2 3 4");
    assert_eq!(*seen.lock().unwrap(), ["compound no None None", "compound yes None None", "grain yes None Some(\"x\")", "list yes Some(\"m2\") None"]);
    // Salt: "Jinja error: 'list'" (the module has `list_`, not `list`).
    check_error("{{ salt['match.filter_by']({'m1': 'L'}, tgt_type='list') }}", &c, "'list'");
    check_error("{{ salt['match.filter_by']({'m1': 'L'}, tgt_type='ipcidr', minion_id='x') }}", &c, "ipcidr() takes 1 positional argument but 2 were given");
}

#[test]
fn each_matcher_function_asks_its_matcher() {
    let mut c = ctx();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = seen.clone();
    c.matcher = Some(Arc::new(move |m: &str, t: &str, id: Option<&str>, d: Option<&str>| {
        log.lock().unwrap().push(format!("{m} {t} {id:?} {d:?}"));
        t == "yes"
    }));
    let (text, _) = render(
        "{{ salt['match.glob']('yes') }} {{ salt['match.compound']('no', minion_id='m2') }} {{ salt['match.list_']('yes', 'm3') }} \
         {{ salt['match.grain']('yes') }} {{ salt['match.pillar_pcre']('yes', delimiter='|') }} {{ salt['match.ipcidr']('no') }} \
         {{ salt['match.pcre'](5) }}",
        &c,
    );
    // A target that is not a string matches nothing (glob_match: `if not isinstance(tgt, str)`).
    assert_eq!(text, "True False True True True False False");
    assert_eq!(
        *seen.lock().unwrap(),
        [
            "glob yes None None",
            "compound no Some(\"m2\") None",
            "list yes Some(\"m3\") None",
            "grain yes None Some(\":\")",
            "pillar_pcre yes None Some(\"|\")",
            "ipcidr no None None"
        ]
    );
    check_error("{{ salt['match.ipcidr']('a', 'b') }}", &c, "ipcidr() takes 1 positional argument but 2 were given");
}

#[test]
fn a_function_the_minion_lacks_is_undefined_as_salts_loader_leaves_it() {
    // Salt 3006.29, 3007.16 and 3008.4 alike, as tests/conformance/render/ checks (`fn-missing-*`).
    let mut c = ctx();
    c.version = crate::version::SaltVersion::V3008;
    c.exec = Some(Arc::new(super::catalog::ExecFunctions::new(c.version, &[], vec![("corp".into(), vec!["owner".into()])])));
    let run = |t: &str| match jinja::render(t, &c) {
        Ok(r) => r.text,
        Err(e) => format!("{} {:?}", e.message, e.reason.map(|(code, _)| code)),
    };
    let out: Vec<String> = [
        "{{ salt['nope.fn']() }}",
        "{{ salt.nope.fn('x') }}",
        "{{ salt.test.nope() }}",
        "{{ salt['nope.fn'] }}",
        "{{ salt['docker.ps']() | default('d') }}",
        "{{ salt['nope.fn'] is defined }} {{ salt.nope is defined }} {{ salt['test.ping'] is defined }} {{ salt.corp.owner is defined }}",
        "{% if salt['nope.fn'] is defined %}{% endif %}{{ salt['cmd.run']('true') }}|{{ salt.corp.owner('x') }}|{{ undefined_name }}",
    ]
    .iter()
    .map(|t| run(t))
    .collect();
    expect_test::expect![[r#"
        Jinja variable 'salt.utils.templates.AliasedLoader object' has no attribute 'nope.fn'; line 1 None
        Jinja variable 'salt.utils.templates.AliasedLoader object' has no attribute 'nope'; line 1 None
        Jinja variable 'salt.loader.lazy.LoadedMod object' has no attribute 'nope'; line 1 None
        Jinja variable 'salt.utils.templates.AliasedLoader object' has no attribute 'nope.fn'; line 1 None
        Jinja variable 'salt.utils.templates.AliasedLoader object' has no attribute 'docker.ps'; line 1 Some(NotInCore)
        False False True True
        Jinja variable 'undefined_name' is undefined; line 1 None"#]]
    .assert_eq(&out.join("\n"));
}
