//! The workspace's files depend on each other one way (docs/ARCHITECTURE.md): in no crate does
//! a file depend on a file that depends back on it, however long the way round; in
//! `server/ide/src` and in `server/analyzer/src/lsp` a module uses only layers listed before
//! its own; and no command of the CLI (`server/analyzer/src/cli/`) uses another. The graph and
//! the rules by which a file "uses" another (`use` items, `crate::`/`super::`/`self::` paths in
//! code, re-exports followed to where they come from, test code left out) are in
//! `support/modgraph.rs`. The model's order of concerns is `server/model/tests/layering.rs`.

#[path = "support/modgraph.rs"]
mod modgraph;

use modgraph::{name, Graph, Module};
use std::path::{Path, PathBuf};

fn server() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Every crate of the workspace: `server/*/src/lib.rs` and `main.rs`, as `(name, src, root)`.
fn crates() -> Vec<(String, PathBuf, &'static str)> {
    let mut out = Vec::new();
    for dir in std::fs::read_dir(server()).expect("read server/").flatten().map(|e| e.path()) {
        let src = dir.join("src");
        for root in ["lib.rs", "main.rs"] {
            if src.join(root).is_file() {
                let name = format!("{} ({})", dir.file_name().unwrap().to_string_lossy(), root.trim_end_matches(".rs"));
                out.push((name, src.clone(), root));
            }
        }
    }
    out.sort();
    out
}

#[test]
fn no_file_depends_on_itself_in_any_crate() {
    let crates = crates();
    assert!(crates.len() >= 7, "only {} crates found under server/", crates.len());
    let mut wrong = Vec::new();
    let mut edges = 0;
    for (krate, src, root) in &crates {
        let g = modgraph::read(src, root);
        edges += g.edge_count();
        for (files, way) in g.cycles() {
            let names: Vec<String> = files.iter().map(|m| g.file(m)).collect();
            wrong.push(format!("{krate}: {} files depend on each other ({}): {way}", files.len(), names.join(", ")));
        }
    }
    assert!(edges > 500, "only {edges} edges between files: is the source tree where it was?");
    // The figures the issue notes quote (`cargo test --test layering -- --nocapture`).
    eprintln!("{} crates, {edges} arrows between files, {} cycles", crates.len(), wrong.len());
    assert!(wrong.is_empty(), "{} cycles:\n{}", wrong.len(), wrong.join("\n"));
}

/// The edges below `under` whose files are in `order`'s layers (the first segment below
/// `under`, or `root` for `under`'s own file), as `(file, line, layer, used layer)` when the
/// used layer comes later.
fn later_layers(g: &Graph, under: &[&str], root: &str, order: &[&str]) -> (usize, Vec<String>) {
    let under: Module = under.iter().map(|s| s.to_string()).collect();
    let layer = |m: &Module| -> Option<String> {
        let inside = m.strip_prefix(under.as_slice())?;
        Some(inside.first().cloned().unwrap_or_else(|| root.to_string()))
    };
    let mut checked = 0;
    let mut wrong = Vec::new();
    for (from, tos) in &g.edges {
        let Some(own) = layer(from) else { continue };
        let rank = order.iter().position(|c| *c == own).unwrap_or_else(|| panic!("{}: `{own}` is not in the order", g.file(from)));
        for (to, line) in tos {
            let Some(used) = layer(to) else { continue };
            let Some(used_rank) = order.iter().position(|c| *c == used) else { panic!("{}: `{used}` is not in the order", g.file(to)) };
            checked += 1;
            if used_rank > rank {
                wrong.push(format!("{}:{line}: `{own}` uses the later `{used}` ({})", g.file(from), name(to)));
            }
        }
    }
    (checked, wrong)
}

