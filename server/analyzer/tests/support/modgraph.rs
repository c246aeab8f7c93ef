//! Which file of a crate uses which: the graph the layering tests check (no cycle between
//! files, layers one way). Read from the source text, not from the compiler, so the rules are
//! these, written for how this workspace writes Rust:
//!
//! - A node is a source file below `src/`, named by its module path (`db/files.rs` and
//!   `db/files/mod.rs` are `db::files`, `db/mod.rs` is `db`, the crate root is `crate`). A
//!   crate is its root file (`lib.rs`, or `main.rs`, a crate of its own that uses the library
//!   by name) and the files its `mod x;` items reach. Test code is left out: an item under `#[cfg(test)]` (an inline `mod tests { .. }`, a test
//!   helper), and a file declared by `#[cfg(test)] mod x;`, with everything below it.
//! - Comments, strings and character literals are blanked first, so a path in a doc comment
//!   or a fixture is not a use.
//! - An edge `a -> b` is a path in `a` that starts with `crate::`, `$crate::`, `self::`,
//!   `super::` (as many as written) or the name of a module `a` declares (`mod x;` makes
//!   `x::y` a path into `x`), in a `use` item (groups `{..}` spread out, over several lines)
//!   or anywhere in the code (`crate::a::f(..)`), whose longest prefix that is a module is `b`.
//!   `use super::*` is an edge to the parent.
//! - A `use` is an alias: a path through a module to a name that module imports (`pub use
//!   x::Y` in `a/mod.rs`, or a plain `use` a child reaches by `super::Y`) continues to where
//!   the name comes from, so `crate::a::Y` is an edge to `a::x`, not to `a`. A glob re-export
//!   (`pub use x::*`) is followed for the names `x` defines.
//! - `mod x;` is no edge. A private `use` is an edge (the compiler warns about one the file
//!   does not use). A `pub`/`pub(..)` `use` only re-exports, so it is an edge only when the
//!   file also names what it imports in its own code (a `mod.rs` that re-exports a child's
//!   type and also calls it depends on the child; one that only re-exports does not).
//!
//! A cycle is a strongly connected set of files (Tarjan), reported with one way round it.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

pub type Module = Vec<String>;

/// One crate's files and the edges between them (each with the first line that makes it).
pub struct Graph {
    pub src: PathBuf,
    pub modules: BTreeMap<Module, PathBuf>,
    pub edges: BTreeMap<Module, BTreeMap<Module, usize>>,
}

