//! The Salt execution-module functions templates call (`salt['pillar.get'](...)`,
//! `salt.grains.filter_by(...)`), answered from the minion profile (grains, pillar, opts), the
//! file roots and the target matchers, with Python's argument binding (positional and keyword
//! arguments, Python's `TypeError` wording) and Python's in-place changes to mutable dicts.
//! A function that would touch the host, the network or a process is never run: it renders as
//! an empty string, with a hint.

use crate::py::builtins::truthy;
use std::sync::{Arc, Mutex};

use minijinja::value::{Value as JValue, ValueKind};
use minijinja::{Error, ErrorKind};
use serde_json::{Map, Value};

use crate::py::builtins as py;
use crate::py::data::{at, locate, traverse_dict_and_list, Step};
use crate::py::dictupdate::{self, MergeError};
use crate::py::{fnmatch, json, yaml_dump};
use crate::render::jinja::JinjaContext;
use crate::render::mutable::{self, MDict, MList};

/// Decides a target for `match.filter_by`: `(matcher, target, minion_id, delimiter)`, the
/// matcher named as Salt's `salt/matchers/<name>_match.py` is, for this minion (or for
/// `minion_id` where the matcher takes one).
pub type Matcher = Arc<dyn Fn(&str, &str, Option<&str>, Option<&str>) -> bool + Send + Sync>;

/// Answers `salt["map.data"](tpldir)` (saltext-formula) for this minion: what it returns and
/// what was not analysed, or the exception Salt raises. The pipeline passes one in (the
/// mapstack model comes after `render`).
pub type MapDataFn = Arc<dyn Fn(&str) -> Result<(Value, Vec<String>), String> + Send + Sync>;

/// `DEFAULT_TARGET_DELIM` (`salt/defaults/__init__.py`).
const DELIM: &str = ":";

/// Calls Salt function `name` (`pillar.get`) with a template's arguments (keyword arguments
/// last, as minijinja passes them).
pub fn call(ctx: &JinjaContext, hints: &Mutex<Vec<String>>, name: &str, args: &[JValue]) -> Result<JValue, Error> {
    let f = Functions { ctx, hints };
    if let Some(answer) = pinned(ctx, name, args) {
        return Ok(from_json(&answer));
    }
    let a = |sig: &Sig| sig.bind(args);
    match name {
        "grains.filter_by" => {
            let b = a(&Sig::new("filter_by", &["lookup_dict", "grain", "merge", "default", "base"], 1))?;
            let grain = b.str_or(1, "os_family")?;
            f.filter_by(b.req(0), &grain, ctx.grains.clone(), b.opt(2), b.get(3).unwrap_or_else(|| JValue::from("default")), b.opt(4))
        }
        "pillar.filter_by" => {
            let b = a(&Sig::new("filter_by", &["lookup_dict", "pillar", "merge", "default", "base"], 2))?;
            let lookup = b.string(1)?;
            f.filter_by(b.req(0), &lookup, ctx.pillar.clone(), b.opt(2), b.get(3).unwrap_or_else(|| JValue::from("default")), b.opt(4))
        }
        "pillar.get" | "pillar.fetch" => {
            f.pillar_get(&a(&Sig::new("get", &["key", "default", "merge", "merge_nested_lists", "delimiter", "pillarenv", "saltenv", "unmask"], 1))?)
        }
        "config.get" => {
            f.config_get(&a(&Sig::new("get", &["key", "default", "delimiter", "merge", "omit_opts", "omit_pillar", "omit_master", "omit_grains"], 1))?)
        }
        "config.option" => f.config_option(&a(&Sig::new(
            "option",
            &["value", "default", "omit_opts", "omit_grains", "omit_pillar", "omit_master", "omit_all", "wildcard"],
            1,
        ))?),
        "grains.get" => {
            let b = a(&Sig::new("get", &["key", "default", "delimiter", "ordered"], 1))?;
            let (key, delim) = (b.key(0)?, b.str_or(2, DELIM)?);
            Ok(match traverse(&ctx.grains, &key, &delim)? {
                Some(v) => from_json(v),
                None => b.get(1).unwrap_or_else(|| JValue::from("")),
            })
        }
        "grains.has_value" => {
            let b = a(&Sig::new("has_value", &["key"], 1))?;
            Ok(JValue::from(traverse(&ctx.grains, &b.key(0)?, DELIM)?.is_some()))
        }
        "grains.items" => {
            let b = a(&Sig::new("items", &["sanitize"], 0))?;
            Ok(from_json(&sanitized(&ctx.grains, b.truthy(0))))
        }
        "grains.item" => {
            let b = a(&Sig::new("item", &[], 0).star_args().star_kwargs())?;
            let default = b.kwarg("default").unwrap_or_else(|| JValue::from(""));
            let delim = b.kwarg("delimiter").map(|d| string(&d)).transpose()?.unwrap_or_else(|| DELIM.to_string());
            let mut ret = Map::new();
            for key in &b.star {
                let key = key_arg(key)?;
                let v = traverse(&ctx.grains, &key, &delim)?.cloned().unwrap_or_else(|| to_json(&default));
                ret.insert(key, v);
            }
            let ret = Value::Object(ret);
            Ok(from_json(&if b.kwarg("sanitize").is_some_and(|v| v.is_true()) { sanitized(&ret, true) } else { ret }))
        }
        "grains.ls" => {
            a(&Sig::new("ls", &[], 0))?;
            let mut keys: Vec<&String> = ctx.grains.as_object().map(|m| m.keys().collect()).unwrap_or_default();
            keys.sort();
            Ok(from_json(&Value::from(keys.into_iter().cloned().collect::<Vec<_>>())))
        }
        "pillar.items" | "pillar.data" => {
            let b = a(&Sig::new("items", &[], 0).star_args().kwonly(&["pillar", "pillar_enc", "pillarenv", "saltenv", "unmask"]))?;
            if !b.star.is_empty() {
                return f.pillar_item(&b.star, None, None);
            }
            if b.get(0).is_some_and(|v| v.is_true()) {
                f.hint("`pillar.items(pillar=...)`: the pillar override is not applied; the profile's pillar is used");
            }
            Ok(from_json(&ctx.pillar))
        }
        "pillar.item" => {
            let b = a(&Sig::new("item", &[], 0).star_args().kwonly(&["default", "delimiter", "pillarenv", "saltenv", "unmask"]))?;
            f.pillar_item(&b.star, b.opt(0), b.opt(1))
        }
        "pillar.raw" => {
            let b = a(&Sig::new("raw", &["key", "unmask"], 0))?;
            Ok(match b.opt(0).filter(JValue::is_true) {
                Some(key) => from_json(ctx.pillar.get(string(&key)?).unwrap_or(&Value::Object(Map::new()))),
                None => from_json(&ctx.pillar),
            })
        }
        "pillar.keys" => {
            let b = a(&Sig::new("keys", &["key", "delimiter", "unmask"], 1))?;
            let key = b.key(0)?;
            match traverse(&ctx.pillar, &key, &b.str_or(1, DELIM)?)? {
                None => Err(raised(format!("'Pillar key not found: {key}'"))),
                Some(Value::Object(m)) => Ok(from_json(&Value::from(m.keys().cloned().collect::<Vec<_>>()))),
                Some(_) => Err(raised(format!("Pillar value in key {key} is not a dict"))),
            }
        }
        "slsutil.merge" => {
            let b = a(&Sig::new("merge", &["obj_a", "obj_b", "strategy", "renderer", "merge_lists"], 2))?;
            let (strategy, renderer) = (b.str_or(2, "smart")?, b.str_or(3, "yaml")?);
            let obj_a = b.req(0);
            let mut a_json = to_json(&obj_a);
            let merged = dictupdate::merge(&mut a_json, &to_json(&b.req(1)), &strategy, &renderer, b.truthy(4)).map_err(merge_error)?;
            if strategy == "overwrite" {
                // merge_overwrite assigns b's values into obj_a itself before copying it: the
                // very objects, so a later change to b's value shows in obj_a too.
                let obj_b = b.req(1);
                match (obj_a.downcast_object::<MDict>(), obj_b.kind() == ValueKind::Map) {
                    (Some(d), true) => {
                        let mut d = d.0.lock().unwrap_or_else(|e| e.into_inner());
                        for k in obj_b.try_iter()? {
                            if d.contains_key(&k) {
                                let v = obj_b.get_item(&k)?;
                                d.insert(k, mutable::mutable(v));
                            }
                        }
                    }
                    _ => {
                        f.write_back("slsutil.merge", &obj_a, &a_json);
                    }
                }
            }
            Ok(from_json(&merged))
        }
        "slsutil.merge_all" => {
            let b = a(&Sig::new("merge_all", &["lst", "strategy", "renderer", "merge_lists"], 1))?;
            let items: Vec<Value> = b.req(0).try_iter()?.map(|v| to_json(&v)).collect();
            let merged = dictupdate::merge_all(&items, &b.str_or(1, "smart")?, &b.str_or(2, "yaml")?, b.truthy(3)).map_err(merge_error)?;
            Ok(from_json(&merged))
        }
        "slsutil.update" => {
            let b = a(&Sig::new("update", &["dest", "upd", "recursive_update", "merge_lists"], 2))?;
            let recursive = b.get(2).is_none_or(|v| v.is_true());
            f.update_in_place("slsutil.update", &b.req(0), &to_json(&b.req(1)), recursive, b.truthy(3))
        }
        "slsutil.serialize" => {
            let b = a(&Sig::new("serialize", &["serializer", "obj"], 2).star_kwargs())?;
            f.serialize(&b.string(0)?, &b.req(1), &b.kwargs)
        }
        "slsutil.deserialize" => {
            // `salt/modules/slsutil.py:deserialize`: the `json` serializer is `json.loads`; the
            // `yaml` one is PyYAML's SafeLoader, which reads what Salt's YAML loader reads
            // except octal integers (`0755` is 493, not 755) and timestamps (dates, not text),
            // so text with either is not answered.
            let b = a(&Sig::new("deserialize", &["serializer", "stream_or_string"], 2).star_kwargs())?;
            let text = b.string(1)?;
            static SAFE_LOADER_ONLY: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
            let differs =
                SAFE_LOADER_ONLY.get_or_init(|| regex::Regex::new(r"(^|[\s\[{,:-])[-+]?0[0-7_]+($|[\s\]},])|\d{4}-\d\d?-\d\d?").expect("static regex"));
            match b.string(0)?.as_str() {
                "json" => crate::render::tags::load("json", &text),
                "yaml" if !differs.is_match(&text) => crate::render::tags::load("yaml", &text),
                other => {
                    f.hint(format!("`slsutil.deserialize('{other}', ...)` is not modelled; it rendered as an empty value"));
                    Ok(JValue::from(""))
                }
            }
        }
        "defaults.merge" => {
            let b = a(&Sig::new("merge", &["dest", "src", "merge_lists", "in_place", "convert_none"], 2))?;
            let in_place = b.get(3).is_none_or(|v| v.is_true());
            let convert_none = b.get(4).is_none_or(|v| v.is_true());
            f.defaults_merge(b.req(0), b.req(1), b.truthy(2), in_place, convert_none)
        }
        "defaults.deepcopy" => Ok(deepcopy(&a(&Sig::new("deepcopy", &["source"], 1))?.req(0))),
        "defaults.update" => {
            let b = a(&Sig::new("update", &["dest", "defaults", "merge_lists", "in_place", "convert_none"], 2))?;
            let merge_lists = b.get(2).is_none_or(|v| v.is_true());
            let in_place = b.get(3).is_none_or(|v| v.is_true());
            let convert_none = b.get(4).is_none_or(|v| v.is_true());
            f.defaults_update(b.req(0), b.req(1), merge_lists, in_place, convert_none)
        }
        "defaults.get" => {
            let b = a(&Sig::new("get", &["key", "default"], 1))?;
            f.defaults_get(&b.string(0)?, b.get(1).unwrap_or_else(|| JValue::from("")))
        }
        "match.filter_by" => {
            let b = a(&Sig::new("filter_by", &["lookup", "tgt_type", "minion_id", "merge", "merge_lists", "default"], 1))?;
            f.match_filter_by(&b)
        }
        "match.ifelse" => {
            // `salt/modules/match.py:ifelse(*args, ...)`: `filter_by` over the (target, value)
            // pairs, `True` and `False` targets matching everything and nothing, and the last
            // argument as the default.
            let b = a(&Sig::new("ifelse", &[], 0).star_args().kwonly(&["tgt_type", "minion_id", "merge", "merge_lists"]))?;
            let n = b.star.len();
            if n % 2 == 0 {
                return Err(raised("The ifelse function must have an odd number of arguments!"));
            }
            if n == 1 {
                return Ok(b.star[0].clone());
            }
            const DEFAULT: &str = "SALT_IFELSE_FUNCTION_DEFAULT";
            let mut lookup = indexmap::IndexMap::new();
            for pair in b.star[..n - 1].chunks(2) {
                let key = match pair[0].kind() {
                    ValueKind::Bool if pair[0].is_true() => JValue::from("*"),
                    ValueKind::Bool => JValue::from("SALT_IFELSE_MATCH_NOTHING"),
                    _ => pair[0].clone(),
                };
                lookup.insert(key, pair[1].clone());
            }
            lookup.insert(JValue::from(DEFAULT), b.star[n - 1].clone());
            let lookup = JValue::from_object(MDict(Mutex::new(lookup), false));
            let vals = vec![Some(lookup), b.get(0), b.get(1), b.get(2), b.get(3), Some(JValue::from(DEFAULT))];
            f.match_filter_by(&Bound { vals, star: Vec::new(), kwargs: Vec::new() })
        }
        "file.join" => {
            let b = a(&Sig::new("join", &[], 0).star_args())?;
            let parts = b.star.iter().map(string).collect::<Result<Vec<_>, _>>()?;
            if parts.is_empty() {
                return Err(raised("join() missing 1 required positional argument: 'a'"));
            }
            Ok(JValue::from(posix_join(&parts)))
        }
        "file.dirname" => Ok(JValue::from(posix_split(&a(&Sig::new("dirname", &["path"], 1))?.string(0)?).0)),
        "file.basename" => Ok(JValue::from(posix_split(&a(&Sig::new("basename", &["path"], 1))?.string(0)?).1)),
        // `salt/modules/logmod.py`: each logs its message and returns True.
        "log.debug" | "log.info" | "log.warning" | "log.error" | "log.critical" | "log.exception" => {
            let fname = name.trim_start_matches("log.");
            let fname = ["debug", "info", "warning", "error", "critical", "exception"].into_iter().find(|n| *n == fname).unwrap_or("debug");
            a(&Sig::new(fname, &["message"], 1))?;
            Ok(JValue::from(true))
        }
        // `salt/modules/test.py:ping`: True on a minion that is not a proxy.
        "test.ping" => {
            a(&Sig::new("ping", &[], 0))?;
            Ok(JValue::from(true))
        }
        // `test.true_` and `test.false_`, aliased `true` and `false`.
        "test.true" | "test.false" => {
            a(&Sig::new(if name == "test.true" { "true_" } else { "false_" }, &[], 0))?;
            Ok(JValue::from(name == "test.true"))
        }
        // saltext-formula's `map.data(tpldir, sources=None, ...)`: only the default arguments
        // are modelled.
        "map.data" => {
            let b = a(&Sig::new(
                "data",
                &[
                    "tpldir",
                    "sources",
                    "parameter_dirs",
                    "config_get_strategy",
                    "default_merge_strategy",
                    "default_merge_lists",
                    "post_map",
                    "post_map_template",
                    "cache",
                    "custom_data",
                ],
                1,
            ))?;
            match (&ctx.map_data, (1..10).all(|i| b.get(i).is_none())) {
                (Some(map_data), true) => {
                    let (values, notes) = map_data(&b.string(0)?).map_err(raised)?;
                    notes.into_iter().for_each(|n| f.hint(n));
                    Ok(from_json(&values))
                }
                _ => Ok(f.inert(name)),
            }
        }
        _ => Ok(f.inert(name)),
    }
}

