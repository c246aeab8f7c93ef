//! Provenance for a `map.jinja` that builds its map itself (the older way): which file and line
//! set each value of the map it exports. The map's values are Salt's (rendered by
//! [`super::plain`]); each leaf is then attributed to the sources such a map is built from, in
//! the order they take precedence: the YAML/JSON files `map.jinja` imports (`import_yaml`,
//! `import_json`), ordered by where the name each is imported as is first used (a `filter_by`
//! nested in another's `merge=` comes later in the text, as a later statement does); the dict
//! literals written in `map.jinja` itself; the formula's pillar (`pillar.get(F, merge=True)`,
//! `pillar.get('F:lookup')`). A source sets a leaf `a.b` when it writes it at `a.b`, possibly
//! under keys that `grains.filter_by`, `defaults.merge` or a `base` select (the minion's grain
//! values, `default`, the formula's name, `lookup`); the last source whose value equals the
//! map's wins, and the earlier ones that write it were overridden. The result is an
//! [`Origins`] tree like the mapstack implementations', so `mapdata`, the hover and go to
//! definition read it the same way.

use serde_json::Value;

use super::mapdata::{Layer, Stage, Status};
use super::origin::{Origin, Origins};
use super::stack::Env;
use crate::value::{FileId, Loc, Val, V};
use crate::workspace::reads::find_file;

/// A value a source writes, at a key path.
#[derive(Debug, Clone)]
struct Entry {
    path: Vec<String>,
    /// The value (`None` when it is an expression this reading cannot evaluate).
    value: Option<Val>,
    at: Option<Loc>,
}

/// A source and what it writes.
struct Source {
    layer: usize,
    entries: Vec<Entry>,
}

/// The provenance of `values`, the map `map.jinja` (file `map_id`, text `text`, layer
/// `map_layer`) exports; the sources found become layers of `env`.
pub(super) fn origins(env: &mut Env, values: &Value, text: &str, map_id: FileId, map_layer: usize) -> Origins {
    let tplroot = env.tplroot.clone();
    let mut sources = Vec::new();
    for rel in imports(text, &tplroot) {
        let layer = env.layers.len();
        let file = find_file(env.fs, env.roots, &env.saltenv, &rel);
        let loaded = file.as_ref().and_then(|f| env.fs.read(f).ok()).and_then(|t| {
            let id = env.files.add(file.clone()?, t.as_str().into());
            load_layer(env, &rel, file.as_deref()?, &t, id)
        });
        let status = if loaded.is_some() { Status::Loaded } else { Status::Missing };
        env.layers.push(Layer { stage: Stage::Formula, source: "import_yaml".into(), path: Some(rel), file, status, strategy: None, merge_lists: None });
        let mut entries = Vec::new();
        if let Some(v) = &loaded {
            flatten(v, &mut Vec::new(), &mut entries);
        }
        sources.push(Source { layer, entries });
    }
    sources.push(Source { layer: map_layer, entries: literals(text, map_id) });
    let names = formula_names(&tplroot);
    let pillar = env.pillar.whole().clone();
    for root in &names {
        if let Some(sub) = pillar.get(root) {
            let layer = env.layers.len();
            env.layers.push(Layer {
                stage: Stage::Formula,
                source: "pillar".into(),
                path: Some(format!("pillar:{root}")),
                file: None,
                status: Status::Loaded,
                strategy: None,
                merge_lists: None,
            });
            let mut entries = Vec::new();
            flatten(&Val::from_json(sub, None), &mut vec![root.clone()], &mut entries);
            sources.push(Source { layer, entries });
        }
    }
    let mut selectors: Vec<String> = names;
    selectors.extend(["default".to_string(), "lookup".to_string()]);
    let grain_values: Vec<String> = match env.grains.whole() {
        Value::Object(g) => g.values().filter_map(Value::as_str).map(str::to_string).collect(),
        _ => Vec::new(),
    };
    let ctx = Match { selectors: &selectors, grains: &grain_values };
    tree(values, &mut Vec::new(), &sources, &ctx, map_layer)
}

/// A pillar SLS file, as the pillar compile lists its layers.
pub struct PillarFile<'a> {
    pub env: &'a str,
    pub sls: &'a str,
    pub path: Option<&'a std::path::Path>,
}