pub fn name(m: &Module) -> String {
    if m.is_empty() {
        "crate".to_string()
    } else {
        m.join("::")
    }
}

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir).expect("read src").flatten().map(|e| e.path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            sources(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// A file's module path below the crate root: `db/files.rs` is `["db", "files"]`,
/// `db/mod.rs` is `["db"]`.
pub fn module_of(rel: &Path) -> Module {
    let mut segs: Vec<String> = rel.iter().map(|s| s.to_string_lossy().into_owned()).collect();
    let last = segs.pop().unwrap_or_default();
    let stem = last.trim_end_matches(".rs");
    if stem != "mod" && stem != "lib" && stem != "main" {
        segs.push(stem.to_string());
    }
    segs
}

fn is_ident(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

/// The text with comments, strings and character literals turned into spaces (line breaks
/// kept, so byte offsets and line numbers stay).
pub fn blank(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = b.to_vec();
    let mut i = 0;
    let wipe = |out: &mut Vec<u8>, from: usize, to: usize| {
        for c in &mut out[from..to.min(b.len())] {
            if *c != b'\n' {
                *c = b' ';
            }
        }
    };
    while i < b.len() {
        let prev_ident = i > 0 && is_ident(b[i - 1]);
        match b[i] {
            b'/' if b.get(i + 1) == Some(&b'/') => {
                let end = text[i..].find('\n').map_or(b.len(), |e| i + e);
                wipe(&mut out, i, end);
                i = end;
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                let (mut depth, mut j) = (1, i + 2);
                while j < b.len() && depth > 0 {
                    if b[j] == b'/' && b.get(j + 1) == Some(&b'*') {
                        depth += 1;
                        j += 2;
                    } else if b[j] == b'*' && b.get(j + 1) == Some(&b'/') {
                        depth -= 1;
                        j += 2;
                    } else {
                        j += 1;
                    }
                }
                wipe(&mut out, i, j);
                i = j;
            }
            // A raw string: `r"..."`, `r#"..."#`, `br#"..."#`.
            b'r' if (!prev_ident || (b[i - 1] == b'b' && (i < 2 || !is_ident(b[i - 2])))) && matches!(b.get(i + 1), Some(b'"' | b'#')) => {
                let hashes = b[i + 1..].iter().take_while(|c| **c == b'#').count();
                if b.get(i + 1 + hashes) != Some(&b'"') {
                    i += 1;
                    continue;
                }
                let close: String = std::iter::once('"').chain(std::iter::repeat_n('#', hashes)).collect();
                let start = i + 2 + hashes;
                let end = text[start..].find(&close).map_or(b.len(), |e| start + e + close.len());
                wipe(&mut out, i + 1, end);
                i = end;
            }
            b'"' => {
                let mut j = i + 1;
                while j < b.len() && b[j] != b'"' {
                    j += if b[j] == b'\\' { 2 } else { 1 };
                }
                wipe(&mut out, i, j + 1);
                i = j + 1;
            }
            b'\'' => {
                // A character literal (`'x'`, `'\n'`, `'\u{..}'`), not a lifetime or label.
                let rest = &text[i + 1..];
                let end = if rest.starts_with('\\') {
                    rest[2.min(rest.len())..].find('\'').map(|e| i + 1 + 2 + e + 1)
                } else {
                    let mut cs = rest.char_indices();
                    match (cs.next(), cs.next()) {
                        (Some(_), Some((k, '\''))) => Some(i + 1 + k + 1),
                        _ => None,
                    }
                };
                match end {
                    Some(end) => {
                        wipe(&mut out, i, end);
                        i = end;
                    }
                    None => i += 1,
                }
            }
            _ => i += 1,
        }
    }
    String::from_utf8(out).expect("blanking keeps UTF-8 (only ASCII is replaced, whole characters)")
}

/// The end of the item starting at `from`: after its first `;` at depth 0, or the `}` that
/// closes its first `{`.
fn item_end(b: &[u8], from: usize) -> usize {
    let mut depth = 0i32;
    let mut j = from;
    while j < b.len() {
        match b[j] {
            b'{' | b'(' | b'[' => depth += 1,
            b'}' | b')' | b']' => {
                depth -= 1;
                if depth == 0 && b[j] == b'}' {
                    return j + 1;
                }
            }
            b';' if depth == 0 => return j + 1,
            _ => {}
        }
        j += 1;
    }
    b.len()
}

/// Removes items under `#[cfg(test)]`; returns the names of the modules so declared
/// (`#[cfg(test)] mod x;`).
fn drop_test_items(code: &mut String) -> Vec<String> {
    let mut test_mods = Vec::new();
    while let Some(at) = code.find("#[cfg(test)]") {
        let b = code.as_bytes();
        let mut j = at + "#[cfg(test)]".len();
        // Further attributes of the same item.
        loop {
            while j < b.len() && b[j].is_ascii_whitespace() {
                j += 1;
            }
            if b.get(j) == Some(&b'#') {
                j = item_end_brackets(b, j);
            } else {
                break;
            }
        }
        let end = item_end(b, j);
        let item = &code[j..end];
        let words: Vec<&str> = item.split(|c: char| !(c.is_alphanumeric() || c == '_')).filter(|w| !w.is_empty()).collect();
        if let Some(k) = words.iter().position(|w| *w == "mod") {
            if item.trim_end().ends_with(';') {
                if let Some(n) = words.get(k + 1) {
                    test_mods.push(n.to_string());
                }
            }
        }
        let blanked: String = code[at..end].chars().map(|c| if c == '\n' { '\n' } else { ' ' }).collect();
        code.replace_range(at..end, &blanked);
    }
    test_mods
}

/// The end of an attribute `#[...]` starting at `from`.
fn item_end_brackets(b: &[u8], from: usize) -> usize {
    let mut depth = 0;
    for (j, c) in b.iter().enumerate().skip(from) {
        match c {
            b'[' => depth += 1,
            b']' => {
                depth -= 1;
                if depth == 0 {
                    return j + 1;
                }
            }
            _ => {}
        }
    }
    b.len()
}

/// A `use` tree spread into its paths, each with the name it binds (`*` for a glob, `self`
/// resolved to the last segment).
fn spread(tree: &str) -> Vec<(Vec<String>, String)> {
    fn go(prefix: &[String], s: &str, out: &mut Vec<(Vec<String>, String)>) {
        let s = s.trim();
        if s.is_empty() {
            return;
        }
        if let Some(open) = s.find('{') {
            let head = s[..open].trim().trim_end_matches("::");
            let mut p = prefix.to_vec();
            p.extend(head.split("::").map(|w| w.trim().to_string()).filter(|w| !w.is_empty()));
            let close = s.rfind('}').unwrap_or(s.len());
            let inner = &s[open + 1..close];
            let mut depth = 0;
            let mut start = 0;
            for (k, c) in inner.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        go(&p, &inner[start..k], out);
                        start = k + 1;
                    }
                    _ => {}
                }
            }
            go(&p, &inner[start..], out);
            return;
        }
        let (path, alias) = match s.split_once(" as ") {
            Some((p, a)) => (p.trim(), Some(a.trim().to_string())),
            None => (s, None),
        };
        let mut p = prefix.to_vec();
        p.extend(path.split("::").map(|w| w.trim().to_string()).filter(|w| !w.is_empty()));
        if p.last().is_some_and(|l| l == "self") {
            p.pop();
        }
        let Some(last) = p.last().cloned() else { return };
        if last == "*" {
            p.pop();
        }
        out.push((p, alias.unwrap_or(last)));
    }
    let mut out = Vec::new();
    go(&[], tree, &mut out);
    out
}

