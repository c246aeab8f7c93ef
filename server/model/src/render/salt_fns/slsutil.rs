//! `salt/modules/slsutil.py`: `merge`, `merge_all`, `update`, `serialize`, `deserialize`.

use super::args::Sig;
use super::common::{merge_error, raised, string, Functions};
use crate::py::dictupdate;
use crate::py::{json, yaml_dump};
use crate::render::convert::to_json;
use crate::render::mutable;
use crate::render::mutable::from_json_like;
use minijinja::value::{Value as JValue, ValueKind};
use minijinja::Error;
use serde_json::Value;

/// Calls `slsutil.<name>` (the whole name, `slsutil.get`); a function not modelled here is inert.
pub(super) fn call(f: &Functions<'_>, name: &str, args: &[JValue]) -> Result<JValue, Error> {
    let a = |sig: &Sig| sig.bind(args);
    match name {
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
                match (mutable::dict_of(&obj_a), obj_b.kind() == ValueKind::Map) {
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
                        f.write_back("slsutil.merge", &obj_a, &a_json, &obj_b);
                    }
                }
            }
            Ok(from_json_like(&merged, &[&obj_a, &b.req(1)], false))
        }
        "slsutil.merge_all" => {
            let b = a(&Sig::new("merge_all", &["lst", "strategy", "renderer", "merge_lists"], 1))?;
            let objs: Vec<JValue> = b.req(0).try_iter()?.collect();
            let items: Vec<Value> = objs.iter().map(to_json).collect();
            let merged = dictupdate::merge_all(&items, &b.str_or(1, "smart")?, &b.str_or(2, "yaml")?, b.truthy(3)).map_err(merge_error)?;
            // `ret = {}`, then each merged into it: a plain dict, each nested dict the type of
            // the first object that has one there.
            let plain = JValue::from_object(mutable::MDict::default());
            let like: Vec<&JValue> = std::iter::once(&plain).chain(objs.iter()).collect();
            Ok(from_json_like(&merged, &like, false))
        }
        "slsutil.update" => {
            let b = a(&Sig::new("update", &["dest", "upd", "recursive_update", "merge_lists"], 2))?;
            let recursive = b.get(2).is_none_or(|v| v.is_true());
            f.update_in_place("slsutil.update", &b.req(0), &b.req(1), recursive, b.truthy(3))
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
        _ => Ok(f.inert(name)),
    }
}

impl Functions<'_> {
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
}
