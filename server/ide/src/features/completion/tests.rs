//! Completion, one test per context: `$0` is the cursor; each line is `label [detail]`, and
//! the first item's edit shows what it replaces.

use expect_test::{expect, Expect};

use crate::fixture::Fixture;

fn complete(fixture: &str, expect: Expect) {
    complete_n(fixture, 12, expect)
}

fn complete_n(fixture: &str, n: usize, expect: Expect) {
    let f = Fixture::new(fixture);
    let a = f.analysis();
    let (path, offset) = f.cursor();
    let mut items = a.completions(&path, offset).unwrap();
    items.sort_by(|x, y| x.sort.cmp(&y.sort));
    let text = a.text(&path).unwrap();
    let mut out = String::new();
    if let Some(first) = items.first() {
        out.push_str(&format!("replaces {:?} with {:?}\n", &text[first.edit.clone()], first.insert));
    }
    for i in items.iter().take(n) {
        out.push_str(&format!("{} [{}]\n", i.label, i.detail.clone().unwrap_or_default()));
    }
    if items.len() > n {
        out.push_str(&format!("... {} in all\n", items.len()));
    }
    expect.assert_eq(&out);
}

#[test]
fn state_modules_then_functions() {
    complete(
        r#"
#- web.sls
nginx:
  pk$0
"#,
        expect![[r#"
            replaces "pk" with "acl"
            acl [state module, 4 functions]
            alias [state module, 2 functions]
            ansible [state module, 1 functions]
            apache [state module, 1 functions]
            apache_conf [state module, 2 functions]
            apache_module [state module, 2 functions]
            apache_site [state module, 2 functions]
            appx [state module, 1 functions]
            archive [state module, 1 functions]
            assistive [state module, 1 functions]
            at [state module, 4 functions]
            beacon [state module, 4 functions]
            ... 127 in all
        "#]],
    );
    complete(
        r#"
#- web.sls
nginx:
  pkg.ins$0
"#,
        expect![[r#"
            replaces "ins" with "downloaded"
            downloaded [pkg.downloaded(name, version=None, pkgs=None, fromrepo=None, ignore_epoch=None, **kwargs)]
            group_installed [pkg.group_installed(name, skip=None, include=None, **kwargs)]
            held [pkg.held(name, version=None, pkgs=None, replace=False, **kwargs)]
            installed [pkg.installed(name, version=None, refresh=None, fromrepo=None, skip_verify=False, skip_suggestions=False, pkgs=None, sources=None, allow_updates=False, pkg_verify=False, normalize=True, ignore_epoch=None, reinstall=False, update_holds=False, **kwargs)]
            latest [pkg.latest(name, refresh=None, fromrepo=None, skip_verify=False, pkgs=None, watch_flags=True, **kwargs)]
            mod_aggregate [pkg.mod_aggregate(low, chunks, running)]
            mod_beacon [pkg.mod_beacon(name, **kwargs)]
            mod_init [pkg.mod_init(low)]
            mod_watch [pkg.mod_watch(name, **kwargs)]
            patch_downloaded [pkg.patch_downloaded(name, advisory_ids=None, **kwargs)]
            patch_installed [pkg.patch_installed(name, advisory_ids=None, downloadonly=None, **kwargs)]
            purged [pkg.purged(name, version=None, pkgs=None, normalize=True, ignore_epoch=None, **kwargs)]
            ... 15 in all
        "#]],
    );
}

#[test]
fn functions_of_a_plain_module_key_and_custom_modules() {
    complete(
        r#"
#- _states/webapp.py
def deployed(name, version, port=8080):
    pass
#- web.sls
app_ß:
  webapp:
    - $0
"#,
        expect![[r#"
            replaces "" with "deployed"
            deployed [webapp.deployed(name, version, port=8080)]
        "#]],
    );
}

#[test]
fn arguments_required_first_without_those_given() {
    complete_n(
        r#"
#- web.sls
conf:
  file.replace:
    - pattern: 💣
    - $0
    - count: 2
"#,
        8,
        expect![[r#"
            replaces "" with "repl: "
            repl [required]
            append_if_not_found [= False]
            backslash_literal [= False]
            backup [= '.bak']
            bufsize [= 1]
            encoding [= None]
            flags [= 8]
            ignore_if_missing [= False]
            ... 42 in all
        "#]],
    );
    // `pkg: [installed]` form, inside a template.
    complete_n(
        r#"
#- web.sls
{% for p in ['a', 'ℝ'] %}
{{ p }}:
  pkg:
    - installed
    - ver$0
{% endfor %}
"#,
        3,
        expect![[r#"
            replaces "ver" with "allow_updates: "
            allow_updates [= False]
            fromrepo [= None]
            ignore_epoch [= None]
            ... 44 in all
        "#]],
    );
}

#[test]
fn requisite_keywords_and_targets() {
    let tree = r#"
#- web.sls
include:
  - db
nginx:
  pkg.installed: []
site:
  file.managed:
    - require:
      - $0
#- db.sls
postgres:
  pkg.installed:
    - name: postgresql-ß
psql:
  service.running: []
"#;
    complete(
        tree,
        expect![[r#"
        replaces "" with "file: site"
        file: site [web.sls]
        pkg: nginx [web.sls]
        pkg: postgres [db.sls]
        service: psql [db.sls]
    "#]],
    );
    complete(
        &tree.replace("      - $0", "      - pkg: $0"),
        expect![[r#"
            replaces "" with "nginx"
            nginx [ID in web.sls]
            postgres [ID in db.sls]
            postgresql-ß [name in db.sls]
        "#]],
    );
}

#[test]
fn include_items_absolute_and_relative() {
    let tree = r#"
#- web/init.sls
include:
  - $0
#- web/tls.sls
x: test.nop
#- web/conf/files.sls
y: test.nop
#- common.sls
z: test.nop
"#;
    complete(
        tree,
        expect![[r#"
        replaces "" with "common"
        common [SLS in base]
        web [SLS in base]
        web.conf.files [SLS in base]
        web.tls [SLS in base]
    "#]],
    );
    complete(
        &tree.replace("  - $0", "  - .$0"),
        expect![[r#"
            replaces "." with ".conf.files"
            .conf.files [web.conf.files]
            .tls [web.tls]
            ..common [common]
            ..web.conf.files [web.conf.files]
            ..web.tls [web.tls]
        "#]],
    );
}

#[test]
fn top_file_entries_and_matchers() {
    let tree = r#"
#- salt-analyzer.yaml
file_roots: {base: [base], dev: [dev]}
#- base/top.sls
base:
  'web*':
    - $0
#- base/web.sls
x: test.nop
#- base/db/init.sls
y: test.nop
#- dev/tools.sls
z: test.nop
"#;
    complete(
        tree,
        expect![[r#"
        replaces "" with "match: "
        match [how the target is matched]
        db [SLS in base]
        web [SLS in base]
    "#]],
    );
    complete(
        &tree.replace("    - $0", "    - match: gr$0"),
        expect![[r#"
            replaces "gr" with "compound"
            compound [matcher]
            data [matcher]
            glob [matcher]
            grain [matcher]
            grain_pcre [matcher]
            ipcidr [matcher]
            list [matcher]
            managing_minion [matcher]
            nodegroup [matcher]
            pcre [matcher]
            pillar [matcher]
            pillar_exact [matcher]
            ... 15 in all
        "#]],
    );
    complete(
        &tree.replace("base:\n  'web*':\n    - $0", "de$0"),
        expect![[r#"
            replaces "de" with "base"
            base [environment]
            dev [environment]
        "#]],
    );
}

const PROFILE: &str = r#"
#- salt-analyzer.yaml
pillar_roots: {base: [pillar]}
minions:
  web01:
    grains: {os_family: Debian, roles: [web], ℝ: {deep: 1}}
default_minion: web01
#- pillar/top.sls
base:
  '*':
    - app
#- pillar/app.sls
app:
  port: 8080
  db: {host: db.ß}
"#;

#[test]
fn grain_names_and_pillar_keys() {
    complete(
        &format!("{PROFILE}#- top.sls\nbase:\n  'G@os$0':\n    - match: compound\n    - web\n#- web.sls\nx: test.nop\n"),
        expect![[r#"
            replaces "os" with "os_family"
            os_family ["Debian"]
        "#]],
    );
    complete(
        &format!("{PROFILE}#- web.sls\nx:\n  test.nop:\n    - name: {{{{ salt['pillar.get']('app:$0') }}}}\n"),
        expect![[r#"
            replaces "app:" with "app"
            app [{"port":8080,"db":{"host":"db.ß"}}]
            app:db [{"host":"db.ß"}]
            app:db:host ["db.ß"]
            app:port [8080]
        "#]],
    );
    complete(
        &format!("{PROFILE}#- top.sls\nbase:\n  'I@ap$0':\n    - web\n#- web.sls\nx: test.nop\n"),
        expect![[r#"
            replaces "ap" with "app"
            app [{"port":8080,"db":{"host":"db.ß"}}]
            app:db [{"host":"db.ß"}]
            app:db:host ["db.ß"]
            app:port [8080]
        "#]],
    );
}

#[test]
fn salt_urls() {
    complete(
        r#"
#- web.sls
conf:
  file.managed:
    - source: salt://files/ng$0
#- files/nginx.conf
x
#- files/ngrok.yml
y
#- files/other.txt
z
"#,
        expect![[r#"
            replaces "files/ng" with "files/nginx.conf"
            files/nginx.conf []
            files/ngrok.yml []
        "#]],
    );
}

#[test]
fn mapdata_keys_for_the_selected_minion() {
    complete(
        r#"
#- salt-analyzer.yaml
minions:
  deb: {grains: {os_family: Debian}}
default_minion: deb
#- TEMPLATE/map.jinja
{% set mapdata = {'pkg': {'name': 'apache2' if grains['os_family'] == 'Debian' else 'httpd', 'ℝ': 1}, 'service': 'x'} %}
#- TEMPLATE/init.sls
{%- from tpldir ~ '/map.jinja' import mapdata with context %}
pkg:
  pkg.installed:
    - name: {{ mapdata.pkg.$0
"#,
        expect![[r#"
            replaces "" with "name"
            name [key of `mapdata.pkg`]
            ℝ [key of `mapdata.pkg`]
        "#]],
    );
}