/// One call's view of the minion.
struct Functions<'a> {
    ctx: &'a JinjaContext,
    hints: &'a Mutex<Vec<String>>,
}

impl Functions<'_> {
    fn hint(&self, text: impl Into<String>) {
        if let Ok(mut h) = self.hints.lock() {
            h.push(text.into());
        }
    }

    fn inert(&self, name: &str) -> JValue {
        self.hint(format!("`salt['{name}']` is not executed during analysis; it rendered as an empty value"));
        inert_value(name)
    }

    /// `salt.utils.data.filter_by(lookup_dict, lookup, traverse, merge, default, base)`
    /// (`grains.filter_by`, `pillar.filter_by`):
    ///
    /// * the value at `lookup` in `traverse` (`[]` when missing), or each item of it when it is
    ///   a list, is `str()`-ed and matched with `fnmatch.fnmatchcase` against each key of
    ///   `lookup_dict` (`str()`-ed), in order; the first match wins, but a match whose value is
    ///   `None` counts as none and the next grain value is tried;
    /// * no match: `lookup_dict.get(default)`;
    /// * `base`, when it is a key: the base is used when nothing matched, else a dict base is
    ///   `dictupdate.update(deepcopy(base), ret)` (a non-dict `ret` raises);
    /// * `merge` (a truthy non-dict raises): becomes the result when there is none, else is
    ///   merged into the result **in place**, which without `base` is the lookup dict's own
    ///   value.
    fn filter_by(
        &self,
        lookup_dict: JValue,
        lookup: &str,
        traverse: Value,
        merge: Option<JValue>,
        default: JValue,
        base: Option<JValue>,
    ) -> Result<JValue, Error> {
        if lookup_dict.kind() != ValueKind::Map {
            return Err(raised(format!("'{}' object has no attribute 'get'", py_type(&lookup_dict))));
        }
        let val = traverse_dict_and_list(&traverse, lookup, DELIM).cloned().unwrap_or(Value::Array(Vec::new()));
        let each: Vec<Value> = match val {
            Value::Array(items) => items,
            other => vec![other],
        };
        let keys: Vec<JValue> = lookup_dict.try_iter()?.collect();
        let mut ret: Option<JValue> = None;
        'values: for each in &each {
            let test_each = py::str_of(each);
            for key in &keys {
                if fnmatch::fnmatch(&test_each, &key_text(key)) {
                    ret = Some(lookup_dict.get_item(key)?).filter(|v| !v.is_none());
                    if ret.is_some() {
                        break 'values;
                    }
                    break;
                }
            }
        }
        if ret.is_none() {
            ret = Some(lookup_dict.get_item(&default)?).filter(|v| !v.is_none() && !v.is_undefined());
        }
        if let Some(base) = base.filter(JValue::is_true) {
            let base_values = lookup_dict.get_item(&base)?;
            if !base_values.is_undefined() {
                match ret.take() {
                    None => ret = Some(base_values).filter(|v| !v.is_none()),
                    Some(r) if base_values.kind() == ValueKind::Map => {
                        if r.kind() != ValueKind::Map {
                            return Err(raised("filter_by default and look-up values must both be dictionaries."));
                        }
                        let mut merged = to_json(&base_values);
                        dictupdate::update(&mut merged, &to_json(&r), true, false, false).map_err(merge_error)?;
                        ret = Some(from_json(&merged));
                    }
                    Some(r) => ret = Some(r),
                }
            }
        }
        if let Some(merge) = merge.filter(JValue::is_true) {
            if merge.kind() != ValueKind::Map {
                return Err(raised("filter_by merge argument must be a dictionary."));
            }
            ret = Some(match ret {
                None => merge,
                Some(r) => self.update_in_place("grains.filter_by", &r, &to_json(&merge), true, false)?,
            });
        }
        Ok(ret.unwrap_or(JValue::from(())))
    }

    /// `salt/modules/pillar.py:get`. Without a default, a missing key is `''`, or raises
    /// `KeyError` under the `pillar_raise_on_missing` option. With `merge`, a dict default is
    /// `dictupdate.update(deepcopy(default), value, merge_lists)` (the option
    /// `pillar_merge_lists` unless `merge_nested_lists` says otherwise) and a list default is
    /// `default + [x for x in value if x not in default]`; a value of another type is returned
    /// as it is (Salt logs an error).
    fn pillar_get(&self, b: &Bound) -> Result<JValue, Error> {
        let key = b.key(0)?;
        let delim = b.str_or(4, DELIM)?;
        let pillar = &self.ctx.pillar;
        if b.get(5).is_some_and(|v| !v.is_none()) || b.get(6).is_some_and(|v| !v.is_none()) {
            self.hint("`pillar.get` with `saltenv`/`pillarenv` compiles that environment's pillar; the profile's pillar is used");
        }
        let default = b.get(1);
        if b.truthy(2) {
            let merge_lists = match b.get(3).filter(|v| !v.is_none()) {
                Some(v) => v.is_true(),
                None => self.ctx.opts.get("pillar_merge_lists").is_some_and(truthy),
            };
            let found = traverse(pillar, &key, &delim)?;
            match (default.as_ref().map(JValue::kind), found) {
                (Some(ValueKind::Map), found) => {
                    let found = found.cloned().unwrap_or(Value::Object(Map::new()));
                    if found.is_object() {
                        let mut merged = to_json(default.as_ref().unwrap_or(&JValue::UNDEFINED));
                        dictupdate::update(&mut merged, &found, true, merge_lists, false).map_err(merge_error)?;
                        return Ok(from_json(&merged));
                    }
                }
                (Some(ValueKind::Seq), found) => {
                    let found = found.cloned().unwrap_or(Value::Array(Vec::new()));
                    if let (Value::Array(mut list), Value::Array(more)) = (to_json(default.as_ref().unwrap_or(&JValue::UNDEFINED)), found) {
                        let new: Vec<Value> = more.into_iter().filter(|x| !list.iter().any(|y| py::py_eq(x, y))).collect();
                        list.extend(new);
                        return Ok(from_json(&Value::Array(list)));
                    }
                }
                _ => {}
            }
        }
        match traverse(pillar, &key, &delim)? {
            Some(v) => Ok(from_json(v)),
            None => match default {
                Some(d) => Ok(d),
                None if self.ctx.opts.get("pillar_raise_on_missing").is_some_and(truthy) => Err(raised(format!("'Pillar key not found: {key}'"))),
                None => Ok(JValue::from("")),
            },
        }
    }

    /// `salt/modules/pillar.py:item`: `{key: value or default}` for each key.
    fn pillar_item(&self, keys: &[JValue], default: Option<JValue>, delimiter: Option<JValue>) -> Result<JValue, Error> {
        let default = to_json(&default.filter(|v| !v.is_none()).unwrap_or_else(|| JValue::from("")));
        let delim = match delimiter.filter(|v| !v.is_none()) {
            Some(d) => string(&d)?,
            None => DELIM.to_string(),
        };
        let mut ret = Map::new();
        for key in keys {
            let key = key_arg(key)?;
            let v = traverse(&self.ctx.pillar, &key, &delim)?.cloned().unwrap_or_else(|| default.clone());
            ret.insert(key, v);
        }
        Ok(from_json(&Value::Object(ret)))
    }

    /// `salt/modules/config.py:get`. Without `merge`, the first of opts, grains, pillar,
    /// `pillar['master']` and the module's `DEFAULTS` that has the key wins. With `merge`
    /// (`recurse` or `overwrite`; anything else is `recurse`), `DEFAULTS`, the master pillar,
    /// the pillar, the grains and the opts are merged in that order (later wins) and the key
    /// is looked up in the result. `merge_lists` is the `pillar_merge_lists` of the master
    /// configuration at `/etc/salt/master`, which a sandbox does not read: false, the default.
    fn config_get(&self, b: &Bound) -> Result<JValue, Error> {
        let key = b.key(0)?;
        let default = b.get(1).unwrap_or_else(|| JValue::from(""));
        let delim = b.str_or(2, DELIM)?;
        let (omit_opts, omit_pillar, omit_master, omit_grains) = (b.truthy(4), b.truthy(5), b.truthy(6), b.truthy(7));
        if delim.is_empty() {
            return Err(raised("empty separator"));
        }
        let ctx = self.ctx;
        let found = match b.get(3).filter(|v| !v.is_none()) {
            None => config_locate(&ctx.opts, &ctx.grains, &ctx.pillar, &key, &delim, [omit_opts, omit_grains, omit_pillar, omit_master])
                .and_then(|(source, path)| config_source(&ctx.opts, &ctx.grains, &ctx.pillar, source, &path)),
            Some(merge) => {
                let data = config_merged(&ctx.opts, &ctx.grains, &ctx.pillar, &py::str_of(&to_json(&merge))).map_err(merge_error)?;
                traverse_dict_and_list(&data, &key, &delim).filter(|v| v.as_str() != Some(CONFIG_MISSING)).cloned()
            }
        };
        Ok(match found {
            Some(v) => self.sdb_get(v),
            None => default,
        })
    }

    /// `salt/utils/sdb.py:sdb_get` as `config.get` calls it: an `sdb://PROFILE/KEY` string whose
    /// profile (in the opts, else the pillar) names a `driver` is a query of that driver, which
    /// is never run; any other value is itself.
    fn sdb_get(&self, v: Value) -> JValue {
        if let Some(uri) = v.as_str().and_then(|s| s.strip_prefix("sdb://")) {
            if let Some((profile, rest)) = uri.split_once('/') {
                let in_opts = self.ctx.opts.get(profile).filter(|p| truthy(p));
                let profile_data = in_opts.or_else(|| self.ctx.pillar.get(profile));
                if !rest.is_empty() && profile_data.and_then(Value::as_object).is_some_and(|p| p.contains_key("driver")) {
                    return self.inert("sdb.get");
                }
            }
        }
        from_json(&v)
    }

    /// `salt/modules/config.py:option`: a top-level key (never traversed) of the opts, grains,
    /// pillar, master pillar or `DEFAULTS`; with `wildcard`, every key matching the glob, later
    /// sources winning (`master`, `pillar`, `grains`, `opts`), `DEFAULTS` filling in.
    fn config_option(&self, b: &Bound) -> Result<JValue, Error> {
        let value = b.string(0)?;
        let all = b.truthy(6);
        let (omit_opts, omit_grains, omit_pillar, omit_master) = (all || b.truthy(2), all || b.truthy(3), all || b.truthy(4), all || b.truthy(5));
        let wildcard = b.truthy(7);
        let default = match b.get(1).filter(|v| !v.is_none()) {
            Some(d) => d,
            None if wildcard => from_json(&Value::Object(Map::new())),
            None => JValue::from(""),
        };
        let ctx = self.ctx;
        let defaults = config_defaults();
        let empty = Value::Object(Map::new());
        let master = ctx.pillar.get("master").unwrap_or(&empty);
        if !wildcard {
            let sources = [(omit_opts, &ctx.opts), (omit_grains, &ctx.grains), (omit_pillar, &ctx.pillar), (omit_master, master), (false, &defaults)];
            for (omit, data) in sources {
                if let Some(v) = data.get(&value).filter(|_| !omit) {
                    return Ok(from_json(v));
                }
            }
            return Ok(default);
        }
        let mut ret = Map::new();
        for (omit, data) in [(omit_master, master), (omit_pillar, &ctx.pillar), (omit_grains, &ctx.grains), (omit_opts, &ctx.opts)] {
            if let (false, Some(m)) = (omit, data.as_object()) {
                for (k, v) in m.iter().filter(|(k, _)| fnmatch::fnmatch(k, &value)) {
                    ret.insert(k.clone(), v.clone());
                }
            }
        }
        for (k, v) in defaults.as_object().into_iter().flatten() {
            if fnmatch::fnmatch(k, &value) && !ret.contains_key(k) {
                ret.insert(k.clone(), v.clone());
            }
        }
        Ok(if ret.is_empty() { default } else { from_json(&Value::Object(ret)) })
    }

    /// `salt/modules/defaults.py:merge(dest, src, merge_lists, in_place, convert_none)`:
    /// `dictupdate.update` of `dest` itself (in place, the default) or of a deep copy, returned.
    fn defaults_merge(&self, dest: JValue, src: JValue, merge_lists: bool, in_place: bool, convert_none: bool) -> Result<JValue, Error> {
        let src = if src.is_none() && convert_none { Value::Object(Map::new()) } else { to_json(&src) };
        if dest.is_none() && convert_none {
            if in_place {
                return Err(raised("Can't perform in-place merge into NoneType"));
            }
            let mut merged = Value::Object(Map::new());
            dictupdate::update(&mut merged, &src, true, merge_lists, false).map_err(merge_error)?;
            return Ok(from_json(&merged));
        }
        if in_place {
            return self.update_in_place("defaults.merge", &dest, &src, true, merge_lists);
        }
        let mut merged = to_json(&dest);
        dictupdate::update(&mut merged, &src, true, merge_lists, false).map_err(merge_error)?;
        Ok(from_json(&merged))
    }

    /// `salt/modules/defaults.py:update(dest, defaults, merge_lists, in_place, convert_none)`:
    /// every value of `dest` becomes `merge(deepcopy(defaults), value)`.
    fn defaults_update(&self, dest: JValue, defaults: JValue, merge_lists: bool, in_place: bool, convert_none: bool) -> Result<JValue, Error> {
        if in_place && dest.is_none() {
            return Err(raised("Can't perform in-place update into NoneType"));
        }
        let nodes = if dest.is_none() && convert_none { Value::Object(Map::new()) } else { to_json(&dest) };
        let defaults = if defaults.is_none() && convert_none { Value::Object(Map::new()) } else { to_json(&defaults) };
        let Value::Object(mut nodes_map) = nodes else {
            return Err(raised(format!("'{}' object has no attribute 'items'", py_type(&dest))));
        };
        for (_, node_vars) in nodes_map.iter_mut() {
            let src = if node_vars.is_null() && convert_none { Value::Object(Map::new()) } else { node_vars.clone() };
            let mut merged = defaults.clone();
            dictupdate::update(&mut merged, &src, true, merge_lists, false).map_err(merge_error)?;
            *node_vars = merged;
        }
        let nodes = Value::Object(nodes_map);
        Ok(if in_place { self.write_back("defaults.update", &dest, &nodes) } else { from_json(&nodes) })
    }

    /// `salt/modules/defaults.py:get(key, default)`: `salt://NAMESPACE/defaults.yaml` (else
    /// `.json`) of the file roots, then `KEY` traversed in it (`NAMESPACE:KEY`).
    fn defaults_get(&self, key: &str, default: JValue) -> Result<JValue, Error> {
        let (namespace, rest) = match key.split_once(':') {
            Some((ns, rest)) => (ns, Some(rest)),
            None => (key, None),
        };
        let mut defaults = Value::Null;
        for ext in ["yaml", "json"] {
            if let Some(text) = (self.ctx.loader)(&format!("{namespace}/defaults.{ext}")) {
                let node = syntax::yaml::load(&text).map_err(|e| raised(e.message))?;
                defaults = crate::value::Val::from_node(&node, 0).to_json();
                // `return defaults or {}`: the first file that exists decides.
                if !truthy(&defaults) {
                    defaults = Value::Object(Map::new());
                }
                break;
            }
        }
        match rest.filter(|r| !r.is_empty()) {
            Some(rest) => Ok(traverse(&defaults, rest, DELIM)?.map(from_json).unwrap_or(default)),
            None => Ok(from_json(&defaults)),
        }
    }

    /// `salt/modules/match.py:filter_by(lookup, tgt_type, minion_id, merge, merge_lists,
    /// default)`: the value of the first key of `lookup` that the `tgt_type` matcher (a
    /// function of that module: `compound`, `glob`, `pcre`, `list_`, `grain`, `grain_pcre`,
    /// `pillar`, `pillar_pcre`, `ipcidr`, `data`) accepts, with `merge` merged into it in place;
    /// else `lookup.get(default)`. `minion_id` is the second argument of the matcher function:
    /// the minion id for `compound`, `glob`, `pcre` and `list_`, but the *delimiter* for the
    /// grain and pillar matchers.
    fn match_filter_by(&self, b: &Bound) -> Result<JValue, Error> {
        let lookup = b.req(0);
        let tgt_type = b.str_or(1, "compound")?;
        let minion_id = b.get(2).filter(JValue::is_true).map(|v| py::str_of(&to_json(&v)));
        let (matcher, takes) = match tgt_type.as_str() {
            "compound" | "glob" | "pcre" => (tgt_type.as_str(), Second::MinionId),
            "list_" => ("list", Second::MinionId),
            "grain" | "grain_pcre" | "pillar" | "pillar_pcre" => (tgt_type.as_str(), Second::Delimiter),
            "ipcidr" | "data" => (tgt_type.as_str(), Second::Nothing),
            // `expr_funcs[tgt_type]` is a KeyError for anything that is not a function there.
            _ => return Err(raised(py::repr(&Value::String(tgt_type.clone())))),
        };
        if let (Second::Nothing, Some(_)) = (takes, &minion_id) {
            return Err(raised(format!("{matcher}() takes 1 positional argument but 2 were given")));
        }
        let Some(decide) = self.ctx.matcher.as_ref() else {
            return Ok(self.inert("match.filter_by"));
        };
        if lookup.kind() != ValueKind::Map {
            return Err(raised(format!("'{}' object has no attribute 'get'", py_type(&lookup))));
        }
        for key in lookup.try_iter()? {
            // A target that is not a string never matches (the matchers log and return False).
            let Some(tgt) = key.as_str() else { continue };
            let (id, delim) = match takes {
                Second::MinionId => (minion_id.as_deref(), None),
                Second::Delimiter => (None, Some(minion_id.as_deref().unwrap_or(DELIM))),
                Second::Nothing => (None, None),
            };
            if decide(matcher, tgt, id, delim) {
                let value = lookup.get_item(&key)?;
                if let Some(merge) = b.get(3).filter(JValue::is_true) {
                    if merge.kind() != ValueKind::Map {
                        return Err(raised("filter_by merge argument must be a dictionary."));
                    }
                    if value.is_none() {
                        return Ok(merge);
                    }
                    self.update_in_place("match.filter_by", &value, &to_json(&merge), true, b.truthy(4))?;
                }
                return Ok(value);
            }
        }
        let default = b.get(5).unwrap_or_else(|| JValue::from("default"));
        let v = lookup.get_item(&default)?;
        Ok(if v.is_undefined() { JValue::from(()) } else { v })
    }

    /// `salt/modules/slsutil.py:serialize(serializer, obj, **kwargs)` with Salt's `json`
    /// (`salt.utils.json.dumps`) and `yaml` serializers; the others are not modelled.
    fn serialize(&self, serializer: &str, obj: &JValue, kwargs: &[(String, JValue)]) -> Result<JValue, Error> {
        // `salt.utils.args.clean_kwargs` drops the loader's `__pub_*` arguments.
        let kwargs: Vec<&(String, JValue)> = kwargs.iter().filter(|(k, _)| !k.starts_with("__")).collect();
        match serializer {
            "json" => {
                let mut options = json::DumpOptions::default();
                for (k, v) in kwargs {
                    match k.as_str() {
                        "indent" if v.is_none() => options.indent = None,
                        "indent" => options.indent = Some(v.as_i64().map(|n| " ".repeat(n.max(0) as usize)).unwrap_or_else(|| v.to_string())),
                        "sort_keys" => options.sort_keys = v.is_true(),
                        "ensure_ascii" => options.ensure_ascii = v.is_true(),
                        "separators" if !v.is_none() => {
                            let parts: Vec<JValue> = v.try_iter()?.collect();
                            if let [item, key] = parts.as_slice() {
                                options.separators = Some((string(item)?, string(key)?));
                            }
                        }
                        "separators" | "skipkeys" | "check_circular" | "allow_nan" | "cls" | "default" => {}
                        other => return Err(raised(format!("JSONEncoder.__init__() got an unexpected keyword argument '{other}'"))),
                    }
                }
                Ok(JValue::from(json::dumps(&to_json(obj), &options)))
            }
            "yaml" => {
                // `salt/serializers/yaml.py:serialize`: `yaml.dump(obj, Dumper=CSafeDumper,
                // default_flow_style=None, **options)` without its final line break (or `...`).
                let mut options = yaml_dump::DumpOptions::default();
                for (k, v) in kwargs {
                    match k.as_str() {
                        "default_flow_style" => options.default_flow_style = if v.is_none() { None } else { Some(v.is_true()) },
                        "allow_unicode" => options.allow_unicode = v.is_true(),
                        "sort_keys" => options.sort_keys = v.is_true(),
                        "explicit_start" => options.explicit_start = v.is_true(),
                        "indent" => options.indent = v.as_i64().and_then(|n| usize::try_from(n).ok()).unwrap_or(0),
                        "width" => options.width = v.as_i64().and_then(|n| usize::try_from(n).ok()).unwrap_or(0),
                        "Dumper" | "default_style" | "canonical" | "line_break" | "encoding" | "explicit_end" | "version" | "tags" => {
                            self.hint(format!("`slsutil.serialize('yaml', {k}=...)` is not modelled; it rendered as an empty value"));
                            return Ok(JValue::from(""));
                        }
                        other => return Err(raised(format!("dump_all() got an unexpected keyword argument '{other}'"))),
                    }
                }
                let text = yaml_dump::dump(&to_json(obj), &options);
                let text = match text.strip_suffix("\n...\n") {
                    Some(t) => t,
                    None => text.strip_suffix('\n').unwrap_or(&text),
                };
                Ok(JValue::from(text))
            }
            "yamlex" | "msgpack" | "configparser" | "toml" | "plist" | "python" | "keyvalue" => {
                self.hint(format!("`slsutil.serialize('{serializer}', ...)` is not modelled; it rendered as an empty value"));
                Ok(JValue::from(""))
            }
            other => Err(raised(format!("Serializer '{other}' not found."))),
        }
    }

    /// `dictupdate.update(dest, upd, ...)` where Python changes `dest` itself: a mutable dict
    /// is changed in place (nested dicts that are merged keep their identity, so other names
    /// bound to them see the change) and returned; any other dict cannot change, so the
    /// merged copy is returned, with a hint.
    fn update_in_place(&self, func: &str, dest: &JValue, upd: &Value, recursive: bool, merge_lists: bool) -> Result<JValue, Error> {
        let mut merged = to_json(dest);
        dictupdate::update(&mut merged, upd, recursive, merge_lists, false).map_err(merge_error)?;
        Ok(self.write_back(func, dest, &merged))
    }

    fn write_back(&self, func: &str, dest: &JValue, result: &Value) -> JValue {
        match (dest.downcast_object::<MDict>(), result) {
            (Some(d), Value::Object(r)) => {
                sync(&d, r);
                dest.clone()
            }
            _ => {
                if dest.kind() == ValueKind::Map {
                    self.hint(format!(
                        "`{func}` changes its first argument in place in Salt; here that dict is read-only, so only the returned value has the change"
                    ));
                }
                from_json(result)
            }
        }
    }
}

