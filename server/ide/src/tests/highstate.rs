//! Highstate diagnostics: the selected minion's highstate, its switches, its cache.

use expect_test::expect;

use crate::fixture::Fixture;
use crate::fixture::{all_diagnostics, ws};

/// `web01`'s top assigns `web` and `monitoring`, which do not include each other and both
/// declare `shared_id`: only its highstate has the conflict. `db01`'s has none.
const TWO_MINIONS: &str = r#"
#- salt-analyzer.yaml
minions:
  web01: {grains: {roles: [web]}}
  db01: {grains: {roles: [db]}}
#- top.sls
base:
  'web01':
    - web
    - monitoring
  'db01':
    - db
#- web.sls
# Größe des Webservers 💣
nginx_ß:
  pkg.installed: []
shared_id:
  test.nop: []
#- monitoring.sls
shared_id:
  test.nop:
    - name: agent
#- db.sls
db: test.nop
"#;

fn compiles(f: &Fixture) -> u64 {
    f.analysis().snap.with_highstate(|idx| idx.highstate.compiles()).expect("not cancelled")
}

#[test]
fn conflicting_ids_follow_the_selected_minion() {
    let mut f = Fixture::new(TWO_MINIONS);
    // No minion selected (and no default): nothing is compiled, nothing is reported.
    expect![[""]].assert_eq(&all_diagnostics(&f.analysis()));
    let first = f.analysis().take_changed_files().unwrap();
    assert_eq!(first, [ws("db.sls"), ws("monitoring.sls"), ws("top.sls"), ws("web.sls")]);
    assert_eq!(compiles(&f), 0);

    f.host.set_minion(Some("web01".into()));
    assert_eq!(f.analysis().take_changed_files().unwrap(), [ws("monitoring.sls"), ws("web.sls")]);
    expect![[r#"
        monitoring.sls:1:1 "shared_id" duplicate-id: In the highstate of minion `web01`: Detected conflicting IDs, SLS IDs need to be globally unique.
        web.sls:4:1 "shared_id" duplicate-id: In the highstate of minion `web01`: Detected conflicting IDs, SLS IDs need to be globally unique.
    "#]]
    .assert_eq(&all_diagnostics(&f.analysis()));
    let a = f.analysis();
    let d = &a.diagnostics(&ws("monitoring.sls")).unwrap()[0];
    expect![[r#"
        In the highstate of minion `web01`: Detected conflicting IDs, SLS IDs need to be globally unique.
            The conflicting ID is 'shared_id' and is found in SLS 'base:web' and SLS 'base:monitoring'
    "#]]
    .assert_eq(&format!("{}\n", d.message));
    let related: Vec<String> = d.related.iter().map(|(r, m)| format!("{} {m}", crate::fixture::at(&a, &r.path, r.range.clone()))).collect();
    assert_eq!(related, [r#"web.sls:4:1 "shared_id" `shared_id` is also declared here"#]);
    assert_eq!(compiles(&f), 1);

    f.host.set_minion(Some("db01".into()));
    assert_eq!(f.analysis().take_changed_files().unwrap(), [ws("monitoring.sls"), ws("web.sls")]);
    expect![[""]].assert_eq(&all_diagnostics(&f.analysis()));

    // Back to web01, then clearing the selection: the diagnostics come and go again.
    f.host.set_minion(Some("web01".into()));
    assert_eq!(f.analysis().take_changed_files().unwrap(), [ws("monitoring.sls"), ws("web.sls")]);
    f.host.set_minion(None);
    assert_eq!(f.analysis().take_changed_files().unwrap(), [ws("monitoring.sls"), ws("web.sls")]);
    expect![[""]].assert_eq(&all_diagnostics(&f.analysis()));
    // web01's second turn came from the cache: nothing its compile read had changed.
    assert_eq!(compiles(&f), 2);
}

#[test]
fn only_edits_to_files_the_highstate_read_recompile_it() {
    let mut f = Fixture::new(TWO_MINIONS);
    f.host.set_minion(Some("web01".into()));
    f.analysis().take_changed_files().unwrap();
    assert_eq!(compiles(&f), 1);
    // db.sls is not in web01's highstate: its diagnostics are recomputed, the highstate is not.
    f.open("db.sls");
    f.host.change(&ws("db.sls"), vec![(Some(0..2), "db_renamed".into())], 2);
    assert_eq!(f.analysis().take_changed_files().unwrap(), [ws("db.sls")]);
    assert_eq!(compiles(&f), 1);
    // The fix, in a file the highstate rendered: recompiled, and both ends are cleared.
    f.open("monitoring.sls");
    f.host.change(&ws("monitoring.sls"), vec![(Some(0..9), "agent_ℝ".into())], 2);
    assert_eq!(f.analysis().take_changed_files().unwrap(), [ws("monitoring.sls"), ws("web.sls")]);
    assert_eq!(compiles(&f), 2);
    expect![[""]].assert_eq(&all_diagnostics(&f.analysis()));
    // Reintroducing it brings it back.
    f.host.change(&ws("monitoring.sls"), vec![(Some(0.."agent_ℝ".len()), "shared_id".into())], 3);
    assert!(all_diagnostics(&f.analysis()).contains("monitoring.sls:1:1 \"shared_id\" duplicate-id: In the highstate of minion `web01`"));
    // The top file is read by every highstate: editing it recompiles.
    f.open("top.sls");
    f.host.change(
        &ws("top.sls"),
        vec![(Some("base:\n  'web01':\n    - web\n".len().."base:\n  'web01':\n    - web\n    - monitoring\n".len()), String::new())],
        2,
    );
    expect![[""]].assert_eq(&all_diagnostics(&f.analysis()));
    assert_eq!(compiles(&f), 4);
}

/// A requisite only one minion's pillar writes, naming an SLS its highstate does not have.
const PILLAR: &str = r#"
#- salt-analyzer.yaml
minions:
  app01: {pillar: {role: proxy}}
  app02: {pillar: {role: backend}}
#- top.sls
base:
  'app*':
    - app
#- app.sls
{% if salt['pillar.get']('role') == 'proxy' %}
proxy_conf:
  test.nop:
    - require:
      - sls: certs
{% endif %}
app_svc:
  test.nop: []
#- certs.sls
cert: test.nop
"#;

#[test]
fn a_requisite_only_one_pillar_writes() {
    let mut f = Fixture::new(PILLAR);
    expect![[""]].assert_eq(&all_diagnostics(&f.analysis()));
    f.analysis().take_changed_files().unwrap();
    f.host.set_minion(Some("app01".into()));
    assert_eq!(f.analysis().take_changed_files().unwrap(), [ws("app.sls")]);
    expect![[r#"
        app.sls:2:1 "proxy_conf" missing-requisite-target: In the highstate of minion `app01`: Referenced state does not exist for requisite [require: (sls: certs)] in state [proxy_conf] in SLS [app]
    "#]]
    .assert_eq(&all_diagnostics(&f.analysis()));
    f.host.set_minion(Some("app02".into()));
    assert_eq!(f.analysis().take_changed_files().unwrap(), [ws("app.sls")]);
    expect![[""]].assert_eq(&all_diagnostics(&f.analysis()));

    // For app01 again, an edit that includes `certs` fixes it.
    f.host.set_minion(Some("app01".into()));
    assert_eq!(f.analysis().take_changed_files().unwrap(), [ws("app.sls")]);
    f.open("app.sls");
    f.host.change(&ws("app.sls"), vec![(Some(0..0), "include: [certs]\n".into())], 2);
    assert!(f.analysis().take_changed_files().unwrap().contains(&ws("app.sls")));
    expect![[""]].assert_eq(&all_diagnostics(&f.analysis()));
}

#[test]
fn a_render_error_that_depends_on_the_pillar() {
    let mut f = Fixture::new(
        r#"
#- salt-analyzer.yaml
minions:
  good: {pillar: {app: {port: 80}}}
  bad: {pillar: {}}
default_minion: good
#- top.sls
base:
  '*':
    - app
#- app.sls
app_port:
  test.nop:
    - name: {{ pillar['app']['port'] }}
"#,
    );
    // `default_minion` is the selected profile until another is chosen.
    expect![[""]].assert_eq(&all_diagnostics(&f.analysis()));
    assert_eq!(compiles(&f), 1);
    f.host.set_minion(Some("bad".into()));
    let got = all_diagnostics(&f.analysis());
    // At the template line whose expression failed.
    assert!(got.starts_with("app.sls:3:1 render-error: In the highstate of minion `bad`: Rendering SLS 'base:app' failed"), "{got}");
}

#[test]
fn a_top_entry_no_environment_has_is_reported_once() {
    let mut f = Fixture::new(
        r#"
#- salt-analyzer.yaml
minions:
  deb: {grains: {os_family: Debian}}
  rh: {grains: {os_family: RedHat}}
#- top.sls
base:
  '*':
    - common
    - nowhere
{% if grains['os_family'] == 'Debian' %}
  'deb':
    - debian.only
{% endif %}
#- common.sls
common: test.nop
"#,
    );
    // The top-file check reports `nowhere`; the Jinja-only entry is the highstate's alone.
    let without = all_diagnostics(&f.analysis());
    f.host.set_minion(Some("deb".into()));
    let got = all_diagnostics(&f.analysis());
    expect![[r#"
        top.sls:4:7 "nowhere" missing-sls: No matching sls found for 'nowhere' in env 'base': no environment has it
        top.sls:7:7 "debian.only" missing-sls: In the highstate of minion `deb`: No matching sls found for 'debian.only' in env 'base'
    "#]]
    .assert_eq(&got);
    f.host.set_minion(Some("rh".into()));
    assert_eq!(all_diagnostics(&f.analysis()), without);
}

#[test]
fn an_extend_of_an_id_the_highstate_does_not_declare() {
    let mut f = Fixture::new(
        r#"
#- salt-analyzer.yaml
minions:
  web01: {grains: {os_family: Debian}}
  web02: {grains: {os_family: RedHat}}
#- top.sls
base:
  '*':
    - web
#- web.sls
include: [pkgs]
{% if grains['os_family'] == 'Debian' %}
extend:
  apache2:
    pkg.installed:
      - version: '2.4'
{% endif %}
#- pkgs.sls
httpd:
  pkg.installed: []
"#,
    );
    expect![[""]].assert_eq(&all_diagnostics(&f.analysis()));
    f.host.set_minion(Some("web01".into()));
    expect![[r#"
        web.sls:4:3 "apache2" missing-extend-target: In the highstate of minion `web01`: Cannot extend ID 'apache2' in 'base:web'. It is not part of the high state.
    "#]]
    .assert_eq(&all_diagnostics(&f.analysis()));
    f.host.set_minion(Some("web02".into()));
    expect![[""]].assert_eq(&all_diagnostics(&f.analysis()));
}

/// `formula/conf.sls` is in no top: with a minion selected it is still rendered for it, as
/// `state.apply formula.conf` would, and what would fail there is a warning naming the SLS.
#[test]
fn a_templated_file_outside_the_highstate_is_rendered_alone() {
    let mut f = Fixture::new(
        r#"
#- salt-analyzer.yaml
minions:
  web01: {grains: {os_family: Debian}}
#- top.sls
base:
  '*':
    - web
#- web.sls
web: test.nop
#- formula/conf.sls
{% if grains['os_family'] == 'Debian' %}
conf_ß💣:
  file.managed:
    - name: {{ nosuch_variable }}
{% endif %}
"#,
    );
    f.open("formula/conf.sls");
    expect![[""]].assert_eq(&all_diagnostics(&f.analysis()));
    f.host.set_minion(Some("web01".into()));
    expect![[r#"
        formula/conf.sls:4:1 render-error: Applying `formula.conf` alone on minion `web01`: Rendering SLS 'base:formula.conf' failed: Jinja variable 'nosuch_variable' is undefined; line 4
    "#]]
    .assert_eq(&all_diagnostics(&f.analysis()));
    let a = f.analysis();
    let d = &a.diagnostics(&ws("formula/conf.sls")).unwrap()[0];
    assert_eq!(d.severity, crate::types::Severity::Warning);
    // Fixing the file fixes the finding; the highstate is not compiled again for it.
    let before = compiles(&f);
    let fixed = "{% if grains['os_family'] == 'Debian' %}\nconf:\n  file.managed:\n    - name: /etc/x\n{% endif %}\n";
    f.host.change(&ws("formula/conf.sls"), vec![(None, fixed.to_string())], 2);
    expect![[""]].assert_eq(&all_diagnostics(&f.analysis()));
    assert_eq!(compiles(&f), before + 1);
}
