//! `map.stack`: one run of data sources over a stack (saltext-formula's `RenderContext`,
//! `Renderer.render`, `YAMLRenderer.render`, the matchers' lookups). Lookups answer from the
//! minion's grains, pillar and opts the way `grains.get`, `pillar.get` and `config.get` do,
//! including Python's aliasing: the `strategy` and `merge_lists` a lookup pops from a dict are
//! gone for every later lookup of the same data. Layer files are read through the file roots
//! and rendered with Jinja as `cp.get_template` renders them, then loaded as YAML.

use serde_json::{Map, Value};

use super::mapdata::{Implementation, Layer, Stage, Status};
use super::origin::Origins;
use super::source::{self, Chain, Kind, Matcher};
use crate::diagnostic::{Code, SaltError};
use crate::py::builtins::{str_of, truthy};
use crate::py::data::{at_mut, locate, traverse_dict_and_list, Step};
use crate::py::dictupdate;
use crate::render::config_lookup::{config_locate, config_merged, ConfigSource};
use crate::render::context::JinjaSetup;
use crate::value::{Loc, Val, V};
use crate::workspace::facts::Data;
use crate::workspace::reads;
use crate::workspace::roots::FileRoots;
use crate::workspace::vfs::{FileTable, Vfs};

/// What every stack of one `map.data` call shares: where files come from, the minion's data
/// (changed by the lookups' pops, as Salt's in-memory copies are), and the layers seen so far.
pub struct Env<'a> {
    /// Whose rules: saltext-formula's `map.data` or template-formula's `libmapstack.jinja`.
    pub implementation: Implementation,
    pub fs: &'a dyn Vfs,
    pub roots: &'a FileRoots,
    pub files: &'a mut FileTable,
    pub jinja: &'a JinjaSetup,
    pub saltenv: String,
    pub tplroot: String,
    pub tpldir: String,
    /// The minion's data as the templates' setup has it (reads recorded where it records).
    pub grains: Data,
    pub pillar: Data,
    pub opts: Data,
    pub layers: Vec<Layer>,
    pub notes: Vec<SaltError>,
}

/// One `RenderContext`: the stack, its origins and the defaults its layers merge with.
pub struct Stack {
    pub stage: Stage,
    pub values: Value,
    pub origins: Origins,
    pub base_dirs: Vec<String>,
    /// `merge=` of `config.get` (`None`: no merge).
    pub config_get_strategy: Option<Value>,
    /// `merge_strategy or "smart"`.
    pub merge_strategy: Value,
    /// `merge_lists if merge_lists is not None else False`.
    pub merge_lists: Value,
    /// Where the stack holds an object of the minion's data itself (a path in the stack,
    /// the data, the path there): `dictupdate.update` stores `upd[key]`, not a copy, and the
    /// next merge's `deepcopy` ends it. A later lookup that pops `strategy` from that object
    /// pops it from the stack too.
    pub aliases: Vec<(Vec<Step>, Which, Vec<Step>)>,
    /// `libmapstack.jinja`'s `defaults` besides `values` (`merge_strategy`, `merge_lists`),
    /// which layer templates see in `stack`; empty for saltext-formula.
    pub defaults: Map<String, Value>,
}

/// A looked-up value with the `strategy` and `merge_lists` popped from it (`MatcherResult`).
struct Fetched {
    values: Value,
    strategy: Option<Value>,
    merge_lists: Option<Value>,
    /// Where the value lives (Python hands out that object, not a copy).
    home: Option<(Which, Vec<Step>)>,
}

/// Data a looked-up value can live in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Which {
    Opts,
    Grains,
    Pillar,
    /// `pillar['master']`.
    Master,
    /// The stack itself (`M@`).
    Stack,
}

/// A layer file's data (`MatcherResult(**yaml_values)`).
pub struct Loaded {
    pub layer: usize,
    pub values: Option<(Value, Val)>,
    pub strategy: Option<Value>,
    pub merge_lists: Option<Value>,
}

fn error(message: impl Into<String>, at: Option<Loc>) -> SaltError {
    SaltError::new(Code::MapData, message).at(at)
}

fn merge_error(e: dictupdate::MergeError, at: Option<Loc>) -> SaltError {
    error(format!("{}: {}", e.exception, e.message), at)
}