/// Places the values `data` attributes to the formula's pillar on the pillar SLS file and line
/// that set them: `pillar` is the compiled pillar (before a profile's own pillar goes over it),
/// `origins` who set each of its values, `files` its layers. A value the compiled pillar does
/// not hold as the map does (the profile's pillar set it) stays the pillar's, without a line.
pub fn place_pillar(data: &mut super::mapdata::MapData, pillar: &Value, origins: &Origins, files: &[PillarFile]) {
    let (Ok(values), Some(map_origins)) = (&data.values, &mut data.origins) else { return };
    let mut added: Vec<(usize, usize)> = Vec::new();
    let mut walk = Vec::new();
    place(map_origins, &mut walk, &mut |path, o| {
        let Some(root) = data.layers.get(o.layer).filter(|l| l.source == "pillar").and_then(|l| l.path.as_deref()?.strip_prefix("pillar:")) else { return };
        let value = path.iter().try_fold(values, |v, k| v.get(k));
        let found = [&[][..], &["lookup".to_string()][..]].iter().find_map(|mid| {
            (0..=2.min(path.len().saturating_sub(1))).find_map(|skip| {
                let full: Vec<&str> = std::iter::once(root).chain(mid.iter().map(String::as_str)).chain(path[skip..].iter().map(String::as_str)).collect();
                let held = full.iter().try_fold(pillar, |v, k| v.get(*k));
                (held.is_some() && held == value).then(|| origins.at_path(&full)).flatten()
            })
        });
        let Some(po) = found.map(|f| &f.origin) else { return };
        let Some(file) = files.get(po.layer).filter(|f| f.path.is_some() && po.at.is_some()) else { return };
        let layer = match added.iter().find(|(p, _)| *p == po.layer) {
            Some((_, l)) => *l,
            None => {
                data.layers.push(Layer {
                    stage: Stage::Formula,
                    source: "pillar".into(),
                    path: Some(format!("pillar [{}] {}", file.env, file.sls)),
                    file: file.path.map(std::path::Path::to_path_buf),
                    status: Status::Loaded,
                    strategy: None,
                    merge_lists: None,
                });
                added.push((po.layer, data.layers.len() - 1));
                data.layers.len() - 1
            }
        };
        o.layer = layer;
        o.at = po.at.clone();
    });
}

/// Calls `f` on every leaf origin of `o` with its key path.
fn place(o: &mut Origins, path: &mut Vec<String>, f: &mut dyn FnMut(&[String], &mut Origin)) {
    if o.children.is_empty() {
        f(path, &mut o.origin);
        return;
    }
    for (k, c) in o.children.iter_mut() {
        path.push(k.clone());
        place(c, path, f);
        path.pop();
    }
}

/// The names a formula's pillar and lookup tables use for it.
fn formula_names(tplroot: &str) -> Vec<String> {
    let mut out = vec![tplroot.to_string(), tplroot.replace('-', "_"), format!("{tplroot}-formula")];
    out.dedup();
    out
}

struct Match<'a> {
    selectors: &'a [String],
    grains: &'a [String],
}

impl Match<'_> {
    /// How well `e` fits the map's key path `p` holding `v` (higher is better), when it does:
    /// `e.path` is `p` (or `p` without its first one or two keys, such as a `lookup` the map
    /// keeps its table under) with up to two selecting keys among it.
    fn rank(&self, e: &Entry, p: &[String], v: &Val) -> Option<(bool, bool, usize)> {
        (0..=2.min(p.len() - 1))
            .filter_map(|skip| {
                let extra = self.extra_keys(&e.path, &p[skip..])?;
                let by_grain = extra.iter().any(|k| self.grains.contains(k));
                Some((e.value.as_ref().is_some_and(|x| x.v == v.v), by_grain, 2 - skip))
            })
            .max()
    }

    /// The keys of `path` that are not `tail`'s, when `path` is `tail` with at most two
    /// selecting keys put in (before any of its keys).
    fn extra_keys<'p>(&self, path: &'p [String], tail: &[String]) -> Option<Vec<&'p String>> {
        let q = path.len().checked_sub(tail.len()).filter(|q| *q <= 2)?;
        let n = path.len();
        // The positions taken out: none, one, or two (`i < j`).
        let picks: Vec<Vec<usize>> = match q {
            0 => vec![vec![]],
            1 => (0..n).map(|i| vec![i]).collect(),
            _ => (0..n).flat_map(|i| (i + 1..n).map(move |j| vec![i, j])).collect(),
        };
        picks.into_iter().find_map(|out| {
            let rest = path.iter().enumerate().filter(|(i, _)| !out.contains(i)).map(|(_, k)| k);
            let extra: Vec<&String> = out.iter().map(|i| &path[*i]).collect();
            (rest.eq(tail.iter()) && extra.iter().all(|k| self.grains.contains(k) || self.selectors.contains(k))).then_some(extra)
        })
    }
}

