//! Each operation an older-style `map.jinja` builds its map with, on a small formula: the leaf,
//! its value for the minion, and the layer (file:line) that set it over the ones it overrode.

use std::path::Path;

use crate::mapstack::formula_map_data;
use crate::mapstack::report::describe;
use crate::render::context::JinjaSetup;
use crate::workspace::roots::FileRoots;
use crate::workspace::vfs::{FileTable, MemFs, Vfs};
use crate::workspace::Workspace;

/// `map.jinja` (and `files`, `#- path` separated, under `srv/f/`) for a Debian minion whose
/// pillar is `pillar`: every leaf of the map with who set it.
fn run(map: &str, files: &str, pillar: &str) -> String {
    let tree = format!(
        "#- salt-analyzer.yaml\nfile_roots: {{base: [srv]}}\nminions:\n  m: {{grains: {{os_family: Debian, os: Ubuntu}}, pillar: {pillar}}}\n#- srv/f/map.jinja\n{map}\n{files}"
    );
    let fs = MemFs::from_fixture(&tree);
    let ws = Workspace::load(&fs, Path::new("/ws"), None).expect("workspace");
    let roots = FileRoots::scan(&fs, &ws.opts.file_roots);
    let mut minion = crate::workspace::minion::select(&fs, &ws, Some("m")).expect("minion");
    if let Some(p) = minion.literal_pillar.clone() {
        minion.pillar = p;
    }
    let jinja = {
        let (fs, roots) = (fs.clone(), roots.clone());
        JinjaSetup::new(&minion, &ws.opts, move |env, rel| fs.read(&roots.find_file(env, rel)?).ok())
    };
    let mut table = FileTable::default();
    let d = formula_map_data(&fs, &roots, &mut table, &jinja, "f");
    let values = match &d.values {
        Ok(v) => v,
        Err(e) => return format!("error: {}", e.message),
    };
    let Some(origins) = &d.origins else { return "no origins".into() };
    let mut out = Vec::new();
    for (path, o) in origins.leaves() {
        let v = path.iter().try_fold(values, |v, k| v.get(k)).cloned().unwrap_or_default();
        out.push(format!("{} = {v}  # {}", path.join("."), describe(&d, &table, o)));
    }
    let layers: Vec<String> = d.layers.iter().enumerate().map(|(i, l)| format!("#{i} {} {}", l.source, l.path.as_deref().unwrap_or("-"))).collect();
    format!("{}\n{}", layers.join("\n"), out.join("\n"))
}

const DEFAULTS: &str = "#- srv/f/defaults.yaml\nf:\n  pkg: f\n  port: 80\n  conf: /etc/f.conf\n#- srv/f/osfamilymap.yaml\nDebian:\n  pkg: f-deb\nRedHat:\n  pkg: f-rh\n  port: 8080\n";

