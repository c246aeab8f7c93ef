//! Tests of `features/symbols.rs`, on `#- path` fixtures with `$0` cursors.

use expect_test::expect;

use crate::fixture::ws;
use crate::fixture::{at, Fixture};
use crate::{Analysis, DocumentSymbol};

fn outline(a: &Analysis, path: &std::path::Path, syms: &[DocumentSymbol], depth: usize, out: &mut String) {
    for s in syms {
        let detail = s.detail.as_deref().map(|d| format!(" [{d}]")).unwrap_or_default();
        out.push_str(&format!("{:indent$}{:?} {}{detail} @ {}\n", "", s.kind, s.name, at(a, path, s.focus_range.clone()), indent = depth * 2));
        outline(a, path, &s.children, depth + 1, out);
    }
}

#[test]
fn document_symbols_of_an_sls_file() {
    let f = Fixture::new(
        r#"
#- web/init.sls
include:
  - .tls
  - dev: tools
exclude:
  - id: old
extend:
  nginx:
    service:
      - watch: []
nginx:
  pkg.installed: []
  service:
    - running
ℝ_conf: file.managed
"#,
    );
    let a = f.analysis();
    let path = ws("web/init.sls");
    let mut out = String::new();
    outline(&a, &path, &a.document_symbols(&path), 0, &mut out);
    expect![[r#"
        Section include @ web/init.sls:2:5 ".tls\n  - dev: tools"
          Sls .tls [web.tls] @ web/init.sls:2:5 ".tls"
          Sls tools [dev:tools] @ web/init.sls:3:5 "dev: tools"
        Section exclude @ web/init.sls:5:9 "old"
          StateId old [id] @ web/init.sls:5:9 "old"
        Section extend @ web/init.sls:7:3 "nginx:\n    service"
          StateId nginx @ web/init.sls:7:3 "nginx"
            Function service @ web/init.sls:8:5 "service"
        StateId nginx [pkg.installed, service.running] @ web/init.sls:10:1 "nginx"
          Function pkg.installed @ web/init.sls:11:3 "pkg.installed"
          Function service.running @ web/init.sls:12:3 "service"
        StateId ℝ_conf [file.managed] @ web/init.sls:14:1 "ℝ_conf"
          Function file.managed @ web/init.sls:14:9 "file.managed"
    "#]]
    .assert_eq(&out);
}

#[test]
fn document_symbols_of_a_top_file() {
    let f = Fixture::new(
        r#"
#- top.sls
base:
  '*':
    - common
  'web*':
    - match: glob
    - web
"#,
    );
    let a = f.analysis();
    let path = ws("top.sls");
    let mut out = String::new();
    outline(&a, &path, &a.document_symbols(&path), 0, &mut out);
    expect![[r#"
        Environment base @ top.sls:1:1 "base"
          Target * @ top.sls:2:3 "'*'"
            Sls common @ top.sls:3:7 "common"
          Target web* [glob] @ top.sls:4:3 "'web*'"
            Sls web @ top.sls:6:7 "web"
    "#]]
    .assert_eq(&out);
}

#[test]
fn workspace_symbols_cover_every_environment() {
    let f = Fixture::new(
        r#"
#- salt-analyzer.yaml
file_roots: {base: [base], dev: [dev]}
#- base/web/init.sls
web_server: test.nop
#- dev/web_tools.sls
wizard: test.nop
ßweb: test.nop
"#,
    );
    let a = f.analysis();
    let out: String =
        a.workspace_symbols("web").iter().map(|s| format!("{:?} {} in {} @ {}\n", s.kind, s.name, s.container, at(&a, &s.path, s.range.clone()))).collect();
    expect![[r#"
        Sls web in base @ base/web/init.sls:1:1
        StateId web_server in base:web @ base/web/init.sls:1:1 "web_server"
        Sls web_tools in dev @ dev/web_tools.sls:1:1
        StateId ßweb in dev:web_tools @ dev/web_tools.sls:2:1 "ßweb"
    "#]]
    .assert_eq(&out);
    // Fuzzy: the characters in order.
    let names: Vec<String> = a.workspace_symbols("wzd").into_iter().map(|s| s.name).collect();
    assert_eq!(names, ["wizard"]);
}