/// The origins of `v` at `path`: a dict's keys each with theirs, a leaf attributed.
fn tree(v: &Value, path: &mut Vec<String>, sources: &[Source], ctx: &Match, map_layer: usize) -> Origins {
    match v {
        Value::Object(m) if !m.is_empty() => {
            let children = m
                .iter()
                .map(|(k, x)| {
                    path.push(k.clone());
                    let o = tree(x, path, sources, ctx, map_layer);
                    path.pop();
                    (k.clone(), o)
                })
                .collect();
            Origins { origin: Origin { layer: map_layer, at: None, overrode: Vec::new() }, children }
        }
        _ if path.is_empty() => Origins { origin: Origin { layer: map_layer, at: None, overrode: Vec::new() }, children: Vec::new() },
        leaf => Origins { origin: attribute(leaf, path, sources, ctx, map_layer), children: Vec::new() },
    }
}

/// Who set the leaf `v` at `p`: the last source that writes that value there, over the earlier
/// ones that write it; the template itself when none does.
fn attribute(v: &Value, p: &[String], sources: &[Source], ctx: &Match, map_layer: usize) -> Origin {
    let v = Val::from_json(v, None);
    let best: Vec<(usize, &Entry, bool)> = sources
        .iter()
        .filter_map(|s| {
            let (e, r) = s.entries.iter().filter_map(|e| ctx.rank(e, p, &v).map(|r| (e, r))).max_by_key(|(_, r)| *r)?;
            Some((s.layer, e, r.0))
        })
        .collect();
    let Some(win) = best.iter().rposition(|(_, _, equal)| *equal) else {
        let mut overrode: Vec<usize> = best.iter().map(|(l, _, _)| *l).filter(|l| *l != map_layer).collect();
        overrode.dedup();
        return Origin { layer: map_layer, at: None, overrode };
    };
    let mut overrode: Vec<usize> = best[..win].iter().map(|(l, _, _)| *l).filter(|l| *l != best[win].0).collect();
    overrode.dedup();
    Origin { layer: best[win].0, at: best[win].1.at.clone(), overrode }
}

/// A file `import_yaml` reads, as it reads it: rendered with Jinja for the minion when it is
/// templated, each key then placed on the line of the file that writes it (the nearest line
/// that starts with the same key, as rendering moves lines).
fn load_layer(env: &Env, rel: &str, path: &std::path::Path, text: &str, id: FileId) -> Option<Val> {
    if !text.contains("{%") && !text.contains("{{") {
        return crate::render::load_yaml(text, id).ok();
    }
    let ctx = env.jinja.context(&env.saltenv, &env.tplroot, rel, path);
    let rendered = crate::render::jinja::render(text, &ctx).ok()?.text;
    let mut v = crate::render::load_yaml(&rendered, id).ok()?;
    let source: Vec<(usize, &str)> = text.split_inclusive('\n').scan(0, |at, l| Some((std::mem::replace(at, *at + l.len()), l))).collect();
    let out: Vec<(usize, &str)> = rendered.split_inclusive('\n').scan(0, |at, l| Some((std::mem::replace(at, *at + l.len()), l))).collect();
    place_keys(&mut v, &source, &out);
    Some(v)
}