/// `None` for Python's `None` (what `dict.pop(key, None)` cannot tell from a missing key).
fn some(v: Option<Value>) -> Option<Value> {
    v.filter(|v| !v.is_null())
}

/// `_concat_parts`: the non-empty parts, stripped of `/`, joined with `/`.
fn concat<'s>(parts: impl IntoIterator<Item = &'s str>) -> String {
    parts.into_iter().filter(|p| !p.is_empty()).map(|p| p.trim_matches('/')).collect::<Vec<_>>().join("/")
}

impl Stack {
    /// A stack of `stage` over `base_dirs` starting from `values`: smart merges, no
    /// `merge_lists`, no `config.get` merge.
    pub fn new(stage: Stage, values: Value, base_dirs: Vec<String>) -> Stack {
        Stack {
            stage,
            origins: Origins::of(&values, 0, None, None),
            values,
            base_dirs,
            config_get_strategy: None,
            merge_strategy: Value::String("smart".into()),
            merge_lists: Value::Bool(false),
            aliases: Vec::new(),
            defaults: Map::new(),
        }
    }

    /// The meta stack (`map_jinja.yaml`'s): layer 0 is the built-in `defaults`, named `label`.
    pub fn meta(env: &mut Env, label: &str, defaults: Value, base_dirs: Vec<String>) -> Stack {
        env.layers.push(Layer {
            stage: Stage::MapJinja,
            source: label.into(),
            path: None,
            file: None,
            status: Status::Loaded,
            strategy: None,
            merge_lists: None,
        });
        Stack::new(Stage::MapJinja, defaults, base_dirs)
    }

    /// The `stack` variable of `libmapstack.jinja`'s macro: its `defaults` with `values`
    /// replaced by the values merged so far.
    fn jinja_stack(&self) -> Value {
        let mut stack = Map::from_iter([("values".to_string(), self.values.clone())]);
        stack.extend(self.defaults.iter().filter(|(k, _)| *k != "values").map(|(k, v)| (k.clone(), v.clone())));
        Value::Object(stack)
    }

    /// Runs one source (`_render_matcher_chain(source).render()`).
    pub fn render(&mut self, env: &mut Env, source: &str) -> Result<(), SaltError> {
        let chain = source::parse(source).map_err(|m| error(format!("data source `{source}`: {m}"), None))?;
        if chain.yaml {
            self.render_yaml(env, source, &chain)
        } else {
            self.render_raw(env, source, &chain)
        }
    }

    pub fn layer(&self, env: &mut Env, source: &str, path: Option<String>, status: Status) -> usize {
        env.layers.push(Layer { stage: self.stage, source: source.to_string(), path, file: None, status, strategy: None, merge_lists: None });
        env.layers.len() - 1
    }

    /// `Renderer.render`: the first matcher's value (with `SUB`), narrowed by each later
    /// matcher's keys, merged over the stack.
    fn render_raw(&mut self, env: &mut Env, source: &str, chain: &Chain) -> Result<(), SaltError> {
        let first = &chain.matchers[0];
        if first.kind == Kind::Static {
            return Err(error(format!("data source `{source}`: NotImplementedError: The StaticMatcher cannot be used for querying data"), None));
        }
        let Some(mut res) = self.fetch(env, first)? else {
            self.layer(env, source, None, Status::Missing);
            return Ok(());
        };
        let mut sub: Option<String> = None;
        if first.options.iter().any(|o| o == "SUB") {
            // The last 7 characters (`:lookup`) go, whatever the delimiter's length.
            let key = if first.query.ends_with(&format!("{}lookup", first.delimiter)) {
                let n = first.query.chars().count().saturating_sub(7);
                first.query.chars().take(n).collect()
            } else {
                first.query.clone()
            };
            res.values = Value::Object(Map::from_iter([(key.clone(), res.values)]));
            sub = Some(key);
        }
        let strategy = res.strategy.clone().unwrap_or_else(|| self.merge_strategy.clone());
        let merge_lists = res.merge_lists.clone().unwrap_or_else(|| self.merge_lists.clone());
        for m in &chain.matchers[1..] {
            let Some(keys) = self.fetch_list(env, m)? else {
                self.layer(env, source, None, Status::Missing);
                return Ok(());
            };
            let mut narrowed = Value::Object(Map::new());
            for key in keys {
                let picked = traverse_dict_and_list(&res.values, &key, ":").cloned().unwrap_or(Value::Object(Map::new()));
                narrowed = dictupdate::merge(&mut narrowed, &picked, &strategy_name(&strategy), "yaml", truthy(&merge_lists))
                    .map_err(|e| error(format!("data source `{source}`: {}: {}", e.exception, e.message), None))?;
            }
            res.values = narrowed;
            // A new dict, whose parts are not tracked.
            res.home = None;
        }
        let layer = self.layer(env, source, None, Status::Loaded);
        let home = res.home.map(|(which, path)| (sub.into_iter().map(Step::Key).collect(), which, path));
        self.merge(env, layer, res.values, None, res.strategy, res.merge_lists, None, home)
    }