#[derive(Clone, Copy)]
enum Second {
    MinionId,
    Delimiter,
    Nothing,
}

/// `grains.items(sanitize=True)`'s `_SANITIZERS` (`salt/modules/grains.py`).
fn sanitized(grains: &Value, sanitize: bool) -> Value {
    let Value::Object(m) = grains else { return grains.clone() };
    if !sanitize {
        return grains.clone();
    }
    let mut out = m.clone();
    for (key, v) in out.iter_mut() {
        let new = match key.as_str() {
            // `_serial_sanitizer`: the last quarter of the string as X's.
            "serialnumber" => {
                let s = py::str_of(v);
                let chars: Vec<char> = s.chars().collect();
                let keep = (chars.len() as f64 * 0.75).floor() as usize;
                Some(chars[..keep].iter().collect::<String>() + &"X".repeat(chars.len() - keep))
            }
            "domain" => Some("DOMAINNAME".to_string()),
            "fqdn" | "id" => Some("MINION.DOMAINNAME".to_string()),
            "host" | "localhost" | "nodename" => Some("MINION".to_string()),
            _ => None,
        };
        if let Some(new) = new {
            *v = Value::String(new);
        }
    }
    Value::Object(out)
}

/// Salt's marker for "not found" in `config.get`: a value equal to it is not found either.
const CONFIG_MISSING: &str = "_|-";

