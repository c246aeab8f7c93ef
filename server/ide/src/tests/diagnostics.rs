use expect_test::expect;

use crate::fixture::Fixture;
use crate::fixture::{all_diagnostics, ws};
use crate::index::semantic::IndexStats;

/// How the index has brought its roots up to date so far.
fn stats(f: &Fixture) -> IndexStats {
    f.analysis().snap.with_index(|idx| idx.stats).expect("not cancelled")
}

const WEB_DB: &str = r#"
#- top.sls
base:
  '*':
    - db
#- web/init.sls
web_id:
  pkg.installed:
    - name: nginx
#- db/init.sls
include:
  - web
db_id:
  test.nop:
    - require:
      - pkg: web_id
"#;

#[test]
fn deleting_a_required_id_reports_in_the_requiring_file() {
    let mut f = Fixture::new(WEB_DB);
    expect![[""]].assert_eq(&all_diagnostics(&f.analysis()));
    f.open("web/init.sls");
    // Rename the ID in web/init.sls: db/init.sls, which requires it, gets the error.
    f.host.change(&ws("web/init.sls"), vec![(Some(0..6), "other_id".into())], 2);
    expect![[r#"
        db/init.sls:6:9 "pkg: web_id" missing-requisite-target: Referenced state does not exist for requisite [require: (pkg: web_id)] in state [db_id] in SLS [db]
    "#]]
    .assert_eq(&all_diagnostics(&f.analysis()));
    // And back.
    f.host.change(&ws("web/init.sls"), vec![(Some(0..8), "web_id".into())], 3);
    expect![[""]].assert_eq(&all_diagnostics(&f.analysis()));
}

#[test]
fn renaming_one_of_two_duplicates_clears_both() {
    let mut f = Fixture::new(
        r#"
#- a.sls
include: [b]
dup:
  test.nop: []
#- b.sls
dup:
  test.nop:
    - name: ß
"#,
    );
    expect![[r#"
        a.sls:2:1 "dup" duplicate-id: Detected conflicting IDs, SLS IDs need to be globally unique.
        b.sls:1:1 "dup" duplicate-id: Detected conflicting IDs, SLS IDs need to be globally unique.
    "#]]
    .assert_eq(&all_diagnostics(&f.analysis()));
    f.open("b.sls");
    f.host.change(&ws("b.sls"), vec![(Some(0..3), "unique_ℝ".into())], 2);
    expect![[""]].assert_eq(&all_diagnostics(&f.analysis()));
}

#[test]
fn creating_the_missing_file_of_an_include_clears_it() {
    let mut f = Fixture::new(
        r#"
#- app.sls
include:
  - lib.missing
  - .sibling
app: test.nop
#- lib/missing/init.sls
"#,
    );
    // The file `lib/missing/init.sls` exists but is empty: `lib.missing` resolves to it.
    f.disk.remove(&ws("lib/missing/init.sls"));
    f.host.files_changed_on_disk(&[ws("lib/missing/init.sls")]);
    expect![[r#"
        app.sls:2:5 "lib.missing" missing-include: Specified SLS lib.missing in saltenv base is not available on the salt master or through a configured fileserver
        app.sls:3:5 ".sibling" missing-include: Specified SLS sibling in saltenv base is not available on the salt master or through a configured fileserver
    "#]]
    .assert_eq(&all_diagnostics(&f.analysis()));
    let changed = f.analysis().take_changed_files().unwrap();
    assert_eq!(changed, [ws("app.sls")]);
    // `x.sls` is what Salt looks for first.
    f.disk.write(&ws("lib/missing.sls"), "lib_id: test.nop\n");
    f.host.files_changed_on_disk(&[ws("lib/missing.sls")]);
    f.disk.write(&ws("sibling/init.sls"), "sib: test.nop\n");
    f.host.files_changed_on_disk(&[ws("sibling")]);
    expect![[""]].assert_eq(&all_diagnostics(&f.analysis()));
    let changed = f.analysis().take_changed_files().unwrap();
    assert_eq!(changed, [ws("app.sls"), ws("lib/missing.sls"), ws("sibling/init.sls")]);
}

#[test]
fn an_edit_recomputes_only_the_roots_that_read_the_file() {
    let mut f = Fixture::new(
        r#"
#- common.sls
common: test.nop
#- a.sls
include: [common]
a: {test.nop: [{require: [common]}]}
#- b.sls
include: [common]
b: test.nop
#- lone.sls
lone: test.nop
"#,
    );
    let first = f.analysis().take_changed_files().unwrap();
    assert_eq!(first, [ws("a.sls"), ws("b.sls"), ws("common.sls"), ws("lone.sls")]);
    assert_eq!(stats(&f), IndexStats { checked: 4, rechecked: 0 });
    f.open("common.sls");
    f.host.change(&ws("common.sls"), vec![(Some(0..6), "renamed".into())], 2);
    // Roots a, b and common read common.sls; lone did not, and keeps its check. The edit
    // renames a state, which no recheck takes: the three are checked again.
    let changed = f.analysis().take_changed_files().unwrap();
    assert_eq!(changed, [ws("a.sls"), ws("b.sls"), ws("common.sls")]);
    assert_eq!(stats(&f), IndexStats { checked: 7, rechecked: 0 });
    expect![[r#"
        a.sls:2:27 "common" missing-requisite-target: Referenced state does not exist for requisite [require: (id: common)] in state [a] in SLS [a]
    "#]]
    .assert_eq(&all_diagnostics(&f.analysis()));
}

#[test]
fn syntax_errors_come_from_the_open_document() {
    let mut f = Fixture::new("#- s.sls\nok: test.nop\n");
    f.open("s.sls");
    // Non-ASCII before the error: ranges are bytes, the helper prints character columns.
    f.host.change(&ws("s.sls"), vec![(Some(13..13), "ß_ℝ_💣: {a: 1}}\n".into())], 2);
    let a = f.analysis();
    expect![[r#"
        s.sls:2:14 "}" syntax: YAML syntax: unexpected `}`
    "#]]
    .assert_eq(&all_diagnostics(&a));
    // The loader's copy of the same error is shown once the tree has none (here it has one).
    assert!(a.diagnostics(&ws("s.sls")).unwrap().is_empty());
}

#[test]
fn a_broken_workspace_file_is_reported_and_the_root_is_analysed() {
    let f = Fixture::new(
        r#"
#- salt-analyzer.yaml
file_roots: [
#- a.sls
include: [nope]
"#,
    );
    let a = f.analysis();
    let ds = a.diagnostics(&ws("salt-analyzer.yaml")).unwrap();
    assert_eq!(ds.len(), 1, "{ds:?}");
    assert!(ds[0].message.contains("not valid YAML"), "{}", ds[0].message);
    expect![[r#"
        a.sls:1:11 "nope" missing-include: Specified SLS nope in saltenv base is not available on the salt master or through a configured fileserver
    "#]]
    .assert_eq(&all_diagnostics(&a));
}

#[test]
fn stale_snapshots_are_cancelled() {
    let mut f = Fixture::new("#- a.sls\na: test.nop\n");
    f.open("a.sls");
    let old = f.analysis();
    f.host.change(&ws("a.sls"), vec![(Some(0..1), "b".into())], 2);
    let new = f.analysis();
    assert!(old.is_stale());
    assert!(new.diagnostics(&ws("a.sls")).is_ok());
    assert_eq!(old.diagnostics(&ws("a.sls")), Err(crate::Cancelled));
}

/// Typing inside states of an included file, a character at a time (the roots keep their
/// sessions and are rechecked, not compiled again): after every keystroke the diagnostics are
/// those of a fresh host opened on the same texts.
#[test]
fn typing_inside_states_gives_what_a_fresh_check_gives() {
    let fixture = r#"
#- a.sls
include: [b]
a_id:
  test.nop:
    - require:
      - pkg: nginx
      - test: other
#- b.sls
b_id:
  pkg.installed:
    - name: ngin$0
other:
  test.nop:
    - name: ß_ℝ
"#;
    let mut f = Fixture::new(fixture);
    f.open("b.sls");
    let (path, at) = f.cursor();
    expect![[r#"
        a.sls:5:9 "pkg: nginx" missing-requisite-target: Referenced state does not exist for requisite [require: (pkg: nginx)] in state [a_id] in SLS [a]
    "#]]
    .assert_eq(&all_diagnostics(&f.analysis()));
    let fresh = |f: &Fixture| {
        let a = f.analysis();
        let mut text = String::new();
        for rel in ["a.sls", "b.sls"] {
            text.push_str(&format!("#- {rel}\n{}", a.text(&ws(rel)).expect("text")));
        }
        let mut g = Fixture::new(&text);
        g.open("b.sls");
        all_diagnostics(&g.analysis())
    };
    // `x` completes the name the requisite looks for, `💣y` spoils it again; then a requisite
    // is typed under `other`, and a comment after it.
    let typed = "x💣y";
    let mut version = 1;
    let mut edits: Vec<(usize, &str)> = typed.char_indices().map(|(i, c)| (at + i, &typed[i..i + c.len_utf8()])).collect();
    let tail = f.analysis().text(&path).expect("text").len() + typed.len();
    edits.extend(["\n", "    - ", "require:", "\n      - b_id", "\n# done"].into_iter().scan(tail, |end, s| {
        let at = *end;
        *end += s.len();
        Some((at, s))
    }));
    for (i, (at, s)) in edits.into_iter().enumerate() {
        version += 1;
        let before = stats(&f);
        f.host.change(&path, vec![(Some(at..at), s.to_string())], version);
        let ours = all_diagnostics(&f.analysis());
        // Both roots read b.sls, and both are rechecked from their sessions.
        assert_eq!(stats(&f), IndexStats { checked: before.checked, rechecked: before.rechecked + 2 }, "after edit {i} ({s:?})");
        assert_eq!(ours, fresh(&f), "after edit {i} ({s:?})");
        if i == 0 {
            expect![[""]].assert_eq(&ours);
        }
    }
    // `nginx💣y` is not `nginx` again; the lines typed after `other` are a comment and a
    // requisite that finds `b_id`.
    expect![[r#"
        a.sls:5:9 "pkg: nginx" missing-requisite-target: Referenced state does not exist for requisite [require: (pkg: nginx)] in state [a_id] in SLS [a]
    "#]]
    .assert_eq(&all_diagnostics(&f.analysis()));
    // Deleting `💣y` completes the name again.
    let text = f.analysis().text(&path).expect("text");
    let from = text.find("nginx").expect("name") + "nginx".len();
    f.host.change(&path, vec![(Some(from..from + "💣y".len()), String::new())], version + 1);
    assert_eq!(all_diagnostics(&f.analysis()), fresh(&f));
    expect![[""]].assert_eq(&all_diagnostics(&f.analysis()));
}

/// A created file recomputes only the roots whose recorded questions to the file roots it
/// answers differently: a glob include it matches, a dotted name it lists, the root itself.
#[test]
fn a_created_file_recomputes_only_the_roots_it_answers() {
    let mut f = Fixture::new(
        r#"
#- glob.sls
include: ['lib.*']
g: test.nop
#- lib/one.sls
one: test.nop
#- plain.sls
include: [lib.one]
p: test.nop
#- dotted.sls
include: [web_1.0]
d: test.nop
"#,
    );
    f.analysis().take_changed_files().unwrap();
    // Nothing includes `other`: only the new root is checked.
    f.disk.write(&ws("other/ß💣.sls"), "x: test.nop\n");
    f.host.files_changed_on_disk(&[ws("other/ß💣.sls")]);
    assert_eq!(f.analysis().take_changed_files().unwrap(), [ws("other/ß💣.sls")]);
    // `lib.*` now matches `lib.two` as well: the glob's root is recomputed, `plain` is not.
    f.disk.write(&ws("lib/two.sls"), "two: test.nop\n");
    f.host.files_changed_on_disk(&[ws("lib/two.sls")]);
    assert_eq!(f.analysis().take_changed_files().unwrap(), [ws("glob.sls"), ws("lib/one.sls"), ws("lib/two.sls")]);
    // A file listed as `web_1.0` still loads nothing, but now the include fails for its dot.
    expect![[r#"
        dotted.sls:1:11 "web_1.0" missing-include: Specified SLS web_1.0 in saltenv base is not available on the salt master or through a configured fileserver
    "#]]
    .assert_eq(&all_diagnostics(&f.analysis()));
    f.disk.write(&ws("web_1.0.sls"), "w: test.nop\n");
    f.host.files_changed_on_disk(&[ws("web_1.0.sls")]);
    assert_eq!(f.analysis().take_changed_files().unwrap(), [ws("dotted.sls"), ws("web_1.0.sls")]);
    let all = all_diagnostics(&f.analysis());
    assert!(all.contains("dotted.sls:1:11 \"web_1.0\" dotted-sls-name"), "{all}");
}

#[test]
fn state_calls_are_checked_against_the_catalog_and_the_workspace_states() {
    let mut f = Fixture::new(
        r#"
#- _states/webapp.py
__virtualname__ = "webapp"
__func_alias__ = {"list_": "list"}

def deployed(name, version, port=8080):
    pass

def list_(name, items=None):
    pass
#- web.sls
nginx:
  pkg.instaled: []
conf:
  file.replace:
    - backupp: .bak
app:
  webapp.deployed:
    - port: 80
listing:
  webapp.list:
    - itemz: [ß, ℝ, 💣]
old:
  file.shortcut:
    - target: /x
"#,
    );
    expect![[r#"
        web.sls:2:3 "pkg.instaled" unknown-function: State 'pkg.instaled' was not found in SLS 'web'
        web.sls:4:3 "file.replace" missing-parameter: Missing parameter pattern for state file.replace
        web.sls:4:3 "file.replace" missing-parameter: Missing parameter repl for state file.replace
        web.sls:5:7 "backupp" unknown-argument: 'backupp' is an invalid keyword argument for 'file.replace'
        web.sls:7:3 "webapp.deployed" missing-parameter: Missing parameter version for state webapp.deployed
        web.sls:11:7 "itemz" unknown-argument: 'itemz' is an invalid keyword argument for 'webapp.list'
        web.sls:13:3 "file.shortcut" deprecated-function: State 'file.shortcut' is deprecated: This function is being deprecated in favor of 'shortcut.present'
    "#]]
    .assert_eq(&all_diagnostics(&f.analysis()));
    // The custom module grows the argument: its use is no longer an error.
    f.open("_states/webapp.py");
    f.host.change(&ws("_states/webapp.py"), vec![(Some(129..134), "itemz".into())], 2);
    expect![[r#"
        web.sls:2:3 "pkg.instaled" unknown-function: State 'pkg.instaled' was not found in SLS 'web'
        web.sls:4:3 "file.replace" missing-parameter: Missing parameter pattern for state file.replace
        web.sls:4:3 "file.replace" missing-parameter: Missing parameter repl for state file.replace
        web.sls:5:7 "backupp" unknown-argument: 'backupp' is an invalid keyword argument for 'file.replace'
        web.sls:7:3 "webapp.deployed" missing-parameter: Missing parameter version for state webapp.deployed
        web.sls:13:3 "file.shortcut" deprecated-function: State 'file.shortcut' is deprecated: This function is being deprecated in favor of 'shortcut.present'
    "#]]
    .assert_eq(&all_diagnostics(&f.analysis()));
}

#[test]
fn functions_the_users_salt_documents_are_not_unknown() {
    let mut f = Fixture::new(
        r#"
#- db.sls
dbuser:
  mysql_user.present:
    - host: localhost
typo:
  mysql_usr.present: []
"#,
    );
    let before = all_diagnostics(&f.analysis());
    assert!(before.contains("'mysql_user.present' was not found"), "{before}");
    f.analysis().take_changed_files().unwrap();
    // Salt's docs arrive: that Salt loads saltext-mysql.
    let docs = crate::StateDocs {
        salt_version: "3008.4".into(),
        docs: [("mysql_user.present".to_string(), "Ensure that the named user is present".to_string())].into(),
    };
    f.host.set_state_docs(crate::DocsStatus::Ready(std::sync::Arc::new(docs)));
    // Nothing is recomputed, but the file is reported again.
    assert_eq!(f.analysis().take_changed_files().unwrap(), [ws("db.sls")]);
    expect![[r#"
        db.sls:5:3 "mysql_usr.present" unknown-function: State 'mysql_usr.present' was not found in SLS 'db'
    "#]]
    .assert_eq(&all_diagnostics(&f.analysis()));
    let a = f.analysis();
    let h = a.hover(&ws("db.sls"), 10).unwrap().expect("a hover");
    expect![[r#"
        **mysql_user.present**

        From your Salt 3008.4 (an extension it loads: salt-analyzer does not know its signature)

        ---

        ```rst
        Ensure that the named user is present
        ```
    "#]]
    .assert_eq(&h.markdown);
}