    /// `YAMLRenderer.render`: every path the chain's values give, under every parameter
    /// directory, as `.yaml` and `.yaml.jinja` files.
    fn render_yaml(&mut self, env: &mut Env, source: &str, chain: &Chain) -> Result<(), SaltError> {
        let paths = self.render_path(env, chain)?;
        if paths.is_empty() {
            self.layer(env, source, None, Status::Missing);
        }
        for path in paths {
            // Both files are rendered (seeing the same stack) before either is merged.
            let loaded = self.load_yaml(env, source, &path)?;
            for l in loaded {
                self.merge_loaded(env, l)?;
            }
        }
        Ok(())
    }

    /// Merges a layer file's `values` with its strategy, or marks the layer empty.
    pub fn merge_loaded(&mut self, env: &mut Env, l: Loaded) -> Result<(), SaltError> {
        let at = env.layers[l.layer].file.as_ref().and_then(|f| env.files.id(f)).map(|file| Loc { file, span: 0..0 });
        match l.values {
            Some((values, spans)) => self.merge(env, l.layer, values, Some(&spans), l.strategy, l.merge_lists, at, None),
            None => {
                env.layers[l.layer].status = Status::Empty;
                Ok(())
            }
        }
    }

    /// `Renderer.render_path(include_query=True)`.
    fn render_path(&mut self, env: &mut Env, chain: &Chain) -> Result<Vec<String>, SaltError> {
        let mut parts: Vec<Vec<String>> = Vec::new();
        for m in &chain.matchers {
            let (query, values) = if m.kind == Kind::Static {
                (String::new(), vec![m.query.clone()])
            } else {
                match self.fetch_list(env, m)? {
                    Some(v) => (m.query.clone(), v),
                    None => return Ok(Vec::new()),
                }
            };
            parts.push(values.iter().map(|v| concat([query.as_str(), v.as_str()])).collect());
        }
        let mut rel: Vec<Vec<String>> = vec![Vec::new()];
        for options in &parts {
            rel = rel.iter().flat_map(|prefix| options.iter().map(move |o| [prefix.clone(), vec![o.clone()]].concat())).collect();
        }
        let rel: Vec<String> = rel.iter().map(|r| concat(r.iter().map(String::as_str))).collect();
        Ok(self.base_dirs.iter().flat_map(|base| rel.iter().map(move |r| concat([base.as_str(), r.as_str()]))).collect())
    }

    /// `YAMLRenderer._load_yaml(path)`: the layer of each candidate file.
    fn load_yaml(&mut self, env: &mut Env, source: &str, path: &str) -> Result<Vec<Loaded>, SaltError> {
        let candidates = match source::path_suffix(path) {
            ".yaml" => vec![path.to_string(), format!("{path}.jinja")],
            ".jinja" => vec![path.to_string()],
            _ => vec![format!("{path}.yaml"), format!("{path}.yaml.jinja")],
        };
        let mut out = Vec::new();
        for rel in candidates {
            out.extend(self.load_file(env, source, &rel)?);
        }
        Ok(out)
    }