#[test]
fn ide_layers_depend_one_way() {
    let order = ["types", "inputs", "index", "snapshot", "resolve", "cursor", "classify", "explain", "findings", "features", "analysis", "host", "lib"];
    let g = modgraph::read(&server().join("ide/src"), "lib.rs");
    let (checked, wrong) = later_layers(&g, &[], "lib", &order);
    assert!(checked > 60, "only {checked} edges found: is the source tree where it was?");
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn lsp_modules_depend_one_way() {
    let order = ["state", "from_proto", "to_proto", "frame", "impact", "statedocs", "publish", "server", "mod"];
    let g = modgraph::read(&server().join("analyzer/src"), "lib.rs");
    let (checked, wrong) = later_layers(&g, &["lsp"], "mod", &order);
    assert!(checked > 10, "only {checked} edges found: is the source tree where it was?");
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// The editor's features, one file per request, share what sits below them (`resolve`,
/// `cursor`, `classify`, `explain/`) and never use each other.
#[test]
fn no_ide_feature_uses_another() {
    let g = modgraph::read(&server().join("ide/src"), "lib.rs");
    let feature = |m: &Module| match m.as_slice() {
        [f, name] if f == "features" && name != "mod" => Some(name.clone()),
        _ => None,
    };
    let features: Vec<String> = g.modules.keys().filter_map(feature).collect();
    assert!(features.len() >= 15, "only {} feature files: {features:?}", features.len());
    let mut wrong = Vec::new();
    for (from, tos) in &g.edges {
        let Some(a) = feature(from) else { continue };
        for (to, line) in tos {
            if let Some(b) = feature(to).filter(|b| *b != a) {
                wrong.push(format!("{}:{line}: the feature `{a}` uses the feature `{b}`", g.file(from)));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// The CLI's commands, one file each, use what `cli/` shares and never each other.
#[test]
fn no_cli_command_uses_another() {
    let shared = ["mod", "options", "minions", "low", "output"];
    let g = modgraph::read(&server().join("analyzer/src"), "main.rs");
    let command = |m: &Module| match m.as_slice() {
        [cli, name] if cli == "cli" && !shared.contains(&name.as_str()) => Some(name.clone()),
        _ => None,
    };
    let commands: Vec<String> = g.modules.keys().filter_map(command).collect();
    assert!(commands.len() >= 10, "only {} command files under cli/: {commands:?}", commands.len());
    let mut wrong = Vec::new();
    for (from, tos) in &g.edges {
        let Some(a) = command(from) else { continue };
        for (to, line) in tos {
            if let Some(b) = command(to) {
                wrong.push(format!("{}:{line}: the command `{a}` uses the command `{b}`", g.file(from)));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// The graph's rules on a small crate: a cycle through a full path in code and a `use` group
/// over several lines is found, a `super::` `use` is an edge; a re-export, a path in a comment or a string and test code are no edge.
#[test]
fn the_graph_sees_what_a_file_uses() {
    let dir = std::env::temp_dir().join(format!("modgraph-{}", std::process::id()));
    let files = [
        ("lib.rs", "pub mod a;\npub mod b;\npub mod c;\npub mod d;\npub mod e;\n"),
        ("a/mod.rs", "mod x;\npub use x::X;\n// crate::c::f()\nconst S: &str = \"crate::c::f\";\npub fn g() -> u8 { crate::b::h() }\n"),
        ("a/x.rs", "pub struct X;\n#[cfg(test)]\nmod tests {\n    use crate::c::f;\n}\n"),
        ("b.rs", "use super::a::X;\npub fn h() -> u8 { let _ = X; 1 }\n"),
        ("c.rs", "pub fn f() {}\n"),
        ("d.rs", "pub fn d() {\n    crate::e::e()\n}\n"),
        ("e.rs", "use crate::{\n    d,\n};\npub fn e() {}\nfn _f() {\n    d::d()\n}\n"),
    ];
    for (path, text) in files {
        let p = dir.join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
    let g = modgraph::read(&dir, "lib.rs");
    let edges: Vec<String> = g.edges.iter().flat_map(|(a, tos)| tos.keys().map(move |b| format!("{} -> {}", name(a), name(b)))).collect();
    let cycles: Vec<String> = g.cycles().into_iter().map(|(_, way)| way).collect();
    std::fs::remove_dir_all(&dir).ok();
    // `b` reaches `X` through `a`'s re-export, so it uses `a::x`, not `a`; nothing uses `c`;
    // `d` and `e` use each other.
    assert_eq!(edges, ["a -> b", "b -> a::x", "d -> e", "e -> d"]);
    assert_eq!(cycles, ["d.rs:2 -> e.rs:1 -> d.rs"]);
}
