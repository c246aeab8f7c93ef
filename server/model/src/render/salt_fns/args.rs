//! Python's argument binding for the Salt functions a template calls: a signature, the call
//! bound to it with CPython's `TypeError` wording, and minijinja's trailing keyword arguments.

use minijinja::value::Value as JValue;
use minijinja::Error;

use super::common::{key_arg, raised, string};
use crate::render::convert::key_text;

/// A Python signature: positional-or-keyword parameters (the first `required` without a
/// default), `*args`, keyword-only parameters, `**kwargs`.
pub(super) struct Sig {
    pub(super) name: &'static str,
    pub(super) params: &'static [&'static str],
    pub(super) required: usize,
    pub(super) star_args: bool,
    pub(super) kwonly: &'static [&'static str],
    pub(super) star_kwargs: bool,
}

/// A call bound to a [`Sig`]: the value of each parameter (positional, then keyword-only),
/// what went to `*args` and to `**kwargs`.
pub(super) struct Bound {
    pub(super) vals: Vec<Option<JValue>>,
    pub(super) star: Vec<JValue>,
    pub(super) kwargs: Keywords,
}

impl Sig {
    pub(super) const fn new(name: &'static str, params: &'static [&'static str], required: usize) -> Sig {
        Sig { name, params, required, star_args: false, kwonly: &[], star_kwargs: false }
    }
    pub(super) const fn star_args(self) -> Sig {
        Sig { star_args: true, ..self }
    }
    pub(super) const fn star_kwargs(self) -> Sig {
        Sig { star_kwargs: true, ..self }
    }
    pub(super) const fn kwonly(self, kwonly: &'static [&'static str]) -> Sig {
        Sig { kwonly, ..self }
    }

    /// CPython's binding, with its messages: keyword errors first, then too many positional
    /// arguments, then missing ones.
    pub(super) fn bind(&self, args: &[JValue]) -> Result<Bound, Error> {
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
pub(super) type Keywords = Vec<(String, JValue)>;

/// The positional arguments, and the keyword arguments minijinja passes as a last value.
pub(super) fn split_kwargs(args: &[JValue]) -> Result<(Vec<JValue>, Keywords), Error> {
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
    pub(super) fn get(&self, i: usize) -> Option<JValue> {
        self.vals.get(i).cloned().flatten()
    }
    /// Parameter `i` whose default is `None`: absent when not given or given as `None`.
    pub(super) fn opt(&self, i: usize) -> Option<JValue> {
        self.get(i).filter(|v| !v.is_none())
    }
    /// A required parameter (binding checked it is there).
    pub(super) fn req(&self, i: usize) -> JValue {
        self.get(i).unwrap_or_default()
    }
    pub(super) fn truthy(&self, i: usize) -> bool {
        self.get(i).is_some_and(|v| v.is_true())
    }
    pub(super) fn string(&self, i: usize) -> Result<String, Error> {
        string(&self.req(i))
    }
    pub(super) fn key(&self, i: usize) -> Result<String, Error> {
        key_arg(&self.req(i))
    }
    pub(super) fn str_or(&self, i: usize, default: &str) -> Result<String, Error> {
        match self.get(i) {
            Some(v) => string(&v),
            None => Ok(default.to_string()),
        }
    }
    /// A `**kwargs` argument.
    pub(super) fn kwarg(&self, name: &str) -> Option<JValue> {
        self.kwargs.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone())
    }
}
