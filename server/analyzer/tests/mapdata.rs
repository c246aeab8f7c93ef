//! `salt-analyzer mapdata --format json` has one shape whichever of the three implementations
//! built the map (saltext-formula's `map.data`, template-formula's `libmapstack.jinja`, an
//! older-style `map.jinja` dumped by its `_mapdata` state): `values` is the map itself, and
//! every `origins` path is a path into it.

mod support;

use serde_json::Value;
use support::{run_cli, TempTree};

/// One workspace with a formula of each implementation, each giving the map `{pkg: {name: N},
/// port: 80}` for `web01`.
fn tree() -> TempTree {
    let t = TempTree::new("mapdata-shape", None);
    t.write("salt-analyzer.yaml", "file_roots: {base: [srv]}\nminions:\n  web01: {grains: {os_family: Debian}}\n");
    // saltext-formula: map.jinja calls map.data.
    t.write("srv/sx/map.jinja", "{%- set mapdata = salt['map.data'](tpldir) %}\n");
    t.write("srv/sx/parameters/defaults.yaml", "values:\n  pkg: {name: sx}\n  port: 80\n");
    // template-formula: libmapstack.jinja beside map.jinja.
    t.write("srv/tf/map.jinja", "{#- imports mapstack from libmapstack.jinja #}\n");
    t.write("srv/tf/libmapstack.jinja", "{#- the macro #}\n");
    t.write("srv/tf/parameters/defaults.yaml", "values:\n  pkg: {name: tf}\n  port: 80\n");
    // An older-style map.jinja, with the `_mapdata` state template-formula's generations ship.
    t.write("srv/old/defaults.yaml", "old:\n  pkg: {name: old}\n  port: 80\n");
    t.write(
        "srv/old/map.jinja",
        "{% import_yaml 'old/defaults.yaml' as defaults %}\n{% set old = salt['pillar.get']('old', default=defaults.old, merge=True) %}\n",
    );
    t.write(
        "srv/old/_mapdata/init.sls",
        "{%- set tplroot = tpldir.split('/')[0] %}\n{%- from tplroot ~ '/map.jinja' import old with context %}\n{%- set _mapdata = {'values': old} %}\n\
         {{ tplroot }}-mapdata-dump:\n  file.managed:\n    - name: /tmp/salt_mapdata_dump.yaml\n    - source: salt://{{ tplroot }}/_mapdata/_mapdata.jinja\n    - template: jinja\n    - context:\n        map: {{ _mapdata | yaml }}\n",
    );
    t
}

fn mapdata(t: &TempTree, tpldir: &str) -> Value {
    let (code, out, err) = run_cli(&t.root, &["mapdata", tpldir, "--minion", "web01", "--format", "json"]);
    assert_eq!(code, 0, "mapdata {tpldir}: {err}\n{out}");
    serde_json::from_str(&out).unwrap_or_else(|e| panic!("mapdata {tpldir}: not JSON ({e}): {out}"))
}

#[test]
fn mapdata_json_has_one_shape_for_all_three_implementations() {
    let t = tree();
    for (tpldir, implementation, name) in [("sx", "saltext", "sx"), ("tf", "jinja", "tf"), ("old", "map.jinja", "old")] {
        let v = mapdata(&t, tpldir);
        let keys: std::collections::BTreeSet<&str> = v.as_object().expect("an object").keys().map(String::as_str).collect();
        assert_eq!(keys, ["implementation", "layers", "origins", "values"].into(), "{tpldir}: {v:#}");
        assert_eq!(v["implementation"], implementation, "{tpldir}");
        let values = &v["values"];
        // The map itself, not `{"values": map}`.
        assert!(values.get("values").is_none(), "{tpldir}: values is wrapped: {values:#}");
        assert_eq!(values["pkg"]["name"], name, "{tpldir}: {values:#}");
        assert_eq!(values["port"], 80, "{tpldir}: {values:#}");
        // Every origin names a leaf of `values`, by its key path from the map's top.
        let origins = v["origins"].as_array().expect("origins");
        assert!(!origins.is_empty(), "{tpldir}: no origins");
        for o in origins {
            let path: Vec<&str> = o["path"].as_array().expect("a path").iter().filter_map(Value::as_str).collect();
            assert!(path.iter().try_fold(values, |v, k| v.get(k)).is_some(), "{tpldir}: origin {path:?} is not in values");
        }
        let port = origins.iter().find(|o| o["path"] == serde_json::json!(["port"]));
        assert!(port.is_some(), "{tpldir}: no origin for `port`: {origins:#?}");
    }
}