/// Where `config.get` (`salt/modules/config.py:get`) without `merge` looks, in its order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConfigSource {
    Opts,
    Grains,
    Pillar,
    /// `pillar['master']`.
    Master,
    /// The module's `DEFAULTS`.
    Defaults,
}

/// Where `config.get(key, delimiter=delim)` without `merge` finds its value: the first of the
/// opts, grains, pillar, `pillar['master']` (each unless `omit`, in that order) and `DEFAULTS`
/// that has the key, and the path to it there. Python returns that object itself, so a caller
/// that changes the value changes the source.
pub fn config_locate(opts: &Value, grains: &Value, pillar: &Value, key: &str, delim: &str, omit: [bool; 4]) -> Option<(ConfigSource, Vec<Step>)> {
    let defaults = config_defaults();
    let sources = [ConfigSource::Opts, ConfigSource::Grains, ConfigSource::Pillar, ConfigSource::Master, ConfigSource::Defaults];
    for (i, source) in sources.into_iter().enumerate() {
        if omit.get(i).copied().unwrap_or(false) {
            continue;
        }
        let empty = Value::Object(Map::new());
        let data = match source {
            ConfigSource::Opts => opts,
            ConfigSource::Grains => grains,
            ConfigSource::Pillar => pillar,
            ConfigSource::Master => pillar.get("master").unwrap_or(&empty),
            ConfigSource::Defaults => &defaults,
        };
        if let Some(path) = locate(data, key, delim) {
            if at(data, &path).is_some_and(|v| v.as_str() != Some(CONFIG_MISSING)) {
                return Some((source, path));
            }
        }
    }
    None
}

/// The value [`config_locate`] found.
pub fn config_source(opts: &Value, grains: &Value, pillar: &Value, source: ConfigSource, path: &[Step]) -> Option<Value> {
    let data = match source {
        ConfigSource::Opts => opts,
        ConfigSource::Grains => grains,
        ConfigSource::Pillar => pillar,
        ConfigSource::Master => pillar.get("master")?,
        ConfigSource::Defaults => return at(&config_defaults(), path).cloned(),
    };
    at(data, path).cloned()
}

/// What `config.get` with `merge` looks the key up in: `DEFAULTS`, the master pillar, the
/// pillar, the grains and the opts merged in that order (later wins) with `merge` (`recurse`
/// or `overwrite`; anything else is `recurse`, which Salt logs). `merge_lists` is the
/// `pillar_merge_lists` of the master configuration at `/etc/salt/master`, which a sandbox
/// does not read: false, the default.
pub fn config_merged(opts: &Value, grains: &Value, pillar: &Value, merge: &str) -> Result<Value, MergeError> {
    let strategy = if merge == "recurse" || merge == "overwrite" { merge } else { "recurse" };
    let empty = Value::Object(Map::new());
    let master = pillar.get("master").unwrap_or(&empty);
    let mut data = config_defaults();
    for layer in [master, pillar, grains, opts] {
        data = dictupdate::merge(&mut data, layer, strategy, "yaml", false)?;
    }
    Ok(data)
}

/// `DEFAULTS` of `salt/modules/config.py` (on Linux: `hosts.file` is `/etc/hosts`,
/// `virt:images` under `/srv`).
fn config_defaults() -> Value {
    serde_json::json!({
        "mongo.db": "salt", "mongo.password": "", "mongo.port": 27017, "mongo.user": "",
        "redis.db": "0", "redis.host": "salt", "redis.port": 6379,
        "test.foo": "unconfigured",
        "ca.cert_base_path": "/etc/pki",
        "solr.cores": [], "solr.host": "localhost", "solr.port": "8983", "solr.baseurl": "/solr", "solr.type": "master",
        "solr.request_timeout": null, "solr.init_script": "/etc/rc.d/solr",
        "solr.dih.import_options": {"clean": false, "optimize": true, "commit": true, "verbose": false},
        "solr.backup_path": null, "solr.num_backups": 1,
        "poudriere.config": "/usr/local/etc/poudriere.conf", "poudriere.config_dir": "/usr/local/etc/poudriere.d",
        "ldap.uri": "", "ldap.server": "localhost", "ldap.port": "389", "ldap.tls": false, "ldap.no_verify": false,
        "ldap.anonymous": true, "ldap.scope": 2, "ldap.attrs": null, "ldap.binddn": "", "ldap.bindpw": "",
        "hosts.file": "/etc/hosts", "aliases.file": "/etc/aliases",
        "virt": {"tunnel": false, "images": "/srv/salt-images"},
        "docker.exec_driver": "docker-exec",
        "docker.compare_container_networks": {
            "static": ["Aliases", "Links", "IPAMConfig"],
            "automatic": ["IPAddress", "Gateway", "GlobalIPv6Address", "IPv6Gateway"]
        }
    })
}

/// `traverse_dict_and_list` with Python's `str.split`, which refuses an empty separator.
fn traverse<'v>(data: &'v Value, key: &str, delimiter: &str) -> Result<Option<&'v Value>, Error> {
    if delimiter.is_empty() {
        return Err(raised("empty separator"));
    }
    Ok(traverse_dict_and_list(data, key, delimiter))
}

/// `posixpath.join(a, *p)`.
fn posix_join(parts: &[String]) -> String {
    let mut path = parts[0].clone();
    for b in &parts[1..] {
        if b.starts_with('/') {
            path = b.clone();
        } else if path.is_empty() || path.ends_with('/') {
            path.push_str(b);
        } else {
            path.push('/');
            path.push_str(b);
        }
    }
    path
}

/// `posixpath.split(p)`: `(dirname, basename)`; the head loses its trailing slashes unless it
/// is all slashes.
fn posix_split(p: &str) -> (String, String) {
    let i = p.rfind('/').map_or(0, |i| i + 1);
    let (head, tail) = (&p[..i], &p[i..]);
    let head = if !head.is_empty() && head.chars().any(|c| c != '/') { head.trim_end_matches('/') } else { head };
    (head.to_string(), tail.to_string())
}

/// A JSON value as a template sees it: dicts and lists mutable, as Python's are.
pub fn from_json(v: &Value) -> JValue {
    mutable::mutable(JValue::from_serialize(v))
}

/// A template value as JSON. Dict keys become their `str()` (`7` is `"7"`); what JSON cannot
/// hold (a macro, an undefined value) becomes `null`, or its text.
pub fn to_json(v: &JValue) -> Value {
    to_json_at(v, 0)
}