    /// One layer file: its layer (missing when there is no such file), and its data rendered
    /// and loaded (`None` when missing, or for `libmapstack.jinja`, when it loads as nothing).
    pub fn load_file(&mut self, env: &mut Env, source: &str, rel: &str) -> Result<Option<Loaded>, SaltError> {
        let rel = rel.to_string();
        let layer = self.layer(env, source, Some(rel.clone()), Status::Missing);
        let Some(file) = reads::find_file(env.fs, env.roots, &env.saltenv, &rel) else { return Ok(None) };
        let Ok(text) = env.fs.read(&file) else { return Ok(None) };
        let id = env.files.add(file.clone(), text.as_str().into());
        env.layers[layer].file = Some(file.clone());
        env.layers[layer].status = Status::Loaded;
        let whole = Some(Loc { file: id, span: 0..0 });
        let (rendered, templated) = if crate::render::is_templated(&text) {
            let mut ctx = env.jinja.context(&env.saltenv, "", &rel, &file);
            (ctx.grains, ctx.pillar, ctx.opts) = (env.grains.clone(), env.pillar.clone(), env.opts.clone());
            ctx.extra = match env.implementation {
                Implementation::Saltext | Implementation::MapJinja | Implementation::NoMap => vec![
                    ("tpldir".into(), Value::String(env.tpldir.clone())),
                    ("tplroot".into(), Value::String(env.tplroot.clone())),
                    ("mapdata".into(), self.values.clone()),
                    ("custom_data".into(), Value::Object(Map::new())),
                ],
                // `include ... ignore missing` inside the `mapstack` macro: its locals leak,
                // `stack` among them (the macro's defaults with the values merged so far).
                Implementation::Jinja => vec![("tplroot".into(), Value::String(env.tplroot.clone())), ("stack".into(), self.jinja_stack())],
            };
            let r = crate::render::jinja::render(&text, &ctx).map_err(|e| {
                let start = e.line.and_then(|l| syntax::line_index::LineIndex::new(&text).line_range(l.saturating_sub(1) as u32)).map_or(0, |r| r.start);
                SaltError::new(Code::RenderError, e.message).at(Some(Loc { file: id, span: start..start }))
            })?;
            for h in r.hints {
                env.notes.push(SaltError::new(Code::NotAnalysed, h).at(whole.clone()));
            }
            (r.text, true)
        } else {
            (text.clone(), false)
        };
        let mut data = crate::render::load_yaml(&rendered, id).map_err(|mut e| {
            if templated {
                e.message = format!("{} (in the rendered text)", e.message);
                e.loc = whole.clone();
            }
            e
        })?;
        if templated {
            clear_spans(&mut data);
        }
        Ok(Some(match env.implementation {
            Implementation::Saltext | Implementation::MapJinja | Implementation::NoMap => matcher_result(&data, &rel, layer, whole)?,
            Implementation::Jinja => layer_result(&data, layer),
        }))
    }

