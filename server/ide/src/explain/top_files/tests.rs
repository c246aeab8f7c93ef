//! Tests of `explain/top_files.rs`: the minion picker and the top explanation.

use crate::fixture::{ws, Fixture};
use crate::MinionInfo;

#[test]
fn minions_and_the_top_explanation() {
    let mut f = Fixture::new(
        r#"
#- salt-analyzer.yaml
minions:
  web01: {grains: {os: Debian, saltversioninfo: [3006, 9, 0, 0], saltversion: '3006.9'}}
  db01: {}
default_minion: db01
#- top.sls
base:
  'web*':
    - web
#- web.sls
w: test.nop
"#,
    );
    assert_eq!(
        f.analysis().minions(),
        [
            MinionInfo {
                id: "web01".into(),
                selected: false,
                source: "profile",
                detail: "os=Debian".into(),
                salt: "3006".into(),
                salt_source: "the minion's saltversioninfo grain, 3006.9".into()
            },
            MinionInfo {
                id: "db01".into(),
                selected: true,
                source: "profile",
                detail: String::new(),
                salt: "3008".into(),
                salt_source: "the default: set salt_version: in salt-analyzer.yaml or --salt-version".into()
            }
        ]
    );
    f.host.set_minion(Some("web01".into()));
    let a = f.analysis();
    assert!(a.minions()[0].selected);
    let text = a.top_explain(None);
    assert!(text.starts_with("Top file for minion `web01`"), "{text}");
    assert!(text.contains("base: web"), "{text}");
    let other = a.top_explain(Some("db01"));
    assert!(other.contains("nothing matched"), "{other}");
    let _ = ws("top.sls");
}

#[test]
fn the_fleet_is_in_the_picker_and_a_fleet_minion_is_analysed_when_picked() {
    let mut f = Fixture::new(
        r#"
#- salt-analyzer.yaml
minions:
  web01: {grains: {os: Debian}}
fleet: fleet.json
#- fleet.json
{"web01": {"id": "web01", "os": "Ubuntu"},
 "db7": {"id": "db7", "os": "Rocky", "os_family": "RedHat", "roles": ["db", "backup"], "ipv4": ["10.0.0.7"]}}
#- top.sls
base:
  'G@roles:db':
    - db
    - backup
#- db.sls
postgres: test.nop
#- backup.sls
postgres: test.nop
"#,
    );
    // The profile with the fleet minion's id wins; the other fleet minion is offered with the
    // grains a picker searches.
    let listed: Vec<(String, bool, &str, String)> = f.analysis().minions().into_iter().map(|m| (m.id, m.selected, m.source, m.detail)).collect();
    assert_eq!(
        listed,
        [
            ("web01".to_string(), true, "profile", "os=Debian".to_string()),
            ("db7".to_string(), false, "fleet", "os=Rocky os_family=RedHat roles=db,backup ipv4=10.0.0.7".to_string())
        ]
    );
    // Picked, its highstate is compiled with its fleet grains: the top gives it `db` and
    // `backup`, which declare the same ID.
    f.host.set_minion(Some("db7".into()));
    let a = f.analysis();
    assert!(a.minions()[1].selected);
    let path = std::path::Path::new("/ws/db.sls");
    let found: Vec<String> = a.diagnostics(path).unwrap().into_iter().map(|d| d.message).collect();
    assert!(found.iter().any(|m| m.contains("In the highstate of minion `db7`")), "{found:?}");
}