/// A path as written in a file, before it is resolved.
struct Written {
    /// `crate`, `self`, `super` (`ups` times), or a child module's name.
    anchor: String,
    ups: usize,
    rest: Vec<String>,
    line: usize,
}

struct File {
    module: Module,
    children: Vec<String>,
    /// `use` paths that count as uses (see the //! rules), and every alias a `use` binds.
    used: Vec<Written>,
    aliases: Vec<(String, Written)>,
    globs: Vec<Written>,
    defines: BTreeSet<String>,
}

fn line_of(text: &str, at: usize) -> usize {
    text[..at].bytes().filter(|c| *c == b'\n').count() + 1
}

/// Splits a written path (`super::super::a::b`) into its anchor and the rest; `None` when it
/// does not start inside the crate.
fn written(segs: &[String], children: &[String], line: usize) -> Option<Written> {
    let first = segs.first()?;
    let (anchor, ups, rest) = match first.as_str() {
        "crate" | "$crate" => ("crate".to_string(), 0, &segs[1..]),
        "self" => ("self".to_string(), 0, &segs[1..]),
        "super" => {
            let ups = segs.iter().take_while(|s| *s == "super").count();
            ("super".to_string(), ups, &segs[ups..])
        }
        c if children.iter().any(|x| x == c) => (c.to_string(), 0, &segs[1..]),
        _ => return None,
    };
    Some(Written { anchor, ups, rest: rest.to_vec(), line })
}

