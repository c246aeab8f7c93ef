//! Pillar hovers: the value for the selected minion and where it came from.

use expect_test::{expect, Expect};

use crate::fixture::Fixture;

const TREE: &str = r#"
#- salt-analyzer.yaml
file_roots: {base: [srv]}
pillar_roots: {base: [pillar]}
minions:
  web01: {grains: {role: web}}
  db01: {grains: {role: db}, pillar: {db: {port: 6543}}}
default_minion: web01
#- pillar/top.sls
base:
  '*':
    - com$Tmon
  'G@role:db':
    - d$Db
#- pillar/common.sls
app:
  port: 8080
  name: ß💣
#- pillar/db.sls
db:
  port: 5432
app:
  port: 9090
#- srv/top.sls
base:
  'I@app:po$Irt:8080':
    - web
#- srv/web.sls
web:
  test.nop:
    - name: {{ salt['pillar.get']('app:po$Art') }}
    - port: {{ pillar['app']['na$Bme'] }}
    - other: {{ pillar.get('nope:x$C', 1) }}
"#;

fn hover(marker: char, minion: Option<&str>, expect: Expect) {
    expect.assert_eq(&Fixture::at_marker(TREE, marker, minion).hover_markdown());
}

#[test]
fn hover_on_pillar_get_in_a_template() {
    hover(
        'A',
        None,
        expect![[r#"
        **pillar** `app:port` for minion `web01`

        ```json
        8080
        ```

        Set by [base] common pillar/common.sls:2
    "#]],
    );
    // db01 also gets db.sls, which sets it over common.sls.
    hover(
        'A',
        Some("db01"),
        expect![[r#"
        **pillar** `app:port` for minion `db01`

        ```json
        9090
        ```

        Set by [base] db pillar/db.sls:4, over [base] common
    "#]],
    );
    hover(
        'B',
        None,
        expect![[r#"
        **pillar** `app:name` for minion `web01`

        ```json
        "ß💣"
        ```

        Set by [base] common pillar/common.sls:3
    "#]],
    );
    hover(
        'C',
        None,
        expect![[r#"
        **pillar** `nope:x` for minion `web01`: **not set** (`pillar.get` gives its default)
    "#]],
    );
}

#[test]
fn hover_on_an_i_at_target_and_a_pillar_top_entry() {
    hover(
        'I',
        None,
        expect![[r#"
        **pillar** `app:port` for minion `web01`

        ```json
        8080
        ```

        Set by [base] common pillar/common.sls:2
    "#]],
    );
    hover(
        'T',
        None,
        expect![[r#"
        **pillar SLS** `common` for minion `web01`

        File: `pillar/common.sls`

        Sets `app:port`, `app:name`
    "#]],
    );
    hover(
        'D',
        None,
        expect![[r#"
        **pillar SLS** `db` for minion `web01`

        Not rendered for this minion (its target does not match it, or the SLS is missing).
    "#]],
    );
    hover(
        'D',
        Some("db01"),
        expect![[r#"
        **pillar SLS** `db` for minion `db01`

        File: `pillar/db.sls`

        Sets `app:port`, `db:port`
    "#]],
    );
}