fn to_json_at(v: &JValue, depth: usize) -> Value {
    // A dict that contains itself has no JSON form; stop where Python's repr would print `{...}`.
    if depth > 256 {
        return Value::Null;
    }
    match v.kind() {
        ValueKind::Undefined | ValueKind::None | ValueKind::Invalid => Value::Null,
        ValueKind::Bool => Value::Bool(v.is_true()),
        ValueKind::Number => serde_json::to_value(v).unwrap_or(Value::Null),
        ValueKind::String => Value::String(v.as_str().unwrap_or_default().to_string()),
        ValueKind::Bytes => Value::String(String::from_utf8_lossy(v.as_bytes().unwrap_or_default()).into_owned()),
        ValueKind::Seq | ValueKind::Iterable => Value::Array(v.try_iter().map(|it| it.map(|x| to_json_at(&x, depth + 1)).collect()).unwrap_or_default()),
        ValueKind::Map => {
            let mut m = Map::new();
            if let Ok(keys) = v.try_iter() {
                for k in keys {
                    let item = v.get_item(&k).unwrap_or_default();
                    m.insert(key_text(&k), to_json_at(&item, depth + 1));
                }
            }
            Value::Object(m)
        }
        _ => Value::String(v.to_string()),
    }
}

/// Python's `str()` of a dict key.
fn key_text(k: &JValue) -> String {
    match k.as_str() {
        Some(s) => s.to_string(),
        None => py::str_of(&to_json(k)),
    }
}

/// Python's `type(v).__name__`, for messages.
fn py_type(v: &JValue) -> &'static str {
    match v.kind() {
        ValueKind::Undefined | ValueKind::None => "NoneType",
        ValueKind::Seq | ValueKind::Iterable => "list",
        ValueKind::Map => "dict",
        _ => py::type_name(&to_json(v)),
    }
}

/// `copy.deepcopy`: new dicts and lists all the way down, keys kept as they are.
pub fn deepcopy(v: &JValue) -> JValue {
    if let Some(d) = v.downcast_object::<MDict>() {
        let map = d.0.lock().unwrap_or_else(|e| e.into_inner()).clone();
        return JValue::from_object(MDict(Mutex::new(map.into_iter().map(|(k, v)| (k, deepcopy(&v))).collect()), d.1));
    }
    if let Some(l) = v.downcast_object::<MList>() {
        let items = l.0.lock().unwrap_or_else(|e| e.into_inner()).clone();
        return JValue::from_object(MList(Mutex::new(items.iter().map(deepcopy).collect())));
    }
    match v.kind() {
        ValueKind::Seq | ValueKind::Map => deepcopy(&mutable::mutable(v.clone())),
        _ => v.clone(),
    }
}

/// Makes mutable dict `dest` hold `result`: keys it no longer has go, new keys are appended,
/// and a key whose old value is a mutable dict and new value a dict is synced recursively, so
/// the nested dict keeps its identity as Python's in-place `update` keeps it.
fn sync(dest: &Arc<MDict>, result: &Map<String, Value>) {
    let mut map = dest.0.lock().unwrap_or_else(|e| e.into_inner());
    map.retain(|k, _| result.contains_key(&key_text(k)));
    for (k, v) in result {
        let key = if map.contains_key(&JValue::from(k.as_str())) {
            JValue::from(k.as_str())
        } else {
            // A non-string key (`7`) that the JSON form spelled as text.
            map.keys().find(|mk| mk.as_str().is_none() && key_text(mk) == *k).cloned().unwrap_or_else(|| JValue::from(k.as_str()))
        };
        let nested = map.get(&key).and_then(|old| old.downcast_object::<MDict>()).filter(|sub| !Arc::ptr_eq(sub, dest));
        match (nested, v) {
            (Some(sub), Value::Object(vm)) => sync(&sub, vm),
            _ => {
                map.insert(key, from_json(v));
            }
        }
    }
}

/// A Python exception raised inside a Salt function; Salt's renderer reports its text.
fn raised(message: impl Into<String>) -> Error {
    Error::new(ErrorKind::InvalidOperation, message.into())
}

fn merge_error(e: MergeError) -> Error {
    raised(e.message)
}

/// A key path argument: a string, or a number or bool, which `traverse_dict_and_list` looks up
/// as itself (the profile's JSON keys are its `str()`).
fn key_arg(v: &JValue) -> Result<String, Error> {
    match v.kind() {
        ValueKind::Number | ValueKind::Bool => Ok(py::str_of(&to_json(v))),
        _ => string(v),
    }
}

/// A `str` argument (Python calls `str` methods on it, which other types lack).
fn string(v: &JValue) -> Result<String, Error> {
    match v.as_str() {
        Some(s) => Ok(s.to_string()),
        None => Err(raised(format!("expected a string, got {} {}", py_type(v), py::repr(&to_json(v))))),
    }
}

/// The answer the profile pins for `name` called with `args` (`functions: {file.file_exists:
/// {/etc/localtime: true}}` in `salt-analyzer.yaml`): keyed by the first argument, positional
/// or the function's first keyword argument, as Python's `str()` prints it.
fn pinned(ctx: &JinjaContext, name: &str, args: &[JValue]) -> Option<Value> {
    let answers = ctx.functions.get(name)?.as_object()?;
    let (positional, keywords) = split_kwargs(args).ok()?;
    let first = match positional.first() {
        Some(v) => v.clone(),
        None => keywords.first().map(|(_, v)| v.clone())?,
    };
    let key = match first.as_str() {
        Some(s) => s.to_string(),
        None => py::str_of(&to_json(&first)),
    };
    answers.get(&key).cloned()
}

/// The empty value of the type a function that is not executed returns, so that what a
/// template does with it (`.items()`, `.get()`, a loop) still works: Salt's functions that
/// answer a mapping or a list answer an empty one when there is nothing (`mine.get` on a
/// masterless minion is `{}`); everything else is an empty string.
fn inert_value(name: &str) -> JValue {
    const DICTS: &[&str] = &[
        "mine.get",
        "publish.publish",
        "publish.full_data",
        "user.info",
        "group.info",
        "pkg.list_pkgs",
        "pkg.list_repos",
        "network.interfaces",
        "network.routes",
        "file.stats",
        "cmd.run_all",
        "disk.usage",
        "status.meminfo",
        "x509.read_certificate",
    ];
    const LISTS: &[&str] = &[
        "network.ip_addrs",
        "network.ip_addrs6",
        "file.find",
        "cp.list_master",
        "cp.list_master_dirs",
        "cp.list_states",
        "service.get_all",
        "service.get_enabled",
        "service.get_running",
        "user.list_users",
        "file.readdir",
        "dnsutil.A",
        "dnsutil.AAAA",
        "dig.A",
        "dig.AAAA",
    ];
    if DICTS.contains(&name) {
        JValue::from_object(MDict::default())
    } else if LISTS.contains(&name) {
        JValue::from_object(MList::default())
    } else {
        JValue::from("")
    }
}

/// A Python signature: positional-or-keyword parameters (the first `required` without a
/// default), `*args`, keyword-only parameters, `**kwargs`.
struct Sig {
    name: &'static str,
    params: &'static [&'static str],
    required: usize,
    star_args: bool,
    kwonly: &'static [&'static str],
    star_kwargs: bool,
}

/// A call bound to a [`Sig`]: the value of each parameter (positional, then keyword-only),
/// what went to `*args` and to `**kwargs`.
struct Bound {
    vals: Vec<Option<JValue>>,
    star: Vec<JValue>,
    kwargs: Keywords,
}

impl Sig {
    const fn new(name: &'static str, params: &'static [&'static str], required: usize) -> Sig {
        Sig { name, params, required, star_args: false, kwonly: &[], star_kwargs: false }
    }
    const fn star_args(self) -> Sig {
        Sig { star_args: true, ..self }
    }
    const fn star_kwargs(self) -> Sig {
        Sig { star_kwargs: true, ..self }
    }
    const fn kwonly(self, kwonly: &'static [&'static str]) -> Sig {
        Sig { kwonly, ..self }
    }

    /// CPython's binding, with its messages: keyword errors first, then too many positional
    /// arguments, then missing ones.
    fn bind(&self, args: &[JValue]) -> Result<Bound, Error> {
        let (positional, keywords) = split_kwargs(args)?;
        let n = self.params.len();
        let mut vals: Vec<Option<JValue>> = vec![None; n + self.kwonly.len()];
        let mut star = Vec::new();
        for (i, v) in positional.iter().enumerate() {
            if i < n {
                vals[i] = Some(v.clone());
            } else {
                star.push(v.clone());
            }
        }
        let mut kwargs = Vec::new();
        for (k, v) in keywords {
            let slot = self.params.iter().position(|p| *p == k).or_else(|| self.kwonly.iter().position(|p| *p == k).map(|i| n + i));
            match slot {
                Some(i) if vals[i].is_some() => return Err(raised(format!("{}() got multiple values for argument '{k}'", self.name))),
                Some(i) => vals[i] = Some(v),
                None if self.star_kwargs => kwargs.push((k, v)),
                None => return Err(raised(format!("{}() got an unexpected keyword argument '{k}'", self.name))),
            }
        }
        if !star.is_empty() && !self.star_args {
            let takes = if self.required == n {
                format!("{n} positional argument{}", if n == 1 { "" } else { "s" })
            } else {
                format!("from {} to {n} positional arguments", self.required)
            };
            let given = positional.len();
            return Err(raised(format!("{}() takes {takes} but {given} {} given", self.name, if given == 1 { "was" } else { "were" })));
        }
        let missing: Vec<String> = (0..self.required).filter(|i| vals[*i].is_none()).map(|i| format!("'{}'", self.params[i])).collect();
        if !missing.is_empty() {
            let list = match missing.as_slice() {
                [one] => one.clone(),
                [a, b] => format!("{a} and {b}"),
                [init @ .., last] => format!("{}, and {last}", init.join(", ")),
                [] => String::new(),
            };
            let s = if missing.len() == 1 { "" } else { "s" };
            return Err(raised(format!("{}() missing {} required positional argument{s}: {list}", self.name, missing.len())));
        }
        Ok(Bound { vals, star, kwargs })
    }
}

/// Keyword arguments by name, in the call's order.
type Keywords = Vec<(String, JValue)>;

/// The positional arguments, and the keyword arguments minijinja passes as a last value.
fn split_kwargs(args: &[JValue]) -> Result<(Vec<JValue>, Keywords), Error> {
    match args.split_last() {
        Some((last, rest)) if last.is_kwargs() => {
            let mut kw = Vec::new();
            for k in last.try_iter()? {
                let v = last.get_item(&k)?;
                kw.push((key_text(&k), v));
            }
            Ok((rest.to_vec(), kw))
        }
        _ => Ok((args.to_vec(), Vec::new())),
    }
}

impl Bound {
    /// Parameter `i`, when the call gave it.
    fn get(&self, i: usize) -> Option<JValue> {
        self.vals.get(i).cloned().flatten()
    }
    /// Parameter `i` whose default is `None`: absent when not given or given as `None`.
    fn opt(&self, i: usize) -> Option<JValue> {
        self.get(i).filter(|v| !v.is_none())
    }
    /// A required parameter (binding checked it is there).
    fn req(&self, i: usize) -> JValue {
        self.get(i).unwrap_or_default()
    }
    fn truthy(&self, i: usize) -> bool {
        self.get(i).is_some_and(|v| v.is_true())
    }
    fn string(&self, i: usize) -> Result<String, Error> {
        string(&self.req(i))
    }
    fn key(&self, i: usize) -> Result<String, Error> {
        key_arg(&self.req(i))
    }
    fn str_or(&self, i: usize, default: &str) -> Result<String, Error> {
        match self.get(i) {
            Some(v) => string(&v),
            None => Ok(default.to_string()),
        }
    }
    /// A `**kwargs` argument.
    fn kwarg(&self, name: &str) -> Option<JValue> {
        self.kwargs.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone())
    }
}