fn read_file(module: Module, text: &str) -> (File, Vec<String>) {
    let mut code = blank(text);
    let test_mods = drop_test_items(&mut code);
    let words = |s: &str| -> Vec<String> { s.split(|c: char| !(c.is_alphanumeric() || c == '_')).filter(|w| !w.is_empty()).map(str::to_string).collect() };
    // Child modules: `mod x;` (not inline `mod x { .. }`).
    let mut children = Vec::new();
    for (at, _) in code.match_indices("mod ") {
        if at > 0 && is_ident(code.as_bytes()[at - 1]) {
            continue;
        }
        let rest = &code[at + 4..];
        let n: String = rest.trim_start().chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
        if !n.is_empty() && rest.trim_start()[n.len()..].trim_start().starts_with(';') {
            children.push(n);
        }
    }
    let mut defines = BTreeSet::new();
    for kw in ["fn", "struct", "enum", "trait", "type", "const", "static", "union", "mod", "macro_rules!"] {
        for (at, _) in code.match_indices(kw) {
            let b = code.as_bytes();
            if (at > 0 && is_ident(b[at - 1])) || b.get(at + kw.len()).is_some_and(|c| is_ident(*c)) {
                continue;
            }
            if let Some(n) = words(&code[at + kw.len()..]).first() {
                defines.insert(n.clone());
            }
        }
    }
    // `use` items, then blanked so the code scan below does not see them again.
    let mut used = Vec::new();
    let mut aliases = Vec::new();
    let mut globs = Vec::new();
    let mut pub_binds: Vec<(String, Written)> = Vec::new();
    let mut search = 0;
    while let Some(rel) = code[search..].find("use ") {
        let at = search + rel;
        search = at + 4;
        let b = code.as_bytes();
        if at > 0 && is_ident(b[at - 1]) {
            continue;
        }
        // What comes before: nothing, `;`, `}`, `{`, an attribute, or a visibility.
        let before = code[..at].trim_end();
        let (is_pub, ok) = if before.ends_with("pub")
            || before.ends_with(')') && before.rfind("pub").is_some_and(|p| before[p..].starts_with("pub(") && !before[p..].contains(';'))
        {
            (true, true)
        } else {
            (false, before.is_empty() || before.ends_with([';', '}', '{', ']']))
        };
        if !ok {
            continue;
        }
        let end = code[at..].find(';').map_or(code.len(), |e| at + e);
        let line = line_of(&code, at);
        for (segs, bound) in spread(&code[at + 4..end]) {
            let Some(w) = written(&segs, &children, line) else { continue };
            let glob = bound == "*";
            if glob {
                if w.anchor == "super" && w.ups == 1 && w.rest.is_empty() && !is_pub {
                    used.push(w);
                    continue;
                }
                globs.push(Written { anchor: w.anchor.clone(), ups: w.ups, rest: w.rest.clone(), line });
            } else {
                aliases.push((bound.clone(), Written { anchor: w.anchor.clone(), ups: w.ups, rest: w.rest.clone(), line }));
            }
            if is_pub {
                if !glob {
                    pub_binds.push((bound, w));
                }
            } else {
                used.push(w);
            }
        }
        let blanked: String = code[at..end].chars().map(|c| if c == '\n' { '\n' } else { ' ' }).collect();
        code.replace_range(at..end, &blanked);
    }
    // A re-export counts when the file's own code names it.
    let code_words: BTreeSet<String> = {
        let mut c = code.clone();
        for (at, _) in code.match_indices("mod ") {
            let end = item_end(code.as_bytes(), at);
            if code[at..end].trim_end().ends_with(';') {
                c.replace_range(at..end, &" ".repeat(end - at));
            }
        }
        words(&c).into_iter().collect()
    };
    for (bound, w) in pub_binds {
        if code_words.contains(&bound) {
            used.push(w);
        }
    }
    // Paths in the code.
    let b = code.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if !(b[i].is_ascii_alphabetic() || b[i] == b'_' || b[i] == b'$') || (i > 0 && (is_ident(b[i - 1]) || b[i - 1] == b'$')) {
            i += 1;
            continue;
        }
        // Not the tail of another path or a field/method.
        let prev = code[..i].trim_end();
        let tail = prev.ends_with("::") || prev.ends_with('.');
        let mut segs = Vec::new();
        let mut j = i;
        loop {
            let start = j;
            if b.get(j) == Some(&b'$') {
                j += 1;
            }
            while j < b.len() && is_ident(b[j]) {
                j += 1;
            }
            if j == start {
                break;
            }
            segs.push(code[start..j].to_string());
            if code[j..].starts_with("::") && code[j + 2..].starts_with(|c: char| c.is_alphabetic() || c == '_' || c == '$') {
                j += 2;
            } else {
                break;
            }
        }
        if !tail && segs.len() > 1 {
            if let Some(w) = written(&segs, &children, line_of(&code, i)) {
                used.push(w);
            }
        }
        i = j.max(i + 1);
    }
    (File { module, children, used, aliases, globs, defines }, test_mods)
}