/// Moves each key's place from the rendered text (`out`'s lines) to the source line nearest to
/// it that starts as that line does up to the key, or drops it when no source line does.
fn place_keys(v: &mut Val, source: &[(usize, &str)], out: &[(usize, &str)]) {
    let V::Dict(d) = &mut v.v else { return };
    for (k, x) in d.0.iter_mut() {
        if let Some(at) = &mut k.at {
            let line = out.partition_point(|(start, _)| *start <= at.span.start).saturating_sub(1);
            let (start, text) = out.get(line).copied().unwrap_or((0, ""));
            let key = text.get(..at.span.end - start).unwrap_or(text);
            let nearest = source.iter().enumerate().filter(|(_, (_, l))| l.starts_with(key)).min_by_key(|(i, _)| i.abs_diff(line));
            k.at = nearest.map(|(_, (s, _))| crate::value::Loc { file: at.file, span: s + (at.span.start - start)..s + (at.span.end - start) });
        }
        place_keys(x, source, out);
    }
}

/// A loaded file's leaves (values that are not dicts with keys), with their key's place.
fn flatten(v: &Val, path: &mut Vec<String>, out: &mut Vec<Entry>) {
    let Some(d) = v.as_dict() else { return };
    for (k, x) in &d.0 {
        path.push(k.json_key());
        match x.as_dict() {
            Some(sub) if !sub.is_empty() => flatten(x, path, out),
            _ => out.push(Entry { path: path.clone(), value: Some(x.clone()), at: k.at.clone().or_else(|| x.at.clone()) }),
        }
        path.pop();
    }
}