#[cfg(test)]
mod tests {
    //! Each template below was rendered by Salt 3008.4 for the same minion, and the `*_SALT`
    //! text is what it printed, byte for byte: `salt.utils.templates.JINJA(template,
    //! from_str=True, to_str=True, salt=salt.loader.minion_mods(opts), grains=..., pillar=...,
    //! opts=opts, saltenv='base', sls='t')`, the registered Jinja renderer `slsutil.renderer`
    //! and the state compiler use, with `opts = salt.config.minion_config(None)` plus
    //! `file_client: local`, `id: m1`, the profile's grains and pillar as `opts['grains']` and
    //! `opts['pillar']`, its opts merged in, and a throw-away file root (`defaults.get`'s files
    //! below). Values other than strings and integers are printed through
    //! `slsutil.serialize('json', ...)`, because minijinja prints `True`/`None`/dicts unlike
    //! Python. `salt-call --local -c DIR slsutil.renderer path=FILE default_renderer=jinja`
    //! (grains static in DIR/minion, pillar from a pillar top) printed the same text for every
    //! template except `grains.items() | length`, which counts the grains salt-call computes
    //! from the machine as well.

    use std::sync::Arc;

    use super::*;
    use crate::render::jinja::{self, JinjaContext};

    const PROFILE: &str = r#"{"grains": {"os_family": "RedHat", "os": "CentOS", "osmajorrelease": 7, "osfinger": "CentOS-7",
            "roles": ["db", "web"], "ip_interfaces": {"eth0": ["10.0.0.5"]}, "num_cpus": 4,
            "selinux": {"enabled": true}, "id": "m1", "empty": "", "zero": 0, "flag": false,
            "nested": {"list": [{"name": "a"}, {"name": "b"}]}, "shared": "fromgrains", "gonly": {"g": 1}},
 "pillar": {"nginx": {"port": 8080, "lookup": {"pkg": "nginx-custom"}, "listen": [80, 443]},
            "users": ["alice", "bob"], "master": {"mkey": "mv", "shared": "frommaster", "mdict": {"m": 1}},
            "shared": "frompillar", "pdict": {"p": 1, "both": "pillar"}, "gonly": {"p": 2},
            "word": "text", "numkey": {"1": "one"}},
 "opts": {"shared": "fromopts", "myopt": {"a": 1, "both": "opts"}, "pdict": {"o": 1, "both": "opts"}}}"#;

    const FILTER_BY: &str = r#"{%- set J = salt['slsutil.serialize'] -%}
{%- set lookup = {'Debian': {'pkg': 'apache2'}, 'RedHat': {'pkg': 'httpd'}, 'default': {'pkg': 'web'}} -%}
1 {{ salt['grains.filter_by'](lookup)['pkg'] }}
2 {{ salt['grains.filter_by'](lookup, grain='os')['pkg'] }}
3 {{ salt['grains.filter_by']({'Cent*': 'glob', 'CentOS': 'exact'}, grain='os') }}
4 {{ salt['grains.filter_by']({'[DR]*': 'class'}, 'os_family') }}
5 {{ salt['grains.filter_by']({'web': 'W', 'db': 'D'}, grain='roles') }}
6 {{ salt['grains.filter_by']({'10.0.0.*': 'lan'}, grain='ip_interfaces:eth0') }}
7 {{ salt['grains.filter_by']({'7': 'seven'}, grain='osmajorrelease') }}
8 {{ J('json', salt['grains.filter_by']({'a': 1}, grain='missing')) }}
9 {{ salt['grains.filter_by']({'a': 1, 'other': 2}, grain='missing', default='other') }}
10 {{ salt['grains.filter_by']({'RedHat': None, 'default': 'dflt'}) }}
11 {{ J('json', salt['grains.filter_by']({'default': {'a': 1, 'n': {'x': 1, 'y': 1}}, 'RedHat': {'b': 2, 'n': {'y': 2}}}, base='default')) }}
12 {{ J('json', salt['grains.filter_by']({'RedHat': {'b': 2, 'l': [1]}}, merge={'l': [2], 'c': 3})) }}
13 {{ J('json', salt['grains.filter_by']({'x': 1}, grain='missing', merge={'m': 1})) }}
14 {{ J('json', salt['grains.filter_by']({'common': {'a': 1}}, grain='missing', base='common')) }}
15 {{ salt['grains.filter_by']({'RedHat': 'x', 'b': 'y'}, base='b') }}
16 {{ salt['grains.filter_by']({"{'enabled': True}": 'repr'}, grain='selinux') }}
17 {{ salt['grains.filter_by']({'False': 'f'}, grain='flag') }}
18 {{ salt['grains.filter_by']({'': 'empty', 'default': 'd'}, grain='empty') }}
19 {{ salt['grains.filter_by']({'a': 'A'}, grain='nested:list:name') }}
{%- set lk = {'RedHat': {'a': 1}} %}{% set r = salt['grains.filter_by'](lk, merge={'b': 2}) %}
20 {{ lk.RedHat.b }}
{%- set lk2 = {'RedHat': {'a': 1}} %}{% set r2 = salt['grains.filter_by'](lk2) %}{% do r2.update({'z': 9}) %}
21 {{ lk2.RedHat.z }}
22 {{ J('json', salt['grains.filter_by']({'RedHat': {'a': 1}}, merge={})) }}
23 {{ salt['grains.filter_by']({7: 'int'}, grain='osmajorrelease') }}
24 {{ J('json', salt['grains.filter_by']({'RedHat': {'a': 1}}, 'os_family', {'extra': 1})) }}
25 {{ salt.grains.filter_by({'CentOS': 'ns'}, grain='os') }}
26 {{ J('json', salt['grains.filter_by']({'default': {'a': 1}, 'RedHat': {'a': 2}}, default='default', base='default')) }}
27 {{ salt['grains.filter_by']({'C?ntOS': 'q', 'CentOS': 'x'}, grain='os') }}|{{ J('json', salt['grains.filter_by']({'centos': 'lower'}, grain='os')) }}
28 {{ J('json', salt['grains.filter_by']({'common': {'a': 1, 'l': [1]}, 'RedHat': {'l': [2]}}, base='common', merge={'l': [3]})) }}
{%- set lk3 = {'common': {'a': 1}, 'RedHat': {'b': 2}} %}{% set r3 = salt['grains.filter_by'](lk3, base='common', merge={'c': 3}) %}
29 {{ J('json', lk3) }}
"#;
    const FILTER_BY_SALT: &str = r#"1 httpd
2 web
3 glob
4 class
5 D
6 lan
7 seven
8 null
9 2
10 dflt
11 {"a": 1, "n": {"x": 1, "y": 2}, "b": 2}
12 {"b": 2, "l": [2], "c": 3}
13 {"m": 1}
14 {"a": 1}
15 x
16 repr
17 f
18 empty
19 A
20 2
21 9
22 {"a": 1}
23 int
24 {"a": 1, "extra": 1}
25 ns
26 {"a": 2}
27 q|null
28 {"a": 1, "l": [3]}
29 {"common": {"a": 1}, "RedHat": {"b": 2}}
"#;

    const PILLAR_GET: &str = r#"{%- set J = salt['slsutil.serialize'] -%}
1 {{ salt['pillar.get']('nginx:port') }}
2 [{{ salt['pillar.get']('nope') }}] {{ salt['pillar.get']('nope', 'd') }} {{ salt['pillar.get']('nope', default='kw') }}
3 {{ salt['pillar.get']('users:1') }} {{ salt['pillar.get']('users:-1') }} {{ J('json', salt['pillar.get']('users:5')) }}
4 {{ salt['pillar.get']('nginx/port', delimiter='/') }} {{ J('json', salt['pillar.get']('nginx:port', delimiter='/')) }}
5 {{ J('json', salt['pillar.get']('nginx', {'port': 80, 'user': 'www'}, merge=True)) }}
6 {{ J('json', salt['pillar.get']('users', ['root', 'alice'], merge=True)) }}
7 {{ J('json', salt['pillar.get']('nope', {'a': {'b': 1}}, merge=True)) }}
8 {{ salt['pillar.get']('nginx:port', 5, merge=True) }}
9 {{ salt['pillar.get']('word', {'a': 1}, merge=True) }}
10 {{ J('json', salt['pillar.get']('nginx', {'listen': [8080, 80]}, merge=True, merge_nested_lists=True)) }}
11 {{ J('json', salt['pillar.get']('nginx', {'listen': [8080]}, merge=True)) }}
12 {{ salt['pillar.get']('numkey:1') }}
13 {{ J('json', salt['pillar.get']('nginx:lookup', {'x': 1}, True)) }}
14 {{ J('json', salt['pillar.get']('users', [], merge=True)) }} {{ J('json', salt['pillar.get']('nope', [1], merge=True)) }}
15 {{ J('json', salt['pillar.get']('nginx:lookup')) }}
16 {{ salt.pillar.get('nginx:port', default=1) }} {{ salt['pillar.get'](key='word') }}
17 {{ J('json', salt['pillar.get']('nginx:listen', [443, 8443], merge=True)) }}
{%- set d = {'lookup': {'extra': 1}} %}{% set r = salt['pillar.get']('nginx', d, merge=True) %}
18 {{ J('json', d) }}
19 {{ J('json', salt['pillar.get']('nginx', 'x', merge=True)) }}
"#;
    const PILLAR_GET_SALT: &str = r#"1 8080
2 [] d kw
3 bob bob ""
4 8080 ""
5 {"port": 8080, "user": "www", "lookup": {"pkg": "nginx-custom"}, "listen": [80, 443]}
6 ["root", "alice", "bob"]
7 {"a": {"b": 1}}
8 8080
9 text
10 {"listen": [8080, 80, 443], "port": 8080, "lookup": {"pkg": "nginx-custom"}}
11 {"listen": [80, 443], "port": 8080, "lookup": {"pkg": "nginx-custom"}}
12 one
13 {"x": 1, "pkg": "nginx-custom"}
14 ["alice", "bob"] [1]
15 {"pkg": "nginx-custom"}
16 8080 text
17 [443, 8443, 80]
18 {"lookup": {"extra": 1}}
19 {"port": 8080, "lookup": {"pkg": "nginx-custom"}, "listen": [80, 443]}
"#;

    const CONFIG_GET: &str = r#"{%- set J = salt['slsutil.serialize'] -%}
1 {{ salt['config.get']('shared') }}
2 {{ salt['config.get']('myopt:a') }}
3 {{ salt['config.get']('os_family') }}
4 {{ salt['config.get']('word') }}
5 {{ salt['config.get']('mkey') }}
6 {{ salt['config.get']('mongo.port') }} {{ J('json', salt['config.get']('solr.dih.import_options:optimize')) }}
7 [{{ salt['config.get']('nope') }}] {{ salt['config.get']('nope', 'dflt') }}
8 {{ J('json', salt['config.get']('pdict', merge='recurse')) }}
9 {{ J('json', salt['config.get']('pdict', merge='overwrite')) }}
10 {{ J('json', salt['config.get']('pdict', merge='bogus')) }}
11 {{ J('json', salt['config.get']('gonly', merge='recurse')) }}
12 {{ salt['config.get']('shared', merge='recurse') }}
13 {{ salt['config.get']('myopt/a', '', '/') }}
14 [{{ salt['config.get']('nope', merge='recurse') }}] {{ salt['config.get']('nope', 'x', merge='overwrite') }}
15 {{ salt['config.get']('sdbkey') }}
16 {{ J('json', salt['config.get']('mdict', merge='recurse')) }} {{ salt['config.get']('mongo.port', merge='recurse') }}
17 {{ J('json', salt['config.get']('gonly')) }}
18 {{ salt['config.get']('pdict:both', merge='recurse') }} {{ salt['config.get']('pdict:p', merge='overwrite', default='gone') }}
19 {{ salt['config.get']('word', omit_pillar=True, default='omitted') }} {{ salt['config.get']('shared', omit_opts=True) }} {{ salt['config.get']('shared', omit_opts=True, omit_grains=True) }} {{ salt['config.get']('shared', omit_opts=True, omit_grains=True, omit_pillar=True) }}
20 {{ salt['config.option']('shared') }} [{{ salt['config.option']('myopt:a') }}] {{ salt['config.option']('word') }} {{ salt['config.option']('mkey') }} {{ salt['config.option']('mongo.port') }} {{ salt['config.option']('nope', 'd') }}
21 {{ J('json', salt['config.option']('pd*', wildcard=True)) }} {{ J('json', salt['config.option']('mongo.*', wildcard=True)) }} {{ J('json', salt['config.option']('zz*', wildcard=True)) }}
22 {{ salt['config.option']('shared', omit_opts=True) }} {{ salt['config.option']('shared', omit_all=True, default='all') }}
23 {{ J('json', salt['config.option']('mk*', wildcard=True)) }} {{ J('json', salt['config.option']('gonl?', wildcard=True)) }}
24 {{ J('json', salt['config.get']('numkey', merge='recurse')) }}
"#;
    const CONFIG_GET_SALT: &str = r#"1 fromopts