/// Reads the crate whose root is `src/ROOT` (`lib.rs` or `main.rs`).
pub fn read(src: &Path, root: &str) -> Graph {
    let mut paths = Vec::new();
    sources(src, &mut paths);
    let mut files: BTreeMap<Module, File> = BTreeMap::new();
    let mut test_only: BTreeSet<Module> = BTreeSet::new();
    let mut modules = BTreeMap::new();
    for p in &paths {
        let rel = p.strip_prefix(src).unwrap();
        if rel.parent() == Some(Path::new("")) && matches!(rel.to_str(), Some("lib.rs" | "main.rs")) && rel != Path::new(root) {
            continue;
        }
        let module = module_of(rel);
        let text = std::fs::read_to_string(p).unwrap();
        let (file, test_mods) = read_file(module.clone(), &text);
        for t in test_mods {
            let mut m = module.clone();
            m.push(t);
            test_only.insert(m);
        }
        modules.insert(module.clone(), p.clone());
        files.insert(module, file);
    }
    // The crate: what the root's `mod` items reach, less test code.
    let mut reached: BTreeSet<Module> = BTreeSet::new();
    let mut todo = vec![Module::new()];
    while let Some(m) = todo.pop() {
        if test_only.contains(&m) || !reached.insert(m.clone()) {
            continue;
        }
        if let Some(f) = files.get(&m) {
            for c in &f.children {
                let mut child = m.clone();
                child.push(c.clone());
                todo.push(child);
            }
        }
    }
    files.retain(|m, _| reached.contains(m));
    modules.retain(|m, _| files.contains_key(m));
    let mut edges: BTreeMap<Module, BTreeMap<Module, usize>> = BTreeMap::new();
    for (m, f) in &files {
        for w in &f.used {
            let Some(abs) = absolute(f, w) else { continue };
            let target = resolve(&files, &abs, 0);
            if &target != m {
                let e = edges.entry(m.clone()).or_default();
                let line = e.get(&target).copied().unwrap_or(w.line).min(w.line);
                e.insert(target, line);
            }
        }
    }
    Graph { src: src.to_path_buf(), modules, edges }
}

/// The module path a written path names from the crate root.
fn absolute(f: &File, w: &Written) -> Option<Module> {
    let mut base = match w.anchor.as_str() {
        "crate" => Vec::new(),
        "self" => f.module.clone(),
        "super" => {
            if w.ups > f.module.len() {
                return None;
            }
            f.module[..f.module.len() - w.ups].to_vec()
        }
        child => {
            let mut m = f.module.clone();
            m.push(child.to_string());
            m
        }
    };
    base.extend(w.rest.iter().cloned());
    Some(base)
}

/// The file a path ends in: its longest prefix that is a file, followed through the `use`
/// aliases of that file for the next name.
fn resolve(files: &BTreeMap<Module, File>, path: &[String], depth: usize) -> Module {
    let mut n = path.len();
    while n > 0 && !files.contains_key(&path[..n]) {
        n -= 1;
    }
    let m = path[..n].to_vec();
    let (Some(f), Some(next)) = (files.get(&m), path.get(n)) else { return m };
    if depth > 16 || f.defines.contains(next) {
        return m;
    }
    for (bound, w) in &f.aliases {
        if bound == next {
            if let Some(mut abs) = absolute(f, w) {
                abs.extend(path[n + 1..].iter().cloned());
                return resolve(files, &abs, depth + 1);
            }
        }
    }
    for w in &f.globs {
        if let Some(g) = absolute(f, w) {
            if files.get(&g).is_some_and(|gf| gf.defines.contains(next) || gf.aliases.iter().any(|(b, _)| b == next)) {
                let mut abs = g;
                abs.extend(path[n..].iter().cloned());
                return resolve(files, &abs, depth + 1);
            }
        }
    }
    m
}