/// The `salt://` paths `{% import_yaml ... %}` / `{% import_json ... %}` of `text` read (the
/// last string literal of the path expression, under `tplroot` when it is relative to it:
/// `tplroot ~ "/defaults.yaml"`, `"defaults.yaml"`), in the order they take precedence: by
/// where the name each is imported as is first used, as a `filter_by` nested in another's
/// `merge=` and a later statement both come later in the text.
fn imports(text: &str, tplroot: &str) -> Vec<String> {
    static IMPORT: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    let re = IMPORT.get_or_init(|| regex::Regex::new(r#"\{%-?\s*import_(?:yaml|json)\s+(.*?)\s+as\s+(\w+)"#).expect("static regex"));
    let mut out: Vec<(usize, String)> = Vec::new();
    for c in re.captures_iter(text) {
        let expr = &c[1];
        let Some(lit) = string_literals(expr).into_iter().last() else { continue };
        let rel = if lit.starts_with('/') || !lit.contains('/') || (expr.trim_start().starts_with("tpl") && !lit.starts_with(tplroot)) {
            format!("{tplroot}/{}", lit.trim_start_matches('/'))
        } else {
            lit
        };
        let end = c.get(0).map_or(0, |m| m.end());
        let used = first_use(&text[end..], &c[2]).map_or(end, |at| end + at);
        if !out.iter().any(|(_, r)| *r == rel) {
            out.push((used, rel));
        }
    }
    out.sort_by_key(|(at, _)| *at);
    out.into_iter().map(|(_, rel)| rel).collect()
}

/// Where `name` first occurs in `text` as a whole word.
fn first_use(text: &str, name: &str) -> Option<usize> {
    let word = |c: char| c.is_alphanumeric() || c == '_';
    text.match_indices(name).find(|(i, _)| !text[..*i].ends_with(word) && !text[i + name.len()..].starts_with(word)).map(|(i, _)| i)
}

/// The quoted string literals of a Jinja expression.
fn string_literals(expr: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut chars = expr.char_indices();
    while let Some((_, c)) = chars.next() {
        if c == '\'' || c == '"' {
            let mut s = String::new();
            for (_, d) in chars.by_ref() {
                if d == c {
                    break;
                }
                s.push(d);
            }
            out.push(s);
        }
    }
    out
}

/// The entries the dict literals inside `{% ... %}` blocks of `text` (file `id`) write: each
/// quoted key followed by `:`, at the path of the keys of the dicts around it, with its value
/// when that is a literal (`'nginx'`, `True`, `8080`, `['a', 'b']`, `{}`).
fn literals(text: &str, id: FileId) -> Vec<Entry> {
    let masked = syntax::jinja::mask(text);
    let mut out = Vec::new();
    for b in masked.blocks.iter().filter(|b| b.kind == syntax::jinja::JinjaKind::Statement) {
        scan_block(text, b.range.clone(), id, &mut out);
    }
    out
}

fn scan_block(text: &str, range: std::ops::Range<usize>, id: FileId, out: &mut Vec<Entry>) {
    let bytes = text.as_bytes();
    // The keys of the open `{`s (`None` for a dict that is no key's value) and other brackets.
    let mut stack: Vec<Option<String>> = Vec::new();
    let mut pending: Option<String> = None;
    let mut i = range.start + 2;
    let end = range.end.saturating_sub(2);
    while i < end {
        match bytes[i] {
            q @ (b'\'' | b'"') => {
                let start = i;
                let Some(close) = closing_quote(bytes, i, q, end) else { return };
                let key = text[start + 1..close].to_string();
                let after = skip_ws(bytes, close + 1, end);
                i = close + 1;
                if after < end && bytes[after] == b':' && stack.last().is_some_and(|s| s.as_deref() != Some("[")) {
                    let vstart = skip_ws(bytes, after + 1, end);
                    let mut path: Vec<String> = stack.iter().flatten().filter(|k| *k != "[").cloned().collect();
                    path.push(key.clone());
                    let at = Some(Loc { file: id, span: start..close + 1 });
                    if vstart < end && bytes[vstart] == b'{' && bytes.get(skip_ws(bytes, vstart + 1, end)) != Some(&b'}') {
                        pending = Some(key);
                    } else {
                        let vend = value_end(bytes, vstart, end);
                        let token = text[vstart..vend].trim();
                        out.push(Entry { path, value: literal(token), at });
                    }
                    i = after + 1;
                }
            }
            b'{' => {
                stack.push(Some(pending.take().unwrap_or_default()).filter(|k| !k.is_empty()));
                i += 1;
            }
            b'[' | b'(' => {
                stack.push(Some("[".into()));
                i += 1;
            }
            b'}' | b']' | b')' => {
                stack.pop();
                i += 1;
            }
            _ => i += 1,
        }
    }
}

fn closing_quote(bytes: &[u8], open: usize, q: u8, end: usize) -> Option<usize> {
    let mut j = open + 1;
    while j < end {
        match bytes[j] {
            b'\\' => j += 2,
            c if c == q => return Some(j),
            _ => j += 1,
        }
    }
    None
}

fn skip_ws(bytes: &[u8], mut i: usize, end: usize) -> usize {
    while i < end && bytes[i].is_ascii_whitespace() {
        i += 1;
    }
    i
}

/// Where the value starting at `i` ends: the `,`, `}` or `)` that closes it at its depth.
fn value_end(bytes: &[u8], mut i: usize, end: usize) -> usize {
    let mut depth = 0usize;
    while i < end {
        match bytes[i] {
            q @ (b'\'' | b'"') => i = closing_quote(bytes, i, q, end).unwrap_or(end),
            b'{' | b'[' | b'(' => depth += 1,
            b'}' | b']' | b')' if depth == 0 => return i,
            b'}' | b']' | b')' => depth -= 1,
            b',' if depth == 0 => return i,
            _ => {}
        }
        i += 1;
    }
    end
}

/// A Python literal as a value: read as YAML flow (which quoted strings, numbers, booleans and
/// lists of them are), `None` as null; anything with Jinja operators or calls is no literal.
fn literal(token: &str) -> Option<Val> {
    if token == "None" {
        return Some(Val::new(V::None));
    }
    let quoted = token.starts_with(['\'', '"']) && token.ends_with(token.chars().next()?) && token.len() >= 2;
    let plain = token.chars().all(|c| c.is_alphanumeric() || matches!(c, '.' | '-' | '+' | '_'));
    let flow = token.starts_with('[') && token.ends_with(']') || token == "{}";
    if !(quoted || plain || flow) || token.contains(['~', '|', '(']) && !quoted {
        return None;
    }
    let v = crate::render::load_yaml(token, 0).ok()?;
    Some(Val::new(v.v))
}

#[cfg(test)]
mod tests;