2 1
3 RedHat
4 text
5 mv
6 27017 true
7 [] dflt
8 {"p": 1, "both": "opts", "o": 1}
9 {"o": 1, "both": "opts"}
10 {"p": 1, "both": "opts", "o": 1}
11 {"p": 2, "g": 1}
12 fromopts
13 1
14 [] x
15 sdb://noprofile/x
16 {"m": 1} 27017
17 {"g": 1}
18 opts gone
19 omitted fromgrains frompillar frommaster
20 fromopts [] text mv 27017 d
21 {"pdict": {"o": 1, "both": "opts"}} {"mongo.db": "salt", "mongo.password": "", "mongo.port": 27017, "mongo.user": ""} {}
22 fromgrains all
23 {"mkey": "mv"} {"gonly": {"g": 1}}
24 {"1": "one"}
"#;

    const MERGE: &str = r#"{%- set J = salt['slsutil.serialize'] -%}
{%- set A = {'a': 1, 'l': [1, 2], 'd': {'x': 1, 'y': {'p': 1}}, 'only_a': True} -%}
{%- set B = {'a': 2, 'l': [2, 3], 'd': {'y': {'q': 2}, 'z': 3}, 'only_b': True} -%}
1 {{ J('json', salt['slsutil.merge'](A, B)) }}
2 {{ J('json', salt['slsutil.merge'](A, B, merge_lists=True)) }}
3 {{ J('json', salt['slsutil.merge'](A, B, strategy='aggregate')) }}
4 {{ J('json', salt['slsutil.merge'](A, B, 'list')) }}
5 {{ J('json', salt['slsutil.merge'](A, B, 'smart', 'yamlex')) }}
6 {{ J('json', A) }}
{%- set A2 = {'a': 1, 'd': {'x': 1}} %}{% set r = salt['slsutil.merge'](A2, {'d': {'y': 2}, 'n': 1}, strategy='overwrite') %}
7 {{ J('json', r) }} {{ J('json', A2) }}
8 {{ J('json', salt['slsutil.merge_all']([{'a': {'x': 1}}, {'a': {'y': 2}}, {'b': 1}])) }}
{%- set dest = {'a': {'x': 1}, 'l': [1]} %}{% set sub = dest.a %}{% set r = salt['slsutil.update'](dest, {'a': {'y': 2}, 'l': [2]}, merge_lists=True) %}
9 {{ J('json', dest) }} {{ J('json', sub) }} {{ J('json', r) }}
{%- set dm = {'a': {'x': 1}, 'l': [1]} %}{% set sub = dm.a %}{% do salt['defaults.merge'](dm, {'a': {'y': 2}, 'l': [2], 'n': None}) %}
10 {{ J('json', dm) }} {{ J('json', sub) }}
{%- set dm2 = {'l': [1]} %}{% set r = salt['defaults.merge'](dm2, {'l': [1, 2]}, merge_lists=True, in_place=False) %}
11 {{ J('json', dm2) }} {{ J('json', r) }}
12 {{ J('json', salt['defaults.merge']({'a': 1}, None)) }}
{%- set orig = {'a': {'b': [1]}} %}{% set cp = salt['defaults.deepcopy'](orig) %}{% do cp.a.b.append(2) %}
13 {{ J('json', orig) }} {{ J('json', cp) }}
{%- set nodes = {'n1': {'port': 1}, 'n2': {}} %}{% set r = salt['defaults.update'](nodes, {'port': 80, 'l': [1]}) %}
14 {{ J('json', nodes) }}
15 {{ J('json', salt['slsutil.merge']({'a': {'b': 1}}, {'a': None})) }}
16 {{ J('json', salt['slsutil.merge_all']([{'l': [1]}, {'l': [2]}], merge_lists=True)) }} {{ J('json', salt['slsutil.merge_all']([])) }}
"#;
    const MERGE_SALT: &str = r#"1 {"a": 2, "l": [2, 3], "d": {"x": 1, "y": {"p": 1, "q": 2}, "z": 3}, "only_a": true, "only_b": true}
2 {"a": 2, "l": [1, 2, 3], "d": {"x": 1, "y": {"p": 1, "q": 2}, "z": 3}, "only_a": true, "only_b": true}
3 {"a": 2, "l": [2, 3], "d": {"y": {"q": 2}, "z": 3}, "only_a": true, "only_b": true}
4 {"a": [1, 2], "l": [[1, 2], [2, 3]], "d": [{"x": 1, "y": {"p": 1}}, {"y": {"q": 2}, "z": 3}], "only_a": true}
5 {"a": 2, "l": [2, 3], "d": {"y": {"q": 2}, "z": 3}, "only_a": true, "only_b": true}
6 {"a": 1, "l": [1, 2], "d": {"x": 1, "y": {"p": 1}}, "only_a": true}
7 {"a": 1, "d": {"y": 2}, "n": 1} {"a": 1, "d": {"y": 2}}
8 {"a": {"x": 1, "y": 2}, "b": 1}
9 {"a": {"x": 1, "y": 2}, "l": [1, 2]} {"x": 1, "y": 2} {"a": {"x": 1, "y": 2}, "l": [1, 2]}
10 {"a": {"x": 1, "y": 2}, "l": [2], "n": null} {"x": 1, "y": 2}
11 {"l": [1]} {"l": [1, 2]}
12 {"a": 1}
13 {"a": {"b": [1]}} {"a": {"b": [1, 2]}}
14 {"n1": {"port": 1, "l": [1]}, "n2": {"port": 80, "l": [1]}}
15 {"a": null}
16 {"l": [1, 2]} {}
"#;

    const MISC: &str = r#"{%- set J = salt['slsutil.serialize'] -%}
1 {{ J('json', salt['log.debug']('d')) }} {{ J('json', salt['log.info']('i')) }} {{ J('json', salt['log.warning']('w')) }} {{ J('json', salt['log.error']('e')) }} {{ J('json', salt['log.critical']('c')) }} {{ J('json', salt['log.exception']('x')) }}
2 {{ J('json', salt['test.ping']()) }}
3 {{ salt['file.join']('a', 'b', 'c') }} {{ salt['file.join']('a', '/b', 'c') }} {{ salt['file.join']('a/', 'b') }} {{ salt['file.join']('a', '') }} {{ salt['file.join']('', 'b') }} {{ salt['file.join']('/') }}
4 [{{ salt['file.dirname']('/a/b/c.txt') }}] [{{ salt['file.dirname']('c') }}] [{{ salt['file.dirname']('/a/b/') }}] [{{ salt['file.dirname']('/') }}] [{{ salt['file.dirname']('//a') }}] [{{ salt['file.dirname']('a//b') }}]
5 [{{ salt['file.basename']('/a/b/c.txt') }}] [{{ salt['file.basename']('/a/b/') }}] [{{ salt['file.basename']('c') }}] [{{ salt['file.basename']('') }}]
6 {{ J('json', salt['grains.has_value']('selinux:enabled')) }} {{ J('json', salt['grains.has_value']('empty')) }} {{ J('json', salt['grains.has_value']('zero')) }} {{ J('json', salt['grains.has_value']('nope')) }} {{ J('json', salt['grains.has_value']('roles:0')) }}
7 {{ salt['grains.get']('os') }} [{{ salt['grains.get']('nope') }}] {{ salt['grains.get']('nope', 'd') }} {{ salt['grains.get']('ip_interfaces/eth0/0', delimiter='/') }} {{ salt['grains.get']('roles:1') }} {{ J('json', salt['grains.get']('ip_interfaces|eth0', 'x', '|')) }}
8 {{ salt['grains.items']()['os'] }} {{ salt['grains.items']() | length }}
9 {{ J('json', salt['grains.item']('os', 'roles:0', 'nope')) }} {{ J('json', salt['grains.item']('nope', default='d')) }}
10 {{ J('json', salt['pillar.item']('word', 'nginx:port', 'nope')) }}
11 {{ J('json', {'u': 'ß', 'f': 1.5, 'e': 1e20, 'n': None, 't': True, 'l': [1, 'x']}) }}
12 {{ J('json', {'b': 1, 'a': [1, 2]}, indent=2) }}
13 {{ J('json', {'b': 1, 'a': 2}, sort_keys=True) }} {{ J('json', 'x"y\\z') }} {{ J('json', {'a': 1}, separators=(',', ':')) }}
14 {{ J('json', {'u': 'ß'}, ensure_ascii=True) }} {{ J('json', 3) }} {{ J('json', [{}], indent=0) }} {{ J('json', {'a': [1, {'b': []}]}, indent='  ') }}
"#;
    const MISC_SALT: &str = r#"1 true true true true true true