    /// `RenderContext.merge_result`: the layer's strategy and `merge_lists`, else the stack's.
    #[allow(clippy::too_many_arguments)]
    pub fn merge(
        &mut self,
        env: &mut Env,
        layer: usize,
        values: Value,
        spans: Option<&Val>,
        strategy: Option<Value>,
        merge_lists: Option<Value>,
        at: Option<Loc>,
        home: Option<(Vec<Step>, Which, Vec<Step>)>,
    ) -> Result<(), SaltError> {
        let strategy = strategy.unwrap_or_else(|| self.merge_strategy.clone());
        let merge_lists = merge_lists.unwrap_or_else(|| self.merge_lists.clone());
        let name = strategy_name(&strategy);
        env.layers[layer].strategy = Some(name.clone());
        env.layers[layer].merge_lists = Some(truthy(&merge_lists));
        let before = self.values.clone();
        let merged = dictupdate::merge(&mut self.values, &values, &name, "yaml", truthy(&merge_lists)).map_err(|e| merge_error(e, at))?;
        self.aliases = match (home, name.as_str()) {
            (Some((prefix, which, home_path)), "smart" | "recurse" | "none" | "overwrite") => {
                let merge_lists = truthy(&merge_lists) && name != "none";
                // `merge_overwrite` assigns `b`'s top-level values into `a` before the copy.
                let dest = if name == "overwrite" { self.values.clone() } else { before };
                let mut points = Vec::new();
                alias_points(&dest, &values, merge_lists, &mut Vec::new(), &mut points);
                points
                    .into_iter()
                    .filter_map(|p| p.strip_prefix(prefix.as_slice()).map(|rest| (p.clone(), which, [home_path.as_slice(), rest].concat())))
                    .collect()
            }
            // `merge_list` builds `{k: [a[k], b[k]] if k in b else a[k]}`: nothing is copied.
            (home, "list") => {
                let b = values.as_object();
                let in_b = |k: &Step| matches!(k, Step::Key(k) if b.is_some_and(|b| b.contains_key(k)));
                let mut kept: Vec<_> = std::mem::take(&mut self.aliases)
                    .into_iter()
                    .map(|(p, which, hp)| match p.split_first() {
                        Some((k, rest)) if in_b(k) => ([&[k.clone(), Step::Index(0)][..], rest].concat(), which, hp),
                        _ => (p, which, hp),
                    })
                    .collect();
                if let (Some((prefix, which, home_path)), Some(a)) = (home, before.as_object()) {
                    for k in a.keys().filter(|k| in_b(&Step::Key((*k).clone()))) {
                        if let Some(rest) = [Step::Key(k.clone())].strip_prefix(prefix.as_slice()) {
                            kept.push((vec![Step::Key(k.clone()), Step::Index(1)], which, [home_path.as_slice(), rest].concat()));
                        }
                    }
                }
                kept
            }
            // `aggregate` copies `a` shallowly at the top: its keys that `b` lacks keep their
            // objects. (What it keeps of `b` is not tracked, nor are layers read from files.)
            (_, "aggregate") => {
                let b = values.as_object();
                std::mem::take(&mut self.aliases)
                    .into_iter()
                    .filter(|(p, _, _)| !matches!(p.first(), Some(Step::Key(k)) if b.is_some_and(|b| b.contains_key(k))))
                    .collect()
            }
            // Every other strategy deep-copies `a`.
            _ => Vec::new(),
        };
        self.origins = Origins::merged(Some(&self.origins), &merged, Some(&values), spans, layer, None);
        self.values = merged;
        Ok(())
    }

    /// `Matcher.value()`'s lookup (`_fetch`, then `MatcherResult.from_bare`): `None` when not
    /// found. A dict loses its `strategy` and `merge_lists` where it lives, and so wherever
    /// the stack holds the same object (see [`Stack::aliases`]).
    pub fn fetch_value(&mut self, env: &mut Env, m: &Matcher) -> Result<Option<Value>, SaltError> {
        Ok(self.fetch(env, m)?.map(|f| f.values))
    }

    fn fetch(&mut self, env: &mut Env, m: &Matcher) -> Result<Option<Fetched>, SaltError> {
        // `libmatchers.jinja` passes the delimiter on only to `config.get` with a `merge`.
        let jinja = env.implementation == Implementation::Jinja;
        let honoured = !jinja || (m.kind == Kind::Config && self.config_get_strategy.is_some());
        let (q, d) = (m.query.as_str(), if honoured { m.delimiter.as_str() } else { ":" });
        let home: Option<(Which, Vec<Step>)> = match m.kind {
            Kind::Grains => locate(env.grains.traversed(q, d), q, d).map(|p| (Which::Grains, p)),
            Kind::Pillar => locate(env.pillar.traversed(q, d), q, d).map(|p| (Which::Pillar, p)),
            Kind::Mapdata => locate(&self.values, q, d).map(|p| (Which::Stack, p)),
            // `custom_data` is not passed on by `map.data`.
            Kind::Custom | Kind::Static => None,
            Kind::Config => match &self.config_get_strategy {
                Some(strategy) => {
                    let merged = config_merged(&env.opts, &env.grains, &env.pillar, &str_of(strategy)).map_err(|e| merge_error(e, None))?;
                    let value = traverse_dict_and_list(&merged, q, d).filter(|v| v.as_str() != Some("_|-")).cloned();
                    return Ok(value.map(|v| if jinja { Fetched { values: v, strategy: None, merge_lists: None, home: None } } else { pop_meta(v, None) }));
                }
                None => match config_locate(&env.opts, &env.grains, &env.pillar, q, d, [false; 4]) {
                    Some((ConfigSource::Opts, p)) => Some((Which::Opts, p)),
                    Some((ConfigSource::Grains, p)) => Some((Which::Grains, p)),
                    Some((ConfigSource::Pillar, p)) => Some((Which::Pillar, p)),
                    Some((ConfigSource::Master, p)) => Some((Which::Master, p)),
                    Some((ConfigSource::Defaults, p)) => {
                        let defaults = crate::render::config_lookup::config_source(&env.opts, &env.grains, &env.pillar, ConfigSource::Defaults, &p);
                        return Ok(
                            defaults.map(|v| if jinja { Fetched { values: v, strategy: None, merge_lists: None, home: None } } else { pop_meta(v, None) })
                        );
                    }
                    None => None,
                },
            },
        };
        let Some((which, path)) = home else { return Ok(None) };
        let Some(found) = self.data_mut(env, which).and_then(|data| at_mut(data, &path)) else { return Ok(None) };
        if jinja {
            // `libmatchers.jinja` keeps `strategy` and `merge_lists` in the value.
            return Ok(Some(Fetched { values: found.clone(), strategy: None, merge_lists: None, home: None }));
        }
        let (strategy, merge_lists) = pop_in_place(found);
        let values = found.clone();
        if strategy.is_some() || merge_lists.is_some() {
            self.pop_aliases(env, which, &path);
        }
        Ok(Some(Fetched { values, strategy, merge_lists, home: Some((which, path)) }))
    }

