//! The editor crate and the language server depend on themselves one way
//! (docs/ARCHITECTURE.md): in `server/ide/src` and in `server/analyzer/src/lsp`, a module may
//! name (by a `crate::` or `super::` path) only layers listed before its own, and no file
//! depends on a file that depends back on it, however long the way round. The model's own
//! order is `server/model/tests/layering.rs`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn server() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).expect("read src").flatten() {
        let p = e.path();
        if p.is_dir() {
            sources(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// A file's module path below the crate root: `db/files.rs` is `["db", "files"]`,
/// `db/mod.rs` is `["db"]`.
fn module_of(rel: &Path) -> Vec<String> {
    let mut segs: Vec<String> = rel.iter().map(|s| s.to_string_lossy().into_owned()).collect();
    let last = segs.pop().unwrap_or_default();
    let stem = last.trim_end_matches(".rs");
    if stem != "mod" && stem != "lib" && stem != "main" {
        segs.push(stem.to_string());
    }
    segs
}

/// Every path a line names from `crate::` or `super::`, with `use crate::{a::b, c}` groups
/// spread out: `(anchor, segments)`.
fn paths(line: &str) -> Vec<(&'static str, Vec<String>)> {
    let mut out = Vec::new();
    for anchor in ["crate::", "super::"] {
        for (i, _) in line.match_indices(anchor) {
            if line[..i].ends_with(|c: char| c.is_alphanumeric() || c == '_' || c == ':') {
                continue; // `super::super::x` is read from its first `super::`
            }
            let rest = &line[i + anchor.len()..];
            let mut prefix = Vec::new();
            let mut base = if anchor == "crate::" { "crate" } else { "super" };
            let mut rest = rest;
            while let Some(r) = rest.strip_prefix("super::") {
                base = "super2";
                rest = r;
            }
            let word = |s: &str| s.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect::<String>();
            loop {
                let w = word(rest);
                if w.is_empty() {
                    break;
                }
                rest = &rest[w.len()..];
                prefix.push(w);
                match rest.strip_prefix("::") {
                    Some(r) => rest = r,
                    None => break,
                }
            }
            let anchor: &'static str = match base {
                "crate" => "crate",
                "super" => "super",
                _ => "super2",
            };
            if let Some(group) = rest.strip_prefix('{') {
                let inner = group.split('}').next().unwrap_or_default();
                for item in inner.split(',') {
                    let mut p = prefix.clone();
                    p.extend(item.trim().split("::").map(word).filter(|w| !w.is_empty()));
                    out.push((anchor, p));
                }
            } else {
                out.push((anchor, prefix));
            }
        }
    }
    out
}

/// Checks the modules below `src` (whose module path in its crate is `at`): layers in `order`
/// (a top-level module below `src`, or `root` for the file that declares them), `exempt` ones
/// (test support) not checked.
fn check(src: &Path, at: &[&str], root: &str, order: &[&str], exempt: &[&str]) -> (usize, Vec<String>) {
    let mut files = Vec::new();
    sources(src, &mut files);
    let modules: BTreeMap<Vec<String>, PathBuf> = files.iter().map(|f| (module_of(f.strip_prefix(src).unwrap()), f.clone())).collect();
    let at: Vec<String> = at.iter().map(|s| s.to_string()).collect();
    let mut wrong = Vec::new();
    let mut edges: BTreeMap<Vec<String>, BTreeSet<Vec<String>>> = BTreeMap::new();
    let mut checked = 0;
    for (module, file) in &modules {
        let rel = file.strip_prefix(src).unwrap().display().to_string();
        let own = module.first().map_or(root, String::as_str);
        if exempt.contains(&own) {
            continue;
        }
        let rank = order.iter().position(|c| *c == own).unwrap_or_else(|| panic!("{rel}: `{own}` is not in the order"));
        let text = std::fs::read_to_string(file).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        for (n, line) in lines.iter().enumerate() {
            let t = line.trim_start();
            // A file's own unit tests may use anything.
            if t == "#[cfg(test)]" && lines.get(n + 1).is_some_and(|l| l.trim_start().starts_with("mod tests")) {
                break;
            }
            if t.starts_with("//") {
                continue;
            }
            for (anchor, segs) in paths(line) {
                // The full module path the reference starts from, inside this tree.
                let mut full: Vec<String> = match anchor {
                    "crate" => match segs.strip_prefix(at.as_slice()) {
                        Some(inside) => inside.to_vec(),
                        None => continue,
                    },
                    // The root's `super::` is outside this tree.
                    _ if module.is_empty() => continue,
                    _ => {
                        let mut base = module.clone();
                        // `super::` of `a/b.rs` is `a`; of `a/mod.rs`, the parent of `a`.
                        base.pop();
                        if anchor == "super2" {
                            base.pop();
                        }
                        base.extend(segs.iter().cloned());
                        base
                    }
                };
                // The longest prefix that is a module of this tree.
                while !full.is_empty() && !modules.contains_key(&full) {
                    full.pop();
                }
                let layer = full.first().map_or(root, String::as_str);
                if exempt.contains(&layer) {
                    continue;
                }
                let Some(used) = order.iter().position(|c| *c == layer) else { continue };
                checked += 1;
                if used > rank {
                    wrong.push(format!("{rel}:{}: `{own}` uses the later `{layer}`", n + 1));
                }
                if &full != module {
                    edges.entry(module.clone()).or_default().insert(full);
                }
            }
        }
    }
    // Any cycle between files, within a layer too.
    let mut done: BTreeSet<Vec<String>> = BTreeSet::new();
    for start in edges.keys() {
        let mut stack = vec![(start.clone(), vec![start.clone()])];
        let mut seen = BTreeSet::new();
        while let Some((m, way)) = stack.pop() {
            for next in edges.get(&m).into_iter().flatten() {
                if next == start {
                    let names: Vec<String> = way.iter().chain([next]).map(|m| m.join("::")).collect();
                    let key = {
                        let mut k = way.clone();
                        k.sort();
                        k
                    };
                    if done.insert(key.concat()) {
                        wrong.push(format!("cycle: {}", names.join(" -> ")));
                    }
                } else if seen.insert(next.clone()) {
                    let mut w = way.clone();
                    w.push(next.clone());
                    stack.push((next.clone(), w));
                }
            }
        }
    }
    (checked, wrong)
}

#[test]
fn ide_layers_depend_one_way() {
    let order = ["types", "db", "index", "snapshot", "salt", "features", "analysis", "host", "lib"];
    let (checked, wrong) = check(&server().join("ide/src"), &[], "lib", &order, &["fixture", "tests"]);
    assert!(checked > 100, "only {checked} paths found: is the source tree where it was?");
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn lsp_modules_depend_one_way() {
    let order = ["state", "from_proto", "to_proto", "frame", "impact", "statedocs", "publish", "server", "mod"];
    let (checked, wrong) = check(&server().join("analyzer/src/lsp"), &["lsp"], "mod", &order, &[]);
    assert!(checked > 10, "only {checked} paths found: is the source tree where it was?");
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
