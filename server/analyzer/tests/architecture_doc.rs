//! `docs/ARCHITECTURE.md` stays true to the code: every module path, item and source file it
//! names in backticks exists (a rename that forgets the page fails here); the files its "One
//! compile path" names are exactly those that call the pipeline's compile (a new call site
//! elsewhere fails here); and its list of scopes is `pipeline::Scope`'s variants.

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

/// The page's text from the line holding `marker` to the next blank line after a list.
fn passage<'a>(page: &'a str, marker: &str) -> &'a str {
    let start = page.find(marker).unwrap_or_else(|| panic!("docs/ARCHITECTURE.md has no `{marker}`"));
    let rest = &page[start..];
    // The paragraph, then the list after it: ends at the first blank line after a `- ` item.
    let list = rest.find("\n- ").unwrap_or_else(|| panic!("no list after `{marker}`"));
    let end = rest[list..].find("\n\n").map_or(rest.len(), |i| list + i);
    &rest[..end]
}

/// `text` without its `#[cfg(test)]` modules (what follows `#[cfg(test)]` then `mod`, to the
/// end of the file: the tests module comes last in this code base).
fn non_test(text: &str) -> &str {
    let mut at = 0;
    while let Some(i) = text[at..].find("#[cfg(test)]") {
        let after = text[at + i + "#[cfg(test)]".len()..].trim_start();
        if after.starts_with("mod ") || after.starts_with("pub mod ") || after.starts_with("pub(crate) mod ") {
            return &text[..at + i];
        }
        at += i + 1;
    }
    text
}

/// Every non-test Rust source of the workspace's crates (no `tests/` folder, no `tests.rs`), by
/// its path from the repository root, with its text less its tests module.
fn sources(repo: &Path) -> Vec<(String, String)> {
    let mut files = Vec::new();
    for (_, src) in crates(repo) {
        rust_files(&src, &mut files);
    }
    files
        .into_iter()
        .filter(|p| p.file_name().is_some_and(|n| n != "tests.rs") && !p.components().any(|c| c.as_os_str() == "tests"))
        .map(|p| {
            let text = fs::read_to_string(&p).unwrap_or_default();
            let rel = p.strip_prefix(repo).unwrap_or(&p).to_string_lossy().replace('\\', "/");
            (rel, non_test(&text).to_string())
        })
        .collect()
}

#[test]
fn every_compile_goes_through_the_files_the_page_names() {
    let repo = repo();
    let page = fs::read_to_string(repo.join("docs/ARCHITECTURE.md")).expect("docs/ARCHITECTURE.md");
    let text = passage(&page, "**One compile path.**");
    let items: Vec<&str> = text.lines().filter(|l| l.starts_with("- ")).collect();
    let tick = regex::Regex::new(r"`(server/[^`]+\.rs)`").unwrap();
    // Each item's first file is a caller; the files the paragraph names before the list build a `Compiled`.
    let named: BTreeSet<String> = items.iter().filter_map(|l| tick.captures(l)).map(|c| c[1].to_string()).collect();
    let head = &text[..text.find("\n- ").unwrap_or(text.len())];
    let builders: BTreeSet<String> = tick.captures_iter(head).map(|c| c[1].to_string()).collect();
    assert!(named.len() >= 4 && !builders.is_empty(), "the passage names {named:?} and {builders:?}: is the pattern still right?");

    // A call of the pipeline's compile: `compile_with(`, `pipeline::compile(`, or `compile(`
    // in a file that imports the bare function.
    let with = regex::Regex::new(r"(^|[^A-Za-z0-9_])compile_with\(").unwrap();
    let qualified = regex::Regex::new(r"pipeline::compile\(").unwrap();
    let imported = regex::Regex::new(r"use [A-Za-z_:]*pipeline::(\{[^}]*\bcompile\b[^}]*\}|compile;)").unwrap();
    let bare = regex::Regex::new(r"(^|[^A-Za-z0-9_.:])compile\(").unwrap();
    let literal = regex::Regex::new(r"(^|[^A-Za-z0-9_])Compiled \{").unwrap();
    let mut callers = BTreeSet::new();
    let mut built = BTreeSet::new();
    let mut cache_users = BTreeSet::new();
    for (rel, text) in sources(&repo) {
        let code: String = text.lines().filter(|l| !l.trim_start().starts_with("//")).map(|l| format!("{l}\n")).collect();
        let calls = code.lines().any(|l| (with.is_match(l) && !l.contains("fn compile_with(")) || qualified.is_match(l))
            || (imported.is_match(&code) && code.lines().any(|l| bare.is_match(l) && !l.contains("fn compile(")));
        if calls {
            callers.insert(rel.clone());
        }
        // A struct literal, not the type's declaration, an `impl` or a function's return type.
        let declares = |l: &str| ["enum Compiled", "struct Compiled", "impl ", "fn ", "-> "].iter().any(|d| l.contains(d));
        if code.lines().any(|l| literal.is_match(l) && !declares(l)) {
            built.insert(rel.clone());
        }
        if code.contains("MinionCache") && !rel.starts_with("server/model/src/pipeline") {
            cache_users.insert(rel);
        }
    }
    let mut problems = Vec::new();
    for f in callers.difference(&named) {
        problems.push(format!("{f} compiles a minion (compile_with/compile) but the page's list does not name it"));
    }
    for f in named.difference(&callers) {
        problems.push(format!("the page names {f} as a caller of compile_with, but it calls none"));
    }
    if built != builders {
        problems.push(format!("a `Compiled` is built in {built:?}; the page says {builders:?}"));
    }
    for f in &cache_users {
        if !text.contains(&format!("`{f}`")) {
            problems.push(format!("{f} uses MinionCache, which the page does not say"));
        }
    }
    assert!(problems.is_empty(), "docs/ARCHITECTURE.md, \"One compile path\":\n{}", problems.join("\n"));
}

#[test]
fn the_page_lists_every_scope_and_no_other() {
    let repo = repo();
    let page = fs::read_to_string(repo.join("docs/ARCHITECTURE.md")).expect("docs/ARCHITECTURE.md");
    let text = passage(&page, "a scope (`pipeline::Scope`)");
    let item = regex::Regex::new(r"^- `([A-Za-z]+)`").unwrap();
    let documented: Vec<String> = text.lines().filter_map(|l| item.captures(l)).map(|c| c[1].to_string()).collect();

    let source = fs::read_to_string(repo.join("server/model/src/pipeline.rs")).expect("pipeline.rs");
    let start = source.find("pub enum Scope {").expect("`pub enum Scope` in pipeline.rs");
    let body = &source[start..start + source[start..].find("\n}").expect("the enum ends")];
    let variant = regex::Regex::new(r"^    ([A-Z][A-Za-z0-9]*)\s*[,{(]?").unwrap();
    let variants: Vec<String> = body.lines().filter_map(|l| variant.captures(l)).map(|c| c[1].to_string()).collect();
    assert!(variants.len() >= 3, "Scope's variants as parsed: {variants:?}");
    assert_eq!(documented, variants, "docs/ARCHITECTURE.md's scopes, in order, and `pipeline::Scope`'s variants");
}