    fn data_mut<'v>(&'v mut self, env: &'v mut Env, which: Which) -> Option<&'v mut Value> {
        match which {
            // Where a recorded read found the value.
            Which::Opts => Some(env.opts.make_mut()),
            Which::Grains => Some(env.grains.make_mut()),
            Which::Pillar => Some(env.pillar.make_mut()),
            Which::Master => env.pillar.make_mut().get_mut("master"),
            Which::Stack => Some(&mut self.values),
        }
    }

    /// A pop in `which` at `path` reaches the same object where the stack aliases it (or,
    /// for a pop in the stack, where it came from).
    fn pop_aliases(&mut self, env: &mut Env, which: Which, path: &[Step]) {
        let mirrored: Vec<(Which, Vec<Step>)> = self
            .aliases
            .iter()
            .filter_map(|(in_stack, home, home_path)| {
                if which == Which::Stack {
                    path.strip_prefix(in_stack.as_slice()).map(|rest| (*home, [home_path.as_slice(), rest].concat()))
                } else if which == *home {
                    path.strip_prefix(home_path.as_slice()).map(|rest| (Which::Stack, [in_stack.as_slice(), rest].concat()))
                } else {
                    None
                }
            })
            .collect();
        for (w, p) in mirrored {
            if let Some(v) = self.data_mut(env, w).and_then(|d| at_mut(d, &p)) {
                pop_in_place(v);
            }
        }
    }

    /// `Matcher.value_list()`: the value as path segments (a string itself, a dict its keys,
    /// a list each item's `str()`, anything else its `str()`).
    fn fetch_list(&mut self, env: &mut Env, m: &Matcher) -> Result<Option<Vec<String>>, SaltError> {
        if m.kind == Kind::Static {
            return Ok(Some(vec![m.query.clone()]));
        }
        Ok(self.fetch(env, m)?.map(|f| match f.values {
            Value::String(s) => vec![s],
            Value::Array(items) => items.iter().map(str_of).collect(),
            Value::Object(map) => map.keys().cloned().collect(),
            other => vec![str_of(&other)],
        }))
    }
}

/// Where `update(dest, upd, merge_lists=...)` stores `upd`'s own objects: every key when the
/// two share none at a level, else each key that is not two dicts (recursed into) or, with
/// `merge_lists`, two lists (copied).
fn alias_points(dest: &Value, upd: &Value, merge_lists: bool, path: &mut Vec<Step>, out: &mut Vec<Vec<Step>>) {
    let (Value::Object(d), Value::Object(u)) = (dest, upd) else { return };
    let shared = u.keys().any(|k| d.contains_key(k));
    for (k, v) in u {
        path.push(Step::Key(k.clone()));
        match (d.get(k), v) {
            (Some(dv @ Value::Object(_)), Value::Object(_)) if shared => alias_points(dv, v, merge_lists, path, out),
            (Some(Value::Array(_)), Value::Array(_)) if shared && merge_lists => {}
            _ => out.push(path.clone()),
        }
        path.pop();
    }
}

