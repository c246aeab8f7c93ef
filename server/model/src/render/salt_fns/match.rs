//! `salt/modules/match.py`: `filter_by`, `ifelse` and each matcher's own function (`glob`,
//! `compound`, `grain`, ...), through the pipeline's target matchers.

use super::args::{Bound, Sig};
use super::common::{py_type, raised, Functions, DELIM};
use crate::py::builtins as py;
use crate::render::convert::to_json;
use crate::render::mutable::MDict;
use minijinja::value::{Value as JValue, ValueKind};
use minijinja::Error;
use serde_json::Value;
use std::sync::Mutex;

/// Calls `match.<name>` (the whole name, `match.get`); a function not modelled here is inert.
pub(super) fn call(f: &Functions<'_>, name: &str, args: &[JValue]) -> Result<JValue, Error> {
    let a = |sig: &Sig| sig.bind(args);
    match name {
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
        // `match.<matcher>(tgt, minion_id=None)` / `(tgt, delimiter=':')` / `(tgt)`: the
        // matcher's answer for this minion (or for `minion_id`); an exception is `False`.
        "match.compound" | "match.glob" | "match.pcre" | "match.list_" | "match.grain" | "match.grain_pcre" | "match.pillar" | "match.pillar_pcre"
        | "match.ipcidr" | "match.data" => {
            const FUNCTIONS: [&str; 10] = ["compound", "glob", "pcre", "list_", "grain", "grain_pcre", "pillar", "pillar_pcre", "ipcidr", "data"];
            let tgt_type = FUNCTIONS.into_iter().find(|f| name.strip_prefix("match.") == Some(f)).unwrap_or("glob");
            let (second, params): (Option<&str>, &'static [&'static str]) = match tgt_type {
                "grain" | "grain_pcre" | "pillar" | "pillar_pcre" => (Some("delimiter"), &["tgt", "delimiter"]),
                "ipcidr" | "data" => (None, &["tgt"]),
                _ => (Some("minion_id"), &["tgt", "minion_id"]),
            };
            let b = a(&Sig::new(tgt_type, params, 1))?;
            let Some(decide) = f.ctx.matcher.as_ref() else {
                return Ok(f.inert(name));
            };
            let Some(tgt) = b.req(0).as_str().map(str::to_string) else { return Ok(JValue::from(false)) };
            let arg = b.get(1).filter(|v| !v.is_none()).map(|v| py::str_of(&to_json(&v)));
            let matcher = if tgt_type == "list_" { "list" } else { tgt_type };
            let (id, delim) = match second {
                Some("delimiter") => (None, Some(arg.unwrap_or_else(|| DELIM.to_string()))),
                Some(_) => (arg.filter(|a| !a.is_empty()), None),
                None => (None, None),
            };
            Ok(JValue::from(decide(matcher, &tgt, id.as_deref(), delim.as_deref())))
        }
        _ => Ok(f.inert(name)),
    }
}

impl Functions<'_> {
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
                    self.update_in_place("match.filter_by", &value, &merge, true, b.truthy(4))?;
                }
                return Ok(value);
            }
        }
        let default = b.get(5).unwrap_or_else(|| JValue::from("default"));
        let v = lookup.get_item(&default)?;
        Ok(if v.is_undefined() { JValue::from(()) } else { v })
    }
}

#[derive(Clone, Copy)]
enum Second {
    MinionId,
    Delimiter,
    Nothing,
}
