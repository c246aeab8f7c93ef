//! `docs/ARCHITECTURE.md` stays true to the code: every module path, item and source file it
//! names in backticks exists. A rename that forgets the page fails here.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().expect("the repository root")
}

/// Each crate's `src` folder, by the name code uses for it.
fn crates(repo: &Path) -> Vec<(String, PathBuf)> {
    let mut out = Vec::new();
    for entry in fs::read_dir(repo.join("server")).expect("server/").flatten() {
        let src = entry.path().join("src");
        if src.is_dir() {
            out.push((entry.file_name().to_string_lossy().into_owned(), src));
        }
    }
    out.sort();
    out
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = entry.path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

/// The module file `seg` inside the module whose file is `file` (`x.rs` or `x/mod.rs` beside a
/// `mod.rs`/`lib.rs`, or in the folder named after a plain module file).
fn submodule(file: &Path, seg: &str) -> Option<PathBuf> {
    let stem = file.file_stem()?.to_str()?;
    let dir = if stem == "mod" || stem == "lib" || stem == "main" { file.parent()?.to_path_buf() } else { file.with_extension("") };
    [dir.join(format!("{seg}.rs")), dir.join(seg).join("mod.rs")].into_iter().find(|p| p.is_file())
}

/// Whether `name` is declared (as an item, a field or a variant) in `text`.
fn declares(text: &str, name: &str) -> bool {
    let word_end = |rest: &str| rest.chars().next().is_none_or(|c| !(c.is_alphanumeric() || c == '_'));
    let by_keyword = ["fn ", "struct ", "enum ", "trait ", "type ", "const ", "static ", "mod ", "macro_rules! "].iter().any(|kw| {
        let pat = format!("{kw}{name}");
        text.match_indices(&pat).any(|(i, _)| word_end(&text[i + pat.len()..]))
    });
    by_keyword
        || text.lines().any(|line| {
            let l = line.trim_start();
            let l = l.strip_prefix("pub(crate) ").or_else(|| l.strip_prefix("pub ")).unwrap_or(l);
            l.strip_prefix(name).is_some_and(|rest| {
                let rest = rest.trim_start();
                rest.is_empty() || rest.starts_with([':', '(', '{', ','])
            })
        })
}

/// Whether `name` is declared in any of `files` (their texts read once).
fn declared(files: &[PathBuf], name: &str) -> bool {
    thread_local! {
        static TEXTS: std::cell::RefCell<std::collections::HashMap<PathBuf, String>> = Default::default();
    }
    TEXTS.with(|texts| {
        let mut texts = texts.borrow_mut();
        files.iter().any(|f| declares(texts.entry(f.clone()).or_insert_with(|| fs::read_to_string(f).unwrap_or_default()), name))
    })
}

/// Resolves `a::b::C::d`: the longest run of leading segments that are modules of one crate,
/// then each remaining segment declared in that module (the first) or anywhere in the crate
/// (methods live in `impl` blocks that may sit elsewhere).
fn resolves(crates: &[(String, PathBuf)], path: &str) -> bool {
    let segs: Vec<&str> = path.split("::").collect();
    let mut candidates: Vec<(&Path, &[&str])> = Vec::new();
    for (name, src) in crates {
        if segs[0] == name || segs[0] == format!("salt_{name}") {
            candidates.push((src, &segs[1..]));
        } else {
            candidates.push((src, &segs[..]));
        }
    }
    candidates.into_iter().any(|(src, segs)| {
        let mut file = if src.join("lib.rs").is_file() { src.join("lib.rs") } else { src.join("main.rs") };
        let mut rest = segs;
        while let Some((first, tail)) = rest.split_first() {
            match submodule(&file, first) {
                Some(f) => {
                    file = f;
                    rest = tail;
                }
                None => break,
            }
        }
        if rest.len() == segs.len() && !segs.is_empty() && file.file_stem().is_some_and(|s| s == "lib" || s == "main") {
            // Nothing matched as a module: a bare `Type::method` names items of the crate.
            let mut all = Vec::new();
            rust_files(src, &mut all);
            return rest.iter().all(|s| declared(&all, s));
        }
        let Some((first, tail)) = rest.split_first() else { return true };
        let mut all = Vec::new();
        rust_files(src, &mut all);
        declared(std::slice::from_ref(&file), first) && tail.iter().all(|s| declared(&all, s))
    })
}

/// Whether a folder named `name` is anywhere in the repository (outside `target` and `.git`).
fn has_dir(dir: &Path, name: &str) -> bool {
    fs::read_dir(dir).into_iter().flatten().flatten().any(|e| {
        let p = e.path();
        let n = e.file_name();
        p.is_dir() && n != "target" && n != ".git" && n != "node_modules" && (n == name || has_dir(&p, name))
    })
}

/// Paths of Salt's, Python's or libyaml's own sources, which the page cites as references.
fn external(token: &str) -> bool {
    // A bare `fnmatch.py` or `representer.py` is CPython's or PyYAML's; the project's own
    // Python files are named with their folder (`tests/...`).
    (token.ends_with(".py") && !token.contains('/'))
        || ["salt/", "saltext/", "jinja2/", "json/", "re/", "src/emitter.c", "TEMPLATE/"].iter().any(|p| token.starts_with(p))
        || token.contains('*')
        || token.contains("://")
        || token.contains('{')
        || token.starts_with("..")
        || token.starts_with("./")
}

#[test]
fn every_module_path_the_architecture_page_names_exists() {
    let repo = repo();
    let crates = crates(&repo);
    let page = fs::read_to_string(repo.join("docs/ARCHITECTURE.md")).expect("docs/ARCHITECTURE.md");
    let tick = regex::Regex::new(r"`([^`\n]+)`").unwrap();
    let mut files = Vec::new();
    rust_files(&repo.join("server"), &mut files);
    let file_names: BTreeSet<String> = files.iter().filter_map(|p| p.file_name()?.to_str().map(str::to_string)).collect();
    let mut missing = Vec::new();
    let mut checked = 0;
    let ident = regex::Regex::new(r"^[A-Za-z_][A-Za-z0-9_]*(::[A-Za-z_][A-Za-z0-9_]*)+$").unwrap();
    for cap in tick.captures_iter(&page) {
        let token = cap[1].trim();
        // `Reads::unchanged(fs, roots)` and `Change::Content(path)` name `Reads::unchanged` and `Change::Content`.
        let token = token.split('(').next().unwrap_or(token);
        if ident.is_match(token) {
            checked += 1;
            if !resolves(&crates, token) {
                missing.push(token.to_string());
            }
        } else if (token.ends_with(".rs") || token.ends_with(".py") || token.ends_with('/')) && !external(token) && !token.contains(' ') {
            checked += 1;
            let bare = token.trim_end_matches('/');
            let found = if bare.contains('/') {
                let mut roots = vec![repo.clone(), repo.join("server")];
                roots.extend(crates.iter().map(|(_, src)| src.clone()));
                roots.push(repo.join("server/model/src"));
                roots.iter().any(|r| r.join(bare).exists()) || files.iter().any(|f| f.to_string_lossy().ends_with(&format!("/{bare}")))
            } else if token.ends_with('/') {
                // A folder: of the code, or one the page explains (a formula's `parameters/`),
                // which the fixtures then have somewhere.
                files.iter().any(|f| f.to_string_lossy().contains(&format!("/{bare}/"))) || has_dir(&repo, bare)
            } else {
                file_names.contains(bare) || repo.join(bare).exists()
            };
            if !found {
                missing.push(token.to_string());
            }
        }
    }
    assert!(checked > 100, "the page names {checked} paths: is the pattern still right?");
    assert!(missing.is_empty(), "docs/ARCHITECTURE.md names what the code does not have: {missing:#?}");
}