/// `bare.pop("strategy", None)`, `bare.pop("merge_lists", None)` on a dict.
fn pop_in_place(v: &mut Value) -> (Option<Value>, Option<Value>) {
    match v.as_object_mut() {
        Some(m) => (some(m.shift_remove("strategy")), some(m.shift_remove("merge_lists"))),
        None => (None, None),
    }
}

fn pop_meta(mut v: Value, home: Option<(Which, Vec<Step>)>) -> Fetched {
    let (strategy, merge_lists) = pop_in_place(&mut v);
    Fetched { values: v, strategy, merge_lists, home }
}

/// The strategy `dictupdate.merge` compares: a string as it is; anything else is no known
/// strategy (Salt falls back to `recurse`), named by its `str()`.
fn strategy_name(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => format!("<{}>", str_of(other)),
    }
}

/// A loaded layer file as template-formula's macro reads it: nothing when it loads as a falsy value, else
/// `values` (default `{}`), `strategy` and `merge_lists` (through `to_bool`) traversed out of
/// it; other keys are ignored.
fn layer_result(data: &Val, layer: usize) -> Loaded {
    let json = data.to_json();
    if !truthy(&json) {
        return Loaded { layer, values: None, strategy: None, merge_lists: None };
    }
    let values = match data.as_dict().and_then(|d| d.0.iter().find(|(k, _)| matches!(&k.v, V::Str(s) if s == "values"))) {
        Some((_, v)) => (v.to_json(), v.clone()),
        None => {
            let v = traverse_dict_and_list(&json, "values", ":").cloned().unwrap_or(Value::Object(Map::new()));
            let spans = Val::from_json(&v, None);
            (v, spans)
        }
    };
    Loaded {
        layer,
        values: Some(values),
        strategy: traverse_dict_and_list(&json, "strategy", ":").cloned(),
        merge_lists: traverse_dict_and_list(&json, "merge_lists", ":").map(|v| Value::Bool(to_bool(v))),
    }
}

/// Salt's Jinja filter `to_bool` (`salt/utils/jinja.py`).
pub fn to_bool(v: &Value) -> bool {
    match v {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::String(s) => matches!(s.to_lowercase().as_str(), "yes" | "1" | "true"),
        Value::Number(n) => n.as_i64().is_some_and(|i| i > 0),
        Value::Array(a) => !a.is_empty(),
        Value::Object(m) => !m.is_empty(),
    }
}

/// `MatcherResult(**yaml_values, query="")`: only `values`, `strategy` and `merge_lists`.
fn matcher_result(data: &Val, rel: &str, layer: usize, at: Option<Loc>) -> Result<Loaded, SaltError> {
    let invalid = |why: String| error(format!("TypeError: Got invalid data from salt://{rel}: {why}"), at.clone());
    let Some(dict) = data.as_dict() else {
        return Err(invalid(format!("MatcherResult.__init__() argument after ** must be a mapping, not {}", data.py_type())));
    };
    let mut loaded = Loaded { layer, values: None, strategy: None, merge_lists: None };
    for (k, v) in &dict.0 {
        let V::Str(key) = &k.v else { return Err(invalid("keywords must be strings".into())) };
        match key.as_str() {
            "values" => loaded.values = Some((v.to_json(), v.clone())),
            "strategy" => loaded.strategy = some(Some(v.to_json())),
            "merge_lists" => loaded.merge_lists = some(Some(v.to_json())),
            "query" => return Err(invalid("MatcherResult.__init__() got multiple values for keyword argument 'query'".into())),
            other => return Err(invalid(format!("MatcherResult.__init__() got an unexpected keyword argument '{other}'"))),
        }
    }
    Ok(loaded)
}

/// Positions in a rendered template are not the file's: drop them.
fn clear_spans(v: &mut Val) {
    v.at = None;
    match &mut v.v {
        V::List(l) => l.iter_mut().for_each(clear_spans),
        V::Dict(d) => d.0.iter_mut().for_each(|(k, x)| {
            clear_spans(k);
            clear_spans(x)
        }),
        _ => {}
    }
}
