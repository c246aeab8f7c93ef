//! Formula configuration in the editor: hovers on the import, a value and `map_jinja.yaml`,
//! go to definition from a value to its layer and from a source to its files.

use expect_test::{expect, Expect};

use crate::fixture::{at, Fixture};

const FORMULA: &str = r#"
#- salt-analyzer.yaml
minions:
  web01: {grains: {os_family: Debian, id: web01}}
  rh01: {grains: {os_family: RedHat, id: rh01}}
default_minion: web01
#- app/map.jinja
{%- set mapdata = salt["map.data"](tpldir) %}
#- app/parameters/map_jinja.yaml
values:
  sources:
    - Y!P@defaults.yaml
    - Y!G@os_fam$Sily
#- app/parameters/defaults.yaml
values:
  pkg:
    name: app
    version: 1
  service: app-ß
#- app/parameters/os_family/Debian.yaml
values:
  pkg:
    name: app-debian
#- app/init.sls
{%- from tpldir ~ "/map.jinja" import map$Idata as app with context %}
app_pkg:
  pkg.installed:
    - name: {{ app.pkg.na$Vme }}
    - version: {{ app.pkg.vers$Wion }}
"#;

fn fixture(marker: char, minion: Option<&str>) -> Fixture {
    Fixture::at_marker(FORMULA, marker, minion)
}

fn hover(marker: char, minion: Option<&str>, expect: Expect) {
    expect.assert_eq(&fixture(marker, minion).hover_markdown());
}

fn goto(marker: char, expect: Expect) {
    let f = fixture(marker, None);
    let a = f.analysis();
    let (path, offset) = f.cursor();
    let out: String = a.goto_definition(&path, offset).unwrap().iter().map(|t| format!("{} ({})\n", at(&a, &t.path, t.focus_range.clone()), t.name)).collect();
    expect.assert_eq(&out);
}