impl Graph {
    /// Every set of files that depend on each other (more than one file), each with one way
    /// round it as `a -> b -> a` with the line of each step.
    pub fn cycles(&self) -> Vec<(Vec<Module>, String)> {
        // Tarjan's strongly connected components.
        struct T<'g> {
            g: &'g Graph,
            index: BTreeMap<Module, usize>,
            low: BTreeMap<Module, usize>,
            on: BTreeSet<Module>,
            stack: Vec<Module>,
            out: Vec<Vec<Module>>,
        }
        fn visit(t: &mut T, v: &Module) {
            let i = t.index.len();
            t.index.insert(v.clone(), i);
            t.low.insert(v.clone(), i);
            t.stack.push(v.clone());
            t.on.insert(v.clone());
            let nexts: Vec<Module> = t.g.edges.get(v).map(|e| e.keys().cloned().collect()).unwrap_or_default();
            for w in nexts {
                if !t.index.contains_key(&w) {
                    visit(t, &w);
                    let l = t.low[&w].min(t.low[v]);
                    t.low.insert(v.clone(), l);
                } else if t.on.contains(&w) {
                    let l = t.index[&w].min(t.low[v]);
                    t.low.insert(v.clone(), l);
                }
            }
            if t.low[v] == t.index[v] {
                let mut comp = Vec::new();
                while let Some(w) = t.stack.pop() {
                    t.on.remove(&w);
                    let done = &w == v;
                    comp.push(w);
                    if done {
                        break;
                    }
                }
                if comp.len() > 1 {
                    comp.sort();
                    t.out.push(comp);
                }
            }
        }
        let mut t = T { g: self, index: BTreeMap::new(), low: BTreeMap::new(), on: BTreeSet::new(), stack: Vec::new(), out: Vec::new() };
        for v in self.modules.keys() {
            if !t.index.contains_key(v) {
                visit(&mut t, v);
            }
        }
        let mut out: Vec<(Vec<Module>, String)> = t.out.into_iter().map(|c| (c.clone(), self.way_round(&c))).collect();
        out.sort();
        out
    }

    /// The shortest way from the first file of `comp` back to itself, inside `comp`.
    fn way_round(&self, comp: &[Module]) -> String {
        let start = &comp[0];
        let inside: BTreeSet<&Module> = comp.iter().collect();
        let mut prev: BTreeMap<Module, Module> = BTreeMap::new();
        let mut queue = std::collections::VecDeque::from([start.clone()]);
        let mut seen = BTreeSet::new();
        while let Some(m) = queue.pop_front() {
            for next in self.edges.get(&m).into_iter().flat_map(|e| e.keys()) {
                if !inside.contains(next) {
                    continue;
                }
                if next == start {
                    let mut way = vec![m.clone()];
                    while let Some(p) = prev.get(way.last().unwrap()) {
                        way.push(p.clone());
                    }
                    way.reverse();
                    way.push(start.clone());
                    return way
                        .windows(2)
                        .map(|w| format!("{}:{}", self.file(&w[0]), self.edges[&w[0]][&w[1]]))
                        .chain([self.file(start)])
                        .collect::<Vec<_>>()
                        .join(" -> ");
                }
                if seen.insert(next.clone()) {
                    prev.insert(next.clone(), m.clone());
                    queue.push_back(next.clone());
                }
            }
        }
        String::new()
    }

    /// A module's file, relative to `src`.
    pub fn file(&self, m: &Module) -> String {
        self.modules.get(m).and_then(|p| p.strip_prefix(&self.src).ok()).map_or_else(|| name(m), |p| p.display().to_string())
    }

    /// How many edges the graph has.
    pub fn edge_count(&self) -> usize {
        self.edges.values().map(BTreeMap::len).sum()
    }
}
