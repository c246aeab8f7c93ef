//! Tests of `features/hover.rs`, on `#- path` fixtures with `$0` cursors.

use expect_test::{expect, Expect};

use crate::fixture::Fixture;

const TREE: &str = r#"
#- salt-analyzer.yaml
file_roots: {base: [base], dev: [dev]}
minions:
  web01: {grains: {roles: [web]}}
  db01: {grains: {roles: [db]}}
default_minion: web01
#- base/top.sls
ba$Ase:
  'web*':
    - web
  'G@roles:d$Bb':
    - match: compound
    - db
#- dev/top.sls
base:
  '*':
    - tools
#- base/web/init.sls
include:
  - .t$Cls
web_$Did:
  pkg.installed: []
#- base/web/tls.sls
tls_id:
  test.nop:
    - require:
      - pkg: web$E_id
#- base/db.sls
db_$Fid: test.nop
"#;

fn hover(marker: char, minion: Option<&str>, expect: Expect) {
    expect.assert_eq(&Fixture::at_marker(TREE, marker, minion).hover_markdown());
}

#[test]
fn hover_on_an_include() {
    hover(
        'C',
        None,
        expect![[r#"
        **include** `.tls`

        SLS `web.tls` in environment `base`

        File: `base/web/tls.sls` (`salt://web/tls.sls`)
    "#]],
    );
}

#[test]
fn hover_on_a_state_id() {
    hover(
        'D',
        None,
        expect![[r#"
            **state ID** `web_id`

            State functions: `pkg.installed`

            Declared in SLS `web` (environment `base`), `base/web/init.sls`

            Pulled in by:
            - top file in `base/top.sls`:3

            In the highstate of minion `web01` through `base:web`

            Runs 1st of 2 in the highstate of `web01`, before `tls_id` (require)
        "#]],
    );
    hover(
        'F',
        None,
        expect![[r#"
        **state ID** `db_id`

        State functions: `test.nop`

        Declared in SLS `db` (environment `base`), `base/db.sls`

        Pulled in by:
        - top file in `base/top.sls`:6

        Not in the highstate of minion `web01`.
    "#]],
    );
    hover(
        'E',
        None,
        expect![[r#"
        **require** `pkg: web_id`

        → `web_id` in `base/web/init.sls`:3
    "#]],
    );
}

#[test]
fn hover_on_top_file_parts_follows_the_selected_minion() {
    hover(
        'A',
        None,
        expect![[r#"
            **top-file section** `base`

            For minion `web01` on Salt 3008 (`top_file_merging_strategy: merge`): **used**. base's top file is authoritative for every environment (top_file_merging_strategy: merge)

            Other top files defining `base`:
            - `dev/top.sls` (dev's top file)
        "#]],
    );
    hover(
        'B',
        None,
        expect![[r#"
            **target** `G@roles:db` in section `base` (matcher `compound`)

            Minion `web01` (Salt 3008) **does not match**: compound: `G@roles:db` -> False

            SLS: `db`
        "#]],
    );
    hover(
        'B',
        Some("db01"),
        expect![[r#"
            **target** `G@roles:db` in section `base` (matcher `compound`)

            Minion `db01` (Salt 3008) **matches**: compound: `G@roles:db` -> True

            Adds `base:db`

            SLS: `db`
        "#]],
    );
}

/// Hovers inside templates show what the Jinja evaluates to for the selected minion.
fn jinja_hover(src: &str, minion: &str, expect: Expect) {
    let mut f = Fixture::new(src);
    f.host.set_minion(Some(minion.to_string()));
    let a = f.analysis();
    let (path, offset) = f.cursor();
    let h = a.hover(&path, offset).unwrap().expect("a hover");
    expect.assert_eq(&h.markdown);
}

const TEMPLATED: &str = r#"
#- salt-analyzer.yaml
minions:
  web01: {grains: {os_family: Debian}, pillar: {web: {port: 8080}}}
  web02: {grains: {os_family: RedHat}}
#- web/map.jinja
{% set pkg = {'Debian': 'apache2', 'RedHat': 'httpd'}[grains['os_family']] %}
#- web/init.sls
{% from 'web/map.jinja' import p$Akg %}
{{ p$Bkg }}:
  pkg.installed: []
{% for port in [80, salt['pillar.get']('web:port', 443)] %}
listen_{{ port }}:
  test.nop:
    - name: {{ po$Crt * 2 }}
{% endfor %}
{% if grains['os_family'] == 'RedHat' %}
selinux: {test.nop: [{name: {{ 'ß' ~ p$Dkg }}}]}
{% endif %}
"#;

#[test]
fn hover_on_a_jinja_expression_and_an_import() {
    let strip = |m: char| {
        let mut s = TEMPLATED.replace(&format!("${m}"), "$0");
        for other in ['A', 'B', 'C', 'D'] {
            s = s.replace(&format!("${other}"), "");
        }
        s
    };
    jinja_hover(
        &strip('B'),
        "web02",
        expect![[r#"
            **Jinja** `pkg`

            for minion `web02`:
            ```
            httpd
            ```
        "#]],
    );
    jinja_hover(
        &strip('A'),
        "web01",
        expect![[r#"
            **Jinja** `pkg`

            for minion `web01`:
            ```
            apache2
            ```
        "#]],
    );
    // In a loop: every value.
    jinja_hover(
        &strip('C'),
        "web01",
        expect![[r#"
            **Jinja** `port * 2`

            for minion `web01`, 2 values:
            ```
            160
            ```
            ```
            16160
            ```
        "#]],
    );
    // In a branch the minion does not take.
    jinja_hover(
        &strip('D'),
        "web01",
        expect![[r#"
            **Jinja** `'ß' ~ pkg`

            For minion `web01` this is not evaluated (a branch or loop it does not take).
        "#]],
    );
}

/// A state ID's hover says where `state.apply` runs it in the selected minion's highstate.
#[test]
fn hover_on_a_state_id_says_where_it_runs() {
    let src = r#"
#- salt-analyzer.yaml
minions:
  web01: {}
default_minion: web01
#- top.sls
base:
  '*':
    - web
#- web/init.sls
include:
  - web.conf
nginx:
  test.nop: []
con$0f:
  test.nop:
    - require:
      - nginx
    - listen:
      - test: nginx
    - names:
      - a
      - b
reload:
  test.nop:
    - watch:
      - test: a
#- web/conf.sls
early:
  test.nop:
    - order: first
"#;
    jinja_hover(
        src,
        "web01",
        expect![[r#"
            **state ID** `conf`

            State functions: `test.nop`

            Declared in SLS `web` (environment `base`), `web/init.sls`

            Pulled in by:
            - top file in `top.sls`:3

            In the highstate of minion `web01` through `base:web`

            `test.nop` (`a`) runs 3rd of 5 in the highstate of `web01`, after `nginx` (require), before `reload` (watch)

            Its `listen` runs `test.mod_watch` after every state if `nginx` reports changes

            `test.nop` (`b`) runs 4th of 5 in the highstate of `web01`, after `nginx` (require)

            Its `listen` runs `test.mod_watch` after every state if `nginx` reports changes
        "#]],
    );
}

const CALLS: &str = r#"
#- _states/webapp.py
__virtualname__ = "webapp"

def deployed(name, version, port=8080, **kwargs):
    """
    Deploy the app ß.

    version
        Which release (ℝ).
    """
    return {}
#- web.sls
conf:
  file.rep$Alace:
    - pat$Btern: x
    - repl: y
    - back$Cupp: .bak
    - onl$Dyif: "true"
app:
  webapp:
    - depl$Eoyed
    - vers$Fion: 1
    - some$Gthing: 💣
"#;

fn calls_hover(marker: char, docs: Option<crate::StateDocs>, expect: Expect) {
    let mut f = Fixture::at_marker(CALLS, marker, None);
    if let Some(d) = docs {
        f.host.set_state_docs(crate::DocsStatus::Ready(std::sync::Arc::new(d)));
    }
    expect.assert_eq(&f.hover_markdown());
}

fn replace_docs() -> crate::StateDocs {
    let doc = "Maintain an edit in a file.\n\nname\n    Filesystem path to the file to be edited.\n\npattern\n    A regular expression, to be matched using Python's\n    :py:func:`re.search`.\n";
    crate::StateDocs { salt_version: "3008.4".into(), docs: [("file.replace".to_string(), doc.to_string())].into() }
}

#[test]
fn hover_on_a_state_function_and_its_arguments() {
    // Without Salt's docs: the signature from the catalog, and why there are no docs.
    calls_hover(
        'A',
        None,
        expect![[r#"
            ```python
            file.replace(name, pattern, repl, count=0, flags=8, bufsize=1, append_if_not_found=False, prepend_if_not_found=False, not_found_content=None, backup='.bak', show_changes=True, ignore_if_missing=False, backslash_literal=False, encoding=None)
            ```

            Salt 3008 state function

            _no Salt was asked for documentation_
        "#]],
    );
    calls_hover(
        'A',
        Some(replace_docs()),
        expect![[r#"
            ```python
            file.replace(name, pattern, repl, count=0, flags=8, bufsize=1, append_if_not_found=False, prepend_if_not_found=False, not_found_content=None, backup='.bak', show_changes=True, ignore_if_missing=False, backslash_literal=False, encoding=None)
            ```

            Salt 3008 state function

            ---

            ```rst
            Maintain an edit in a file.

            name
                Filesystem path to the file to be edited.

            pattern
                A regular expression, to be matched using Python's
                :py:func:`re.search`.
            ```
        "#]],
    );
    calls_hover(
        'B',
        Some(replace_docs()),
        expect![[r#"
            **pattern** — argument of `file.replace`

            Required.

            ```rst
            A regular expression, to be matched using Python's
            :py:func:`re.search`.
            ```
        "#]],
    );
    calls_hover(
        'C',
        Some(replace_docs()),
        expect![[r#"
            **backupp** — argument of `file.replace`

            `file.replace` takes no such argument: Salt stops the whole run on it.
        "#]],
    );
    calls_hover(
        'D',
        Some(replace_docs()),
        expect![[r#"
            **onlyif** — argument of `file.replace`

            A keyword of the state system (requisites, `onlyif`, `order`, ...), not passed to the function.
        "#]],
    );
}

#[test]
fn hover_on_a_custom_state_function_shows_its_docstring() {
    calls_hover(
        'E',
        None,
        expect![[r#"
            ```python
            webapp.deployed(name, version, port=8080, **kwargs)
            ```

            Custom state module `_states/webapp.py`

            ---

            ```rst
            Deploy the app ß.

            version
                Which release (ℝ).
            ```
        "#]],
    );
    calls_hover(
        'F',
        None,
        expect![[r#"
            **version** — argument of `webapp.deployed`

            Required.

            ```rst
            Which release (ℝ).
            ```
        "#]],
    );
    calls_hover(
        'G',
        None,
        expect![[r#"
            **something** — argument of `webapp.deployed`

            Not in the signature: `webapp.deployed` takes it through `**kwargs`.
        "#]],
    );
}

const RELEASES: &str = r#"
#- salt-analyzer.yaml
file_roots: {base: [salt]}
salt_version: 3006
#- salt/db.sls
app:
  mysql_user.pres$Aent:
    - host: localhost
"#;

#[test]
fn hover_says_which_release_or_extension_a_function_is_from() {
    let first = |tree: &str| Fixture::at_marker(tree, 'A', None).hover_markdown().lines().nth(4).unwrap_or_default().to_string();
    assert_eq!(first(RELEASES), "Salt 3006 state function");
    let with_ext = RELEASES.replace("salt_version: 3006", "salt_version: 3008\nsaltexts: [saltext.mysql]");
    let version = model::state::catalog::Saltexts::builtin().package("mysql").unwrap().version.clone();
    assert_eq!(first(&with_ext), format!("Salt extension saltext-mysql {version} state function"));
    let without = RELEASES.replace("salt_version: 3006", "salt_version: 3008");
    expect![[r#"
        **mysql_user.present**

        No state module `mysql_user` in Salt 3008 or the workspace's `_states`.

        The Salt extension saltext-mysql 1.1.0 has it: list it under `saltexts:` in salt-analyzer.yaml if your minions have it installed.
    "#]]
    .assert_eq(&Fixture::at_marker(&without, 'A', None).hover_markdown());
}