2 true
3 a/b/c /b/c a/b a/ b /
4 [/a/b] [] [/a/b] [/] [//] [a]
5 [c.txt] [] [c] []
6 true true true false true
7 CentOS [] d 10.0.0.5 web ["10.0.0.5"]
8 CentOS 15
9 {"os": "CentOS", "roles:0": "db", "nope": ""} {"nope": "d"}
10 {"word": "text", "nginx:port": 8080, "nope": ""}
11 {"u": "ß", "f": 1.5, "e": 1e+20, "n": null, "t": true, "l": [1, "x"]}
12 {
  "b": 1,
  "a": [
    1,
    2
  ]
}
13 {"a": 2, "b": 1} "x\"y\\z" {"a":1}
14 {"u": "\u00df"} 3 [
{}
] {
  "a": [
    1,
    {
      "b": []
    }
  ]
}
"#;

    const DEFAULTS_GET: &str = r#"{%- set J = salt['slsutil.serialize'] -%}
1 {{ J('json', salt['defaults.get']('web')) }}
2 {{ salt['defaults.get']('web:web:port') }} {{ J('json', salt['defaults.get']('web:web:pkgs')) }} {{ salt['defaults.get']('web:nope', 'd') }} [{{ salt['defaults.get']('web:nope') }}]
3 {{ J('json', salt['defaults.get']('js')) }} {{ salt['defaults.get']('js:js:a') }}
4 {{ J('json', salt['defaults.get']('missing')) }} {{ salt['defaults.get']('missing:x', 'dm') }}
"#;
    const DEFAULTS_GET_SALT: &str = r#"1 {"web": {"port": 80, "pkgs": ["nginx"]}}
2 80 ["nginx"] d []
3 {"js": {"a": 1}} 1
4 null dm
"#;

    const SERIALIZE_YAML: &str = r#"{%- set S = salt['slsutil.serialize'] -%}
1 {{ S('yaml', {'b': [1, 2], 'a': {'x': 'ß', 'y': [{'k': 'v'}]}}) }}
2 {{ S('yaml', {'b': [1, 2], 'a': {'x': 'y z'}}, default_flow_style=False) }}
3 {{ S('yaml', ['yes', '1.0', 'plain text', '', None, True, 1.5]) }}
4 {{ S('yaml', 'x') }}|{{ S('yaml', '') }}|{{ S('yaml', 5) }}
5 {{ S('yaml', {'k': 'ß'}, allow_unicode=True) }} {{ S('yaml', {'z': 1, 'a': 2}, sort_keys=False) }}
6 {{ S(serializer='yaml', obj={'a': 1}, default_flow_style=True, indent=4, width=100, explicit_start=True) }}
"#;
    const SERIALIZE_YAML_SALT: &str = r#"1 a:
  x: "\xDF"
  y:
  - {k: v}
b: [1, 2]
2 a:
  x: y z
b:
- 1
- 2
3 ['yes', '1.0', plain text, '', null, true, 1.5]
4 x|''|5
5 {k: ß} {z: 1, a: 2}
6 --- {a: 1}
"#;

    fn ctx_with(profile: &str) -> JinjaContext {
        let p: Value = serde_json::from_str(profile).unwrap();
        let mut opts = p["opts"].clone();
        opts.as_object_mut().unwrap().insert("id".into(), "m1".into());
        JinjaContext {
            grains: p["grains"].clone(),
            pillar: p["pillar"].clone(),
            opts,
            saltenv: "base".into(),
            sls: "t".into(),
            tplfile: "t.sls".into(),
            tplpath: "/srv/salt/t.sls".into(),
            loader: Arc::new(|name| match name {
                "web/defaults.yaml" => Some("web:\n  port: 80\n  pkgs: [nginx]\n".into()),
                "js/defaults.json" => Some(r#"{"js": {"a": 1}}"#.into()),
                _ => None,
            }),
            probe: None,
            matcher: None,
            map_data: None,
            extra: Vec::new(),
            functions: serde_json::Value::Null,
            budget: crate::render::budget::DEFAULT,
        }
    }

    fn ctx() -> JinjaContext {
        let mut c = ctx_with(PROFILE);
        c.pillar["sdbkey"] = "sdb://noprofile/x".into();
        c
    }

    fn render(template: &str, ctx: &JinjaContext) -> (String, Vec<String>) {
        match jinja::render(template, ctx) {
            Ok(r) => (r.text, r.hints),
            Err(e) => (format!("ERROR: {}", e.message), Vec::new()),
        }
    }

    #[track_caller]
    fn check(template: &str, ctx: &JinjaContext, salt_printed: &str) {
        let (got, _) = render(template, ctx);
        let (got, want): (Vec<&str>, Vec<&str>) = (got.lines().collect(), salt_printed.lines().collect());
        for (g, w) in got.iter().zip(&want) {
            assert_eq!(g, w);
        }
        assert_eq!(got.len(), want.len(), "{got:#?}");
    }

    #[track_caller]
    fn check_error(template: &str, ctx: &JinjaContext, salt_error: &str) {
        let (got, _) = render(template, ctx);
        assert!(got.starts_with("ERROR:") && got.contains(salt_error), "{got}");
    }

    #[test]
    fn grains_filter_by() {
        check(FILTER_BY, &ctx(), FILTER_BY_SALT);
        check_error(
            "{{ salt['grains.filter_by']({'RedHat': 'x', 'b': {'a':1}}, base='b') }}\n",
            &ctx(),
            "filter_by default and look-up values must both be dictionaries.",
        );
        check_error("{{ salt['grains.filter_by']({'RedHat': {}}, merge=[1]) }}\n", &ctx(), "filter_by merge argument must be a dictionary.");
    }

    #[test]
    fn pillar_get() {
        check(PILLAR_GET, &ctx(), PILLAR_GET_SALT);
        // With `pillar_raise_on_missing: true` only a call without a default raises.
        let raising = ctx_with(r#"{"grains": {}, "pillar": {"a": 1}, "opts": {"pillar_raise_on_missing": true}}"#);
        check("{{ salt['pillar.get']('nope', 'd') }}\n", &raising, "d\n");
        check_error("{{ salt['pillar.get']('nope', 'd') }}\n{{ salt['pillar.get']('nope') }}\n", &raising, "'Pillar key not found: nope'");
        // `pillar_merge_lists: true` is the default for merge_nested_lists.
        let lists = ctx_with(r#"{"grains": {}, "pillar": {"d": {"l": [1]}, "l": [1]}, "opts": {"pillar_merge_lists": true}}"#);
        let j = "{%- set J = salt['slsutil.serialize'] -%}";
        check(
            &format!("{j}{{{{ J('json', salt['pillar.get']('l', {{'l': [0]}}, merge=True)) }}}}\n{{{{ J('json', salt['pillar.get']('d', {{'l': [0]}}, merge=True)) }}}}\n{{{{ J('json', salt['pillar.get']('d', {{'l': [0]}}, merge=True, merge_nested_lists=False)) }}}}\n"),
            &lists,
            "[1]\n{\"l\": [0, 1]}\n{\"l\": [1]}\n",
        );
    }

    #[test]
    fn config_get_and_option() {
        check(CONFIG_GET, &ctx(), CONFIG_GET_SALT);
    }

    #[test]
    fn merges_and_in_place_changes() {
        check(MERGE, &ctx(), MERGE_SALT);
        check_error("{{ salt['defaults.merge'](None, {'a': 1}) }}\n", &ctx(), "Can't perform in-place merge into NoneType");
    }

    #[test]
    fn slsutil_deserialize() {
        // Salt 3008.4: deserialize('json', '{"b": [1, 2.5], "a": null}') is
        // {'b': [1, 2.5], 'a': None}; deserialize('yaml', 'k: [x, 0755, yes]') is
        // {'k': ['x', 493, True]} (SafeLoader's octal, not answered here).
        let (got, hints) = render(
            "{{ salt['slsutil.deserialize']('json', '{\"b\": [1, 2.5], \"a\": null}') }}|{{ salt['slsutil.deserialize']('yaml', 'k: [x, yes]') }}|{{ salt['slsutil.deserialize']('yaml', 'k: [x, 0755]') }}",
            &ctx(),
        );
        assert_eq!(got, "{'b': [1, 2.5], 'a': None}|{'k': ['x', True]}|");
        assert_eq!(hints.len(), 1, "{hints:?}");
    }

    #[test]
    fn pure_helpers() {
        check(MISC, &ctx(), MISC_SALT);
    }

    #[test]
    fn defaults_get_reads_the_file_roots() {
        check(DEFAULTS_GET, &ctx(), DEFAULTS_GET_SALT);
    }

    #[test]
    fn serialize_yaml_like_salts_serializer() {
        check(SERIALIZE_YAML, &ctx(), SERIALIZE_YAML_SALT);
        check_error("{{ salt['slsutil.serialize']('yaml', {'a': 1}, foo=1) }}", &ctx(), "dump_all() got an unexpected keyword argument 'foo'");
        check_error("{{ salt['slsutil.serialize']('json', {'a': 1}, foo=1) }}", &ctx(), "JSONEncoder.__init__() got an unexpected keyword argument 'foo'");
        check_error("{{ salt['slsutil.serialize']('nope', {'a': 1}) }}", &ctx(), "Serializer 'nope' not found.");
    }

    #[test]
    fn number_keys() {
        // salt-call --local slsutil.renderer with the pillar file `7: seven\nn: {3: three}`
        // printed "seven|g|seven|three": an int key finds YAML's int key.
        let c = ctx_with(r#"{"grains": {}, "pillar": {"7": "seven", "n": {"3": "three"}}, "opts": {}}"#);
        check(
            "{{ salt['pillar.get'](7) }}|{{ salt['grains.get'](7, 'g') }}|{{ salt['config.get'](7) }}|{{ salt['pillar.get']('n:3') }}\n",
            &c,
            "seven|g|seven|three\n",
        );
    }

    #[test]
    fn python_argument_binding() {
        // Salt: "Jinja error: get() got an unexpected keyword argument 'foo'", and so on.
        for (call, message) in [
            ("salt['pillar.get']('x', foo=1)", "get() got an unexpected keyword argument 'foo'"),
            ("salt['pillar.get']()", "get() missing 1 required positional argument: 'key'"),
            ("salt['log.debug']('a', 'b')", "debug() takes 1 positional argument but 2 were given"),
            ("salt['pillar.get']('x', 1, 2, 3, 4, 5, 6, 7, 8)", "get() takes from 1 to 8 positional arguments but 9 were given"),
            ("salt['pillar.get']('x', key='y')", "get() got multiple values for argument 'key'"),
            ("salt['slsutil.merge']({'a': 1}, 'x')", "Cannot update using non-dict types in dictupdate.update()"),
            ("salt['slsutil.merge']({'a': 1})", "merge() missing 1 required positional argument: 'obj_b'"),
        ] {
            check_error(&format!("{{{{ {call} }}}}"), &ctx(), message);
        }
    }

    /// A profile's `functions:` answers a host-dependent call by its first argument; any other
    /// call stays inert with its hint.
    #[test]
    fn pinned_answers_by_first_argument() {
        let mut c = ctx();
        c.functions = serde_json::json!({
            "file.file_exists": {"/etc/localtime": true},
            "cmd.run": {"uname -r": "6.1.0-18-amd64"},
            "pkg.version": {"nginx": "1.22.1"},
        });
        let src = "{% if salt['file.file_exists']('/etc/localtime') %}link{% endif %}|{{ salt['file.file_exists']('/etc/x') }}|{{ salt['cmd.run']('uname -r') | upper }}|{{ salt['pkg.version'](name='nginx') }}|{{ salt['cmd.run']('id') }}";
        let (text, hints) = render(src, &c);
        assert_eq!(text, "link||6.1.0-18-AMD64|1.22.1|");
        assert_eq!(hints.len(), 2, "{hints:?}");
        assert!(hints.iter().all(|h| h.contains("file.file_exists") || h.contains("cmd.run")), "{hints:?}");
    }

    #[test]
    fn host_touching_functions_stay_inert() {
        let (text, hints) = render("[{{ salt['cmd.run']('rm -rf /') }}][{{ salt.file.file_exists('/etc') }}][{{ salt['mine.get']('*', 'x') }}]", &ctx());
        // mine.get answers an empty mapping, as it does on a masterless minion.
        assert_eq!(text, "[][][{}]");
        assert_eq!(hints.len(), 3, "{hints:?}");
        // An sdb:// value whose profile names a driver would query it.
        let mut c = ctx();
        c.opts["vault"] = serde_json::json!({"driver": "vault"});
        c.pillar["secret"] = "sdb://vault/db/pass".into();
        let (text, hints) = render("[{{ salt['config.get']('secret') }}]", &c);
        assert_eq!((text.as_str(), hints.len()), ("[]", 1));
    }

    #[test]
    fn match_filter_by_asks_the_matcher() {
        // The real matchers answer through the pipeline (pipeline.rs tests); here, a stand-in
        // shows what each tgt_type passes on.
        let mut c = ctx();
        let seen = Arc::new(Mutex::new(Vec::new()));
        let log = seen.clone();
        c.matcher = Some(Arc::new(move |m: &str, t: &str, id: Option<&str>, d: Option<&str>| {
            log.lock().unwrap().push(format!("{m} {t} {id:?} {d:?}"));
            t == "yes"
        }));
        let (text, _) = render(
            "{{ salt['match.filter_by']({'no': 1, 'yes': 2}) }} {{ salt['match.filter_by']({'yes': 3}, 'grain', 'x') }} {{ salt['match.filter_by']({'yes': 4}, tgt_type='list_', minion_id='m2') }}",
            &c,
        );
        assert_eq!(text, "2 3 4");
        assert_eq!(*seen.lock().unwrap(), ["compound no None None", "compound yes None None", "grain yes None Some(\"x\")", "list yes Some(\"m2\") None"]);
        // Salt: "Jinja error: 'list'" (the module has `list_`, not `list`).
        check_error("{{ salt['match.filter_by']({'m1': 'L'}, tgt_type='list') }}", &c, "'list'");
        check_error(
            "{{ salt['match.filter_by']({'m1': 'L'}, tgt_type='ipcidr', minion_id='x') }}",
            &c,
            "ipcidr() takes 1 positional argument but 2 were given",
        );
    }
}