#[test]
fn grains_filter_by_with_merge_and_default() {
    let map = "{% import_yaml 'f/defaults.yaml' as defaults %}\n{% import_yaml 'f/osfamilymap.yaml' as osfamilymap %}\n\
{% set f = salt['grains.filter_by'](defaults, default='f', merge=salt['grains.filter_by'](osfamilymap, grain='os_family')) %}";
    expect_test::expect![[r##"
        #0 map.jinja f/map.jinja
        #1 import_yaml f/defaults.yaml
        #2 import_yaml f/osfamilymap.yaml
        conf = "/etc/f.conf"  # #1 f/defaults.yaml:4
        pkg = "f-deb"  # #2 f/osfamilymap.yaml:2, over #1
        port = 80  # #1 f/defaults.yaml:3"##]]
    .assert_eq(&run(map, DEFAULTS, "{}"));
}

#[test]
fn filter_by_of_a_literal_with_base_and_pillar_lookup() {
    let map = "{% set f = salt['grains.filter_by']({\n  'default': {'pkg': 'f', 'user': 'root'},\n  'Debian': {'pkg': 'f-deb'},\n  'RedHat': {'pkg': 'f-rh'},\n}, base='default', merge=salt['pillar.get']('f:lookup')) %}";
    expect_test::expect![[r##"
        #0 map.jinja f/map.jinja
        #1 pillar pillar:f
        pkg = "f-deb"  # #0 f/map.jinja:3
        user = "pinned"  # #1 pillar:f, over #0"##]]
    .assert_eq(&run(map, "", "{f: {lookup: {user: pinned}}}"));
}

#[test]
fn import_yaml_and_load_yaml() {
    let map = "{% import_yaml 'f/defaults.yaml' as defaults %}\n{% load_yaml as extra %}\nport: 81\n{% endload %}\n{% set f = defaults.f %}";
    expect_test::expect![[r##"
        #0 map.jinja f/map.jinja
        #1 import_yaml f/defaults.yaml
        conf = "/etc/f.conf"  # #1 f/defaults.yaml:4
        pkg = "f"  # #1 f/defaults.yaml:2
        port = 80  # #1 f/defaults.yaml:3"##]]
    .assert_eq(&run(map, DEFAULTS, "{}"));
}

#[test]
fn slsutil_merge_and_defaults_merge() {
    let map = "{% set tplroot = tpldir.split('/')[0] %}{% import_yaml tplroot ~ '/defaults.yaml' as defaults %}\n{% import_yaml tplroot ~ '/osfamilymap.yaml' as osfamilymap %}\n\
{% set os = salt['grains.filter_by'](osfamilymap) %}\n{% set f = salt['slsutil.merge'](defaults.f, os) %}\n{% do salt['defaults.merge'](f, {'port': 443}) %}";
    expect_test::expect![[r##"
        #0 map.jinja f/map.jinja
        #1 import_yaml f/osfamilymap.yaml
        #2 import_yaml f/defaults.yaml
        conf = "/etc/f.conf"  # #2 f/defaults.yaml:4
        pkg = "f-deb"  # #1 f/osfamilymap.yaml:2
        port = 443  # #0 f/map.jinja:5, over #2"##]]
    .assert_eq(&run(map, DEFAULTS, "{}"));
}

#[test]
fn dict_update_and_pillar_get_merge() {
    let map = "{% import_yaml 'f/defaults.yaml' as defaults %}\n{% do defaults.f.update({'conf': '/srv/f.conf'}) %}\n\
{% set f = salt['pillar.get']('f', default=defaults.f, merge=True) %}";
    expect_test::expect![[r##"
        #0 map.jinja f/map.jinja
        #1 import_yaml f/defaults.yaml
        #2 pillar pillar:f
        conf = "/srv/f.conf"  # #0 f/map.jinja:2, over #1
        pkg = "f"  # #1 f/defaults.yaml:2
        port = 9090  # #2 pillar:f, over #1"##]]
    .assert_eq(&run(map, DEFAULTS, "{f: {port: 9090}}"));
}

#[test]
fn a_value_the_template_computes_is_the_templates() {
    let map = "{% import_yaml 'f/defaults.yaml' as defaults %}\n{% set f = defaults.f %}\n{% do f.update({'port': f.port + 1}) %}";
    expect_test::expect![[r##"
        #0 map.jinja f/map.jinja
        #1 import_yaml f/defaults.yaml
        conf = "/etc/f.conf"  # #1 f/defaults.yaml:4
        pkg = "f"  # #1 f/defaults.yaml:2
        port = 81  # #0 f/map.jinja, over #1"##]]
    .assert_eq(&run(map, DEFAULTS, "{}"));
}

#[test]
fn literal_scanning() {
    let text = "{% set x = {'a': {'b': 'c', \"d\": [1, 2], 'e': {}}, 'f': tplroot ~ '/x'} %}";
    let got: Vec<String> =
        super::literals(text, 0).iter().map(|e| format!("{}={:?}", e.path.join("."), e.value.as_ref().map(crate::value::Val::to_json))).collect();
    expect_test::expect![[r#"a.b=Some(String("c")) a.d=Some(Array [Number(1), Number(2)]) a.e=Some(Object {}) f=None"#]].assert_eq(&got.join(" "));
    assert_eq!(super::imports("{% import_yaml tplroot ~ \"/defaults.yaml\" as d %}{%- import_json 'g/x.json' as j %}", "f"), ["f/defaults.yaml", "g/x.json"]);
}

#[test]
fn a_filter_by_table_inside_the_pillar_get_default() {
    let map = "{% set f = salt['pillar.get']('f', {\n  'lookup': salt['grains.filter_by']({\n    'Debian': {'pkg': 'f-deb', 'user': 'www'},\n    'RedHat': {'pkg': 'f-rh', 'user': 'apache'},\n  }),\n  'port': 80,\n}, merge=True) %}";
    expect_test::expect![[r##"
        #0 map.jinja f/map.jinja
        #1 pillar pillar:f
        lookup.pkg = "f-deb"  # #0 f/map.jinja:3
        lookup.user = "nginx"  # #1 pillar:f, over #0
        port = 80  # #0 f/map.jinja:6"##]]
    .assert_eq(&run(map, "", "{f: {lookup: {user: nginx}}}"));
}

#[test]
fn a_templated_layer_file_is_placed_on_its_source_lines() {
    let map = "{% import_yaml 'f/defaults.yaml' as defaults %}\n{% import_yaml 'f/osfamilymap.yaml' as osfamilymap %}\n\
{% set f = salt['grains.filter_by'](defaults, default='f', merge=salt['grains.filter_by'](osfamilymap)) %}";
    let files = "#- srv/f/defaults.yaml\nf:\n  pkg: f\n  port: 80\n#- srv/f/osfamilymap.yaml\n{% set release = '13' %}\n{% if grains.os_family == 'RedHat' %}\n{% endif %}\nDebian:\n  pkg: f-{{ release }}\n";
    expect_test::expect![[r##"
        #0 map.jinja f/map.jinja
        #1 import_yaml f/defaults.yaml
        #2 import_yaml f/osfamilymap.yaml
        pkg = "f-13"  # #2 f/osfamilymap.yaml:5, over #1
        port = 80  # #1 f/defaults.yaml:3"##]]
    .assert_eq(&run(map, files, "{}"));
}

#[test]
fn precedence_follows_the_merge_nesting_not_the_import_order() {
    // osmap is imported first but merged innermost (it wins over osfamilymap).
    let map =
        "{% import_yaml 'f/osmap.yaml' as osmap %}\n{% import_yaml 'f/defaults.yaml' as defaults %}\n{% import_yaml 'f/osfamilymap.yaml' as osfamilymap %}\n\
{% set f = salt['grains.filter_by'](defaults, default='f', merge=salt['grains.filter_by'](osfamilymap, merge=salt['grains.filter_by'](osmap, grain='os'))) %}";
    let files = format!("{DEFAULTS}#- srv/f/osmap.yaml\nUbuntu:\n  pkg: f-ubuntu\n");
    expect_test::expect![[r##"
        #0 map.jinja f/map.jinja
        #1 import_yaml f/defaults.yaml
        #2 import_yaml f/osfamilymap.yaml
        #3 import_yaml f/osmap.yaml
        conf = "/etc/f.conf"  # #1 f/defaults.yaml:4
        pkg = "f-ubuntu"  # #3 f/osmap.yaml:2, over #1, #2
        port = 80  # #1 f/defaults.yaml:3"##]]
    .assert_eq(&run(map, &files, "{}"));
}

#[test]
fn import_json_and_config_get_merge() {
    // `import_json` layers, and `config.get('f:lookup', default, merge=...)`'s pillar values
    // (config.get looks in the pillar after the options and grains).
    let files = "#- srv/f/defaults.json\n{\"f\": {\"pkg\": \"f\", \"port\": 80, \"lookup\": {\"user\": \"f\"}}}\n";
    let map = "{% import_json 'f/defaults.json' as defaults %}\n{% set lookup = salt['config.get']('f:lookup', default=defaults.f.lookup, merge='recurse') %}\n{% set f = salt['slsutil.merge'](defaults.f, {'lookup': lookup}) %}";
    expect_test::expect![[r##"
        #0 map.jinja f/map.jinja
        #1 import_yaml f/defaults.json
        #2 pillar pillar:f
        lookup.user = "pinned"  # #2 pillar:f, over #1
        pkg = "f"  # #1 f/defaults.json:1
        port = 80  # #1 f/defaults.json:1"##]]
    .assert_eq(&run(map, files, "{f: {lookup: {user: pinned}}}"));
}