#[test]
fn hover_on_the_import_shows_the_layers_and_values() {
    hover(
        'I',
        None,
        expect![[r#"
        **Formula configuration** of `app` for minion `web01`

        ```text
        Layers of `app` for minion `web01` (saltext implementation):
          #  stage      status   source             path                                        merged with
          0  map_jinja  loaded   map.data defaults  -
          1  map_jinja  missing  map_jinja.yaml     parameters/map_jinja.yaml
          2  map_jinja  missing  map_jinja.yaml     parameters/map_jinja.yaml.jinja
          3  map_jinja  loaded   map_jinja.yaml     app/parameters/map_jinja.yaml               smart
          4  map_jinja  missing  map_jinja.yaml     app/parameters/map_jinja.yaml.jinja
          5  formula    loaded   Y!P@defaults.yaml  app/parameters/defaults.yaml                smart
          6  formula    missing  Y!P@defaults.yaml  app/parameters/defaults.yaml.jinja
          7  formula    loaded   Y!G@os_family      app/parameters/os_family/Debian.yaml        smart
          8  formula    missing  Y!G@os_family      app/parameters/os_family/Debian.yaml.jinja

        Values:
          pkg:
            name: "app-debian"                              # #7 app/parameters/os_family/Debian.yaml:3, over #5
            version: 1                                      # #5 app/parameters/defaults.yaml:4
          service: "app-ß"                                  # #5 app/parameters/defaults.yaml:5
          map_jinja:
            sources: ["Y!P@defaults.yaml","Y!G@os_family"]  # #3 app/parameters/map_jinja.yaml:2, over #0
            parameter_dirs: ["app/parameters"]              # #0 map.data defaults
            config_get_strategy: null                       # #0 map.data defaults
            default_merge_strategy: null                    # #0 map.data defaults
            default_merge_lists: false                      # #0 map.data defaults
            post_map: "post-map.jinja"                      # #0 map.data defaults
            post_map_template: "jinja"                      # #0 map.data defaults
            cache: true                                     # #0 map.data defaults
        ```
    "#]],
    );
}

#[test]
fn hover_on_a_value_shows_its_layer_and_what_it_overrode() {
    hover(
        'V',
        None,
        expect![[r#"
        **`app.pkg.name`** for minion `web01`

        ```json
        "app-debian"
        ```

        Set by layer #7 `app/parameters/os_family/Debian.yaml:3` (source `Y!G@os_family`)

        Overriding:
        - layer #5 `app/parameters/defaults.yaml` (source `Y!P@defaults.yaml`)
    "#]],
    );
    // Another minion: another layer wins.
    hover(
        'V',
        Some("rh01"),
        expect![[r#"
        **`app.pkg.name`** for minion `rh01`

        ```json
        "app"
        ```

        Set by layer #5 `app/parameters/defaults.yaml:3` (source `Y!P@defaults.yaml`)
    "#]],
    );
    hover(
        'W',
        None,
        expect![[r#"
        **`app.pkg.version`** for minion `web01`

        ```json
        1
        ```

        Set by layer #5 `app/parameters/defaults.yaml:4` (source `Y!P@defaults.yaml`)
    "#]],
    );
}

#[test]
fn hover_on_a_map_jinja_yaml_source() {
    // The files the source selected, then the same table as the import's hover.
    let f = fixture('S', None);
    let a = f.analysis();
    let (path, offset) = f.cursor();
    let markdown = a.hover(&path, offset).unwrap().expect("a hover").markdown;
    let (head, table) = markdown.split_once("```text").expect("the table");
    expect![[r#"
        **Formula configuration** of `app` for minion `web01`

        Source `Y!G@os_family`:
        - loaded `app/parameters/os_family/Debian.yaml`
        - missing `app/parameters/os_family/Debian.yaml.jinja`

    "#]]
    .assert_eq(head);
    assert!(table.contains("Layers of `app` for minion `web01`"), "{table}");
}

#[test]
fn definition_of_a_value_and_of_a_source() {
    goto(
        'V',
        expect![[r#"
        app/parameters/os_family/Debian.yaml:3:5 "name" (app.pkg.name)
    "#]],
    );
    goto(
        'S',
        expect![[r#"
        app/parameters/os_family/Debian.yaml:1:1 (app/parameters/os_family/Debian.yaml)
    "#]],
    );
}

/// What the server publishes next: the diagnostics of every file whose diagnostics changed.
fn published(a: &crate::Analysis) -> String {
    let mut out = String::new();
    for f in a.take_changed_files().unwrap() {
        for d in a.diagnostics(&f).unwrap() {
            out.push_str(&format!("{} {}: {}\n", at(a, &f, d.range.clone()), d.code, d.message.lines().next().unwrap_or("")));
        }
    }
    out
}

#[test]
fn parameters_diagnostics_are_live() {
    let mut f = Fixture::new(
        r#"
#- app/map.jinja
{%- set mapdata = salt["map.data"](tpldir) %}
#- app/parameters/defaults.yaml
values:
  pkg: ß
strategy: sideways
#- app/parameters/osfamily/Debian.yaml
values: {pkg: 💣}
#- app/parameters/os_family/RedHat.yaml
vals: {pkg: ℝ}
"#,
    );
    expect![[r#"
        app/parameters/defaults.yaml:3:11 "sideways" parameters-layer: Unknown merging strategy 'sideways', fallback to recurse (slsutil.merge knows smart, recurse, overwrite, list, aggregate, none)
        app/parameters/os_family/RedHat.yaml:1:1 "vals" mapdata-error: map.data raises TypeError: Got invalid data from salt://app/parameters/os_family/RedHat.yaml: MatcherResult.__init__() got an unexpected keyword argument 'vals'
        app/parameters/osfamily/Debian.yaml:1:1 parameters-layer: `app/parameters/osfamily/` is never loaded: none of the data sources of `app` (saltext implementation) selects it (sources that load files: Y!G@osarch, Y!G@os_family, Y!G@os, Y!G@osfinger, Y!G@id)
    "#]]
    .assert_eq(&published(&f.analysis()));
    // Fix the key: its error goes; the formula's other layer files are reported again, unchanged.
    f.open("app/parameters/os_family/RedHat.yaml");
    f.host.change(&crate::fixture::ws("app/parameters/os_family/RedHat.yaml"), vec![(Some(0..4), "values".into())], 2);
    expect![[r#"
        app/parameters/defaults.yaml:3:11 "sideways" parameters-layer: Unknown merging strategy 'sideways', fallback to recurse (slsutil.merge knows smart, recurse, overwrite, list, aggregate, none)
        app/parameters/osfamily/Debian.yaml:1:1 parameters-layer: `app/parameters/osfamily/` is never loaded: none of the data sources of `app` (saltext implementation) selects it (sources that load files: Y!G@osarch, Y!G@os_family, Y!G@os, Y!G@osfinger, Y!G@id)
    "#]]
    .assert_eq(&published(&f.analysis()));
    let a = f.analysis();
    assert!(a.take_changed_files().unwrap().is_empty());
}
