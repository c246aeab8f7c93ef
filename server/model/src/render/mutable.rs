//! Python's mutable lists and dicts inside templates. Salt's Jinja is Jinja2 over Python
//! objects, so `{% do names.append(x) %}` and `{% do mapdata.update(other) %}` change the list
//! or dict every other name bound to it sees, inside loops and macros too. minijinja's values
//! are immutable, so templates get [`MList`] and [`MDict`] instead: list and dict literals are
//! wrapped in constructor calls by [`wrap_literals`] (a rewrite that keeps every line where it
//! was), and data that enters a template (grains, pillar, imported YAML, function results) is
//! made mutable by [`mutable`], JSON by [`from_json`] and its kin (a pillar's dicts as
//! `OrderedDict`s, a merge's result typed as Python's merge leaves it); [`deepcopy`] is
//! `copy.deepcopy`. Tuple literals become [`Tuple`]s, so that they print and test
//! as Python's tuples do, and every container prints as Python's `str()` prints it
//! ([`py_str`]).

use std::sync::{Arc, Mutex};

use indexmap::IndexMap;
use minijinja::value::{Enumerator, Kwargs, Object, ObjectRepr, Value};
use minijinja::{Environment, Error, ErrorKind, State};

use serde_json::Value as Json;

use crate::render::convert::{key_text, to_json};
use crate::workspace::facts::Data;

/// The functions the rewritten literals call.
pub const LIST: &str = "__salt_list";
pub const DICT: &str = "__salt_dict";
pub const TUPLE: &str = "__salt_tuple";

/// Registers the constructors [`wrap_literals`] calls.
pub fn register(env: &mut Environment<'_>) {
    env.add_function(LIST, |v: Value| Ok::<_, Error>(mutable(v)));
    env.add_function(DICT, |v: Value| Ok::<_, Error>(mutable(v)));
    env.add_function(TUPLE, |v: Value| Ok::<_, Error>(tuple(v.try_iter()?.map(mutable).collect())));
    // Salt's `odict` global: `collections.OrderedDict(items_or_mapping, **kwargs)`.
    env.add_function("odict", |args: minijinja::value::Rest<Value>| -> Result<Value, Error> {
        let mut map = IndexMap::new();
        for arg in args.iter() {
            if arg.is_kwargs() || arg.kind() == minijinja::value::ValueKind::Map {
                for k in arg.try_iter()? {
                    let v = arg.get_item(&k)?;
                    map.insert(k, mutable(v));
                }
            } else {
                for pair in arg.try_iter()? {
                    let items: Vec<Value> = pair.try_iter()?.collect();
                    let [k, v] = <[Value; 2]>::try_from(items)
                        .map_err(|_| Error::new(ErrorKind::InvalidOperation, "dictionary update sequence element has the wrong length; 2 is required"))?;
                    map.insert(k, mutable(v));
                }
            }
        }
        Ok(Value::from_object(MDict(Mutex::new(map), true)))
    });
}

/// A Python tuple: a sequence that prints as `(1, 2)` and is no `list`.
#[derive(Debug, Default)]
pub struct Tuple(pub Vec<Value>);

/// A tuple of `items`.
pub fn tuple(items: Vec<Value>) -> Value {
    Value::from_object(Tuple(items))
}

/// Whether `v` is a Python tuple.
pub fn is_tuple(v: &Value) -> bool {
    v.downcast_object_ref::<Tuple>().is_some()
}

/// Python's `str(v)`: a string as it is, anything else as [`py_repr`].
pub fn py_str(v: &Value) -> String {
    match v.as_str() {
        Some(s) => s.to_string(),
        None => py_repr(v),
    }
}

/// What `{{ v }}` prints in Salt: `str()` of the value after Salt's finalizer
/// (`SerializerExtension.finalizer`) made every dict in it a `PrintableDict`, whose string
/// values holding a line break or a tab are written as YAML double-quoted scalars (so the YAML
/// read after the render gets the real characters back).
pub fn printed(v: &Value) -> String {
    match v.as_str() {
        Some(s) => s.to_string(),
        None => {
            let mut out = String::new();
            write_repr(v, 0, true, &mut out);
            out
        }
    }
}

/// Python's `repr(v)` of a template value: `None`, `True`, floats as Python writes them,
/// strings quoted as Python quotes them, `[...]`, `(...)` and `{...}` with the items' reprs.
pub fn py_repr(v: &Value) -> String {
    let mut out = String::new();
    write_repr(v, 0, false, &mut out);
    out
}

/// [`py_repr`], or with `printable` the repr of Salt's `PrintableDict`s.
fn write_repr(v: &Value, depth: usize, printable: bool, out: &mut String) {
    use minijinja::value::ValueKind;
    // A container that holds itself: Python writes `[...]` there.
    if depth > 200 {
        out.push_str("...");
        return;
    }
    let items = |v: &Value| v.try_iter().map(|it| it.collect::<Vec<_>>()).unwrap_or_default();
    match v.kind() {
        ValueKind::None => out.push_str("None"),
        ValueKind::Bool => out.push_str(if v.is_true() { "True" } else { "False" }),
        ValueKind::Number if !v.is_integer() => out.push_str(&crate::py::builtins::float_repr(f64::try_from(v.clone()).unwrap_or(f64::NAN))),
        ValueKind::String => out.push_str(&crate::py::builtins::repr_str(v.as_str().unwrap_or_default())),
        ValueKind::Seq | ValueKind::Iterable => {
            let (open, close) = if is_tuple(v) { ('(', ')') } else { ('[', ']') };
            let all = items(v);
            out.push(open);
            for (i, item) in all.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_repr(item, depth + 1, printable, out);
            }
            if open == '(' && all.len() == 1 {
                out.push(',');
            }
            out.push(close);
        }
        ValueKind::Map if !printable && is_ordered_dict(v) => {
            // Python 3.11's `OrderedDict.__repr__`.
            let keys = items(v);
            if keys.is_empty() {
                out.push_str("OrderedDict()");
                return;
            }
            out.push_str("OrderedDict([");
            for (i, k) in keys.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                out.push('(');
                write_repr(k, depth + 1, false, out);
                out.push_str(", ");
                write_repr(&v.get_item(k).unwrap_or_default(), depth + 1, false, out);
                out.push(')');
            }
            out.push_str("])");
        }
        ValueKind::Map => {
            out.push('{');
            for (i, k) in items(v).iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_repr(k, depth + 1, false, out);
                out.push_str(": ");
                let item = v.get_item(k).unwrap_or_default();
                match item.as_str() {
                    Some(s) if printable && s.contains(['\n', '\r', '\t']) => out.push_str(&crate::py::yaml_dump::double_quoted_line(s)),
                    _ => write_repr(&item, depth + 1, printable, out),
                }
            }
            out.push('}');
        }
        _ => out.push_str(&v.to_string()),
    }
}

impl Object for Tuple {
    fn repr(self: &Arc<Self>) -> ObjectRepr {
        ObjectRepr::Seq
    }
    fn get_value(self: &Arc<Self>, key: &Value) -> Option<Value> {
        index(self.0.len(), key).map(|i| self.0[i].clone())
    }
    fn enumerate(self: &Arc<Self>) -> Enumerator {
        Enumerator::Values(self.0.clone())
    }
    fn enumerator_len(self: &Arc<Self>) -> Option<usize> {
        Some(self.0.len())
    }
    fn render(self: &Arc<Self>, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&py_repr(&Value::from_dyn_object(self.clone())))
    }
}

/// A Python list.
#[derive(Debug, Default)]
pub struct MList(pub Mutex<Vec<Value>>);

/// A Python dict (insertion-ordered, as Python's); `.1`: an `OrderedDict` (Salt's `odict`),
/// which YAML writes in its own order and `str()` as `OrderedDict([...])`.
#[derive(Debug, Default)]
pub struct MDict(pub Mutex<IndexMap<Value, Value>>, pub bool);

/// Whether `v` is an `OrderedDict`.
pub fn is_ordered_dict(v: &Value) -> bool {
    v.downcast_object_ref::<MDict>().is_some_and(|d| d.1)
}

/// `v` with every list and map in it replaced by a mutable one (those already mutable kept, so
/// that aliases stay aliases).
pub fn mutable(v: Value) -> Value {
    if v.downcast_object_ref::<MList>().is_some() || v.downcast_object_ref::<MDict>().is_some() || v.downcast_object_ref::<Watched>().is_some() || is_tuple(&v)
    {
        return v;
    }
    match v.kind() {
        minijinja::value::ValueKind::Seq => {
            let items: Vec<Value> = v.try_iter().map(|it| it.map(mutable).collect()).unwrap_or_default();
            Value::from_object(MList(Mutex::new(items)))
        }
        minijinja::value::ValueKind::Map => {
            let mut map = IndexMap::new();
            if let Ok(keys) = v.try_iter() {
                for k in keys {
                    let val = v.get_item(&k).unwrap_or(Value::UNDEFINED);
                    map.insert(k, mutable(val));
                }
            }
            Value::from_object(MDict(Mutex::new(map), false))
        }
        _ => v,
    }
}

/// The minion's grains, pillar or options as a template gets them: a dict that converts a key
/// when the template reads it, recording which (one key: [`Data::get`]; anything that sees
/// the whole dict, iterating, printing, changing it: [`Data::whole`], after which it is a
/// plain [`MDict`] inside). Reading a key returns the same object each time, so a change made
/// through it is seen by later reads, as Python's shared dict would.
#[derive(Debug)]
pub struct Watched {
    data: Data,
    state: Mutex<WatchState>,
}

#[derive(Debug)]
enum WatchState {
    /// The keys read so far (each converted once).
    Keys(std::collections::HashMap<String, Value>),
    /// All of it, as a dict.
    Whole(Arc<MDict>),
}

/// `data` for a template.
pub fn watched(data: &Data) -> Value {
    Value::from_object(Watched { data: data.clone(), state: Mutex::new(WatchState::Keys(Default::default())) })
}

impl Watched {
    /// One top-level value as a template gets it: a rendered pillar's dicts are `OrderedDict`s,
    /// as Salt's YAML renderer builds them (the pillar itself is a plain dict).
    fn convert(&self, v: &serde_json::Value) -> Value {
        from_data(&self.data, v)
    }

    /// The whole dict (made now, from the keys read so far and the rest of the data).
    fn whole(&self) -> Arc<MDict> {
        let mut state = lock(&self.state);
        if let WatchState::Keys(read) = &mut *state {
            let mut map = IndexMap::new();
            if let serde_json::Value::Object(all) = self.data.whole() {
                for (k, v) in all {
                    let v = read.remove(k).unwrap_or_else(|| self.convert(v));
                    map.insert(Value::from(k.as_str()), v);
                }
            }
            *state = WatchState::Whole(Arc::new(MDict(Mutex::new(map), false)));
        }
        match &*state {
            WatchState::Whole(d) => d.clone(),
            WatchState::Keys(_) => Arc::new(MDict::default()),
        }
    }

    /// The whole data as the template left it, when a value it read was changed in place
    /// (`None`: unchanged). Compared without recording: the reads were recorded when made.
    pub fn changed(&self) -> Option<serde_json::Value> {
        let before = self.data.unrecorded();
        let state = lock(&self.state);
        match &*state {
            WatchState::Keys(read) => {
                let mut after: Option<serde_json::Value> = None;
                for (k, v) in read {
                    let now = to_json(v);
                    if before.get(k) != Some(&now) {
                        let whole = after.get_or_insert_with(|| before.clone());
                        whole.as_object_mut()?.insert(k.clone(), now);
                    }
                }
                after
            }
            WatchState::Whole(d) => {
                let now = to_json(&Value::from_dyn_object(d.clone()));
                (now != *before).then_some(now)
            }
        }
    }

    /// The value of one key, read (and recorded) through the data.
    fn key(&self, key: &str) -> Option<Value> {
        let mut state = lock(&self.state);
        match &mut *state {
            WatchState::Whole(d) => lock(&d.0).get(&Value::from(key)).cloned(),
            WatchState::Keys(read) => {
                if let Some(v) = read.get(key) {
                    return Some(v.clone());
                }
                let v = self.convert(self.data.get(key)?);
                read.insert(key.to_string(), v.clone());
                Some(v)
            }
        }
    }
}

/// The dict `v` is, to change in place: an [`MDict`], or a [`Watched`] one made whole.
pub fn dict_of(v: &Value) -> Option<Arc<MDict>> {
    match v.downcast_object::<MDict>() {
        Some(d) => Some(d),
        None => v.downcast_object_ref::<Watched>().map(Watched::whole),
    }
}

impl Object for Watched {
    fn repr(self: &Arc<Self>) -> ObjectRepr {
        ObjectRepr::Map
    }
    fn get_value(self: &Arc<Self>, key: &Value) -> Option<Value> {
        match key.as_str() {
            Some(k) => self.key(k),
            None => self.whole().get_value_of(key),
        }
    }
    fn enumerate(self: &Arc<Self>) -> Enumerator {
        Enumerator::Values(lock(&self.whole().0).keys().cloned().collect())
    }
    fn enumerator_len(self: &Arc<Self>) -> Option<usize> {
        Some(lock(&self.whole().0).len())
    }
    fn render(self: &Arc<Self>, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&py_repr(&Value::from_dyn_object(self.whole())))
    }
    fn call_method(self: &Arc<Self>, state: &State<'_, '_>, method: &str, args: &[Value]) -> Result<Value, Error> {
        // `d.get(key[, default])`: one key.
        if let ("get", Some(k), false) = (method, args.first().and_then(Value::as_str), args.last().is_some_and(Value::is_kwargs)) {
            if args.len() <= 2 {
                return Ok(self.key(k).unwrap_or_else(|| args.get(1).cloned().unwrap_or(Value::from(()))));
            }
        }
        self.whole().call_method(state, method, args)
    }
}

impl MDict {
    fn get_value_of(&self, key: &Value) -> Option<Value> {
        lock(&self.0).get(key).cloned()
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

fn arg(args: &[Value], i: usize, method: &str) -> Result<Value, Error> {
    args.get(i).cloned().ok_or_else(|| Error::new(ErrorKind::MissingArgument, format!("{method}() takes an argument")))
}

/// Python's index rules: negative from the end.
fn index(len: usize, i: &Value) -> Option<usize> {
    let i = i64::try_from(i.clone()).ok()?;
    let i = if i < 0 { len as i64 + i } else { i };
    (0..len as i64).contains(&i).then_some(i as usize)
}

impl Object for MList {
    fn repr(self: &Arc<Self>) -> ObjectRepr {
        ObjectRepr::Seq
    }
    fn get_value(self: &Arc<Self>, key: &Value) -> Option<Value> {
        let items = lock(&self.0);
        index(items.len(), key).map(|i| items[i].clone())
    }
    fn enumerate(self: &Arc<Self>) -> Enumerator {
        Enumerator::Values(lock(&self.0).clone())
    }
    fn enumerator_len(self: &Arc<Self>) -> Option<usize> {
        Some(lock(&self.0).len())
    }
    fn render(self: &Arc<Self>, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&py_repr(&Value::from_dyn_object(self.clone())))
    }
    fn call_method(self: &Arc<Self>, _state: &State<'_, '_>, method: &str, args: &[Value]) -> Result<Value, Error> {
        super::budget::check()?;
        // The items to add are read before this list is locked: they may be this list itself
        // (`l.extend(l)`), whose lock is not reentrant.
        let more: Vec<Value> = match method {
            "extend" => arg(args, 0, method)?.try_iter()?.map(mutable).collect(),
            _ => Vec::new(),
        };
        let mut items = lock(&self.0);
        match method {
            "append" => items.push(mutable(arg(args, 0, method)?)),
            "extend" => items.extend(more),
            "insert" => {
                let at = i64::try_from(arg(args, 0, method)?)?;
                let len = items.len() as i64;
                let at = if at < 0 { (len + at).max(0) } else { at.min(len) } as usize;
                items.insert(at, mutable(arg(args, 1, method)?));
            }
            "pop" => {
                let at = match args.first() {
                    Some(i) => index(items.len(), i),
                    None => items.len().checked_sub(1),
                };
                let Some(at) = at else { return Err(Error::new(ErrorKind::InvalidOperation, "pop index out of range")) };
                return Ok(items.remove(at));
            }
            "remove" => {
                let x = arg(args, 0, method)?;
                let Some(at) = items.iter().position(|v| *v == x) else {
                    return Err(Error::new(ErrorKind::InvalidOperation, "list.remove(x): x not in list"));
                };
                items.remove(at);
            }
            "index" => {
                let x = arg(args, 0, method)?;
                return items
                    .iter()
                    .position(|v| *v == x)
                    .map(Value::from)
                    .ok_or_else(|| Error::new(ErrorKind::InvalidOperation, format!("{x} is not in list")));
            }
            "count" => {
                let x = arg(args, 0, method)?;
                return Ok(Value::from(items.iter().filter(|v| **v == x).count()));
            }
            "reverse" => items.reverse(),
            "sort" => items.sort(),
            "clear" => items.clear(),
            "copy" => return Ok(Value::from_object(MList(Mutex::new(items.clone())))),
            _ => return Err(Error::from(ErrorKind::UnknownMethod)),
        }
        Ok(Value::from(()))
    }
}

impl Object for MDict {
    fn repr(self: &Arc<Self>) -> ObjectRepr {
        ObjectRepr::Map
    }
    fn get_value(self: &Arc<Self>, key: &Value) -> Option<Value> {
        lock(&self.0).get(key).cloned()
    }
    fn enumerate(self: &Arc<Self>) -> Enumerator {
        Enumerator::Values(lock(&self.0).keys().cloned().collect())
    }
    fn enumerator_len(self: &Arc<Self>) -> Option<usize> {
        Some(lock(&self.0).len())
    }
    fn render(self: &Arc<Self>, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&py_repr(&Value::from_dyn_object(self.clone())))
    }
    fn call_method(self: &Arc<Self>, _state: &State<'_, '_>, method: &str, args: &[Value]) -> Result<Value, Error> {
        super::budget::check()?;
        // Keyword arguments come last, as one map (`d.update(a=1)`).
        let (args, kwargs): (&[Value], Option<Kwargs>) = match args.split_last() {
            Some((last, rest)) if last.is_kwargs() => (rest, Kwargs::try_from(last.clone()).ok()),
            _ => (args, None),
        };
        // The pairs `update` adds are read before this dict is locked: they may come from this
        // dict itself (`d.update(d)`), whose lock is not reentrant.
        let mut pairs: Vec<(Value, Value)> = Vec::new();
        if let (Some(other), "update") = (args.first(), method) {
            if other.kind() == minijinja::value::ValueKind::Map {
                for k in other.try_iter()? {
                    let v = other.get_item(&k)?;
                    pairs.push((k, mutable(v)));
                }
            } else {
                // A list of pairs.
                for pair in other.try_iter()? {
                    pairs.push((pair.get_item(&Value::from(0))?, mutable(pair.get_item(&Value::from(1))?)));
                }
            }
        }
        let mut map = lock(&self.0);
        match method {
            "update" => {
                map.extend(pairs);
                if let Some(kw) = kwargs {
                    for k in kw.args() {
                        map.insert(Value::from(k), mutable(kw.get::<Value>(k)?));
                    }
                }
            }
            "setdefault" => {
                let k = arg(args, 0, method)?;
                let d = args.get(1).cloned().map(mutable).unwrap_or(Value::from(()));
                return Ok(map.entry(k).or_insert(d).clone());
            }
            "get" => {
                let k = arg(args, 0, method)?;
                return Ok(map.get(&k).cloned().unwrap_or_else(|| args.get(1).cloned().unwrap_or(Value::from(()))));
            }
            "pop" => {
                let k = arg(args, 0, method)?;
                return match (map.shift_remove(&k), args.get(1)) {
                    (Some(v), _) => Ok(v),
                    (None, Some(d)) => Ok(d.clone()),
                    (None, None) => Err(Error::new(ErrorKind::InvalidOperation, format!("KeyError: {k}"))),
                };
            }
            "keys" => return Ok(Value::from(map.keys().cloned().collect::<Vec<_>>())),
            "values" => return Ok(Value::from(map.values().cloned().collect::<Vec<_>>())),
            "items" => return Ok(Value::from(map.iter().map(|(k, v)| tuple(vec![k.clone(), v.clone()])).collect::<Vec<_>>())),
            "copy" => return Ok(Value::from_object(MDict(Mutex::new(map.clone()), self.1))),
            "clear" => map.clear(),
            _ => return Err(Error::from(ErrorKind::UnknownMethod)),
        }
        Ok(Value::from(()))
    }
}

/// Wraps every list and dict literal inside the template's `{{ }}` and `{% %}` blocks in a call
/// to the mutable constructors (`[1, 2]` becomes `__salt_list([1, 2])`), leaving `{% raw %}`
/// bodies, comments and strings alone. Only characters are inserted, never line breaks, so every
/// line keeps its number.
pub fn wrap_literals(src: &str) -> String {
    let masked = syntax::jinja::mask(src);
    let mut inserts: Vec<(usize, &str)> = Vec::new();
    for b in &masked.blocks {
        if b.kind == syntax::jinja::JinjaKind::Comment || b.keyword.as_deref() == Some("raw") {
            continue;
        }
        // The block's inside: after `{{`/`{%` (and a `-`/`+` marker), before the closer.
        let start = b.range.start + 2;
        let end = b.range.end.saturating_sub(2).max(start);
        let Some(inner) = src.get(start..end) else { continue };
        literals(inner, start, &mut inserts);
    }
    inserts.sort_by_key(|(at, _)| *at);
    let mut out = String::with_capacity(src.len() + inserts.len() * 14);
    let mut last = 0;
    for (at, text) in inserts {
        out.push_str(&src[last..at]);
        out.push_str(text);
        last = at;
    }
    out.push_str(&src[last..]);
    out
}

const OPEN_LIST: &str = "__salt_list(";
const OPEN_DICT: &str = "__salt_dict(";
const OPEN_TUPLE: &str = "__salt_tuple(";

/// What an open bracket is.
#[derive(Clone, Copy, PartialEq)]
enum Open {
    /// A list or dict literal, wrapped.
    Literal,
    /// An index or a call's arguments.
    Other,
    /// Parentheses that are not a call: a tuple when they hold a comma at their own level, or
    /// nothing (`()`). `usize`: the offset of `(`, `bool`: a comma seen.
    Paren(usize, bool),
}

/// Finds the list, dict and tuple literals of one block's inside (`base`: its offset in the
/// source).
fn literals(inner: &str, base: usize, inserts: &mut Vec<(usize, &'static str)>) {
    let bytes = inner.as_bytes();
    let mut stack: Vec<Open> = Vec::new();
    // After `for` and `set` parentheses are a target to unpack into, not a tuple.
    let mut target = false;
    // Whether the parentheses just opened hold nothing yet (`()` is the empty tuple).
    let mut empty = false;
    // Whether a `[` here would be an index (after a name, a closing bracket, a string or a
    // number) rather than a list literal.
    let mut after_operand = false;
    let mut word = String::new();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        match c {
            b'\'' | b'"' => {
                let mut j = i + 1;
                while j < bytes.len() && bytes[j] != c {
                    j += if bytes[j] == b'\\' { 2 } else { 1 };
                }
                i = j + 1;
                after_operand = true;
                empty = false;
                word.clear();
                continue;
            }
            b'[' | b'{' => {
                let literal = c == b'{' || !after_operand;
                if literal {
                    inserts.push((base + i, if c == b'[' { OPEN_LIST } else { OPEN_DICT }));
                }
                stack.push(if literal { Open::Literal } else { Open::Other });
                after_operand = false;
            }
            b']' | b'}' => {
                if stack.pop() == Some(Open::Literal) {
                    inserts.push((base + i + 1, ")"));
                }
                after_operand = true;
            }
            b'(' => {
                stack.push(if after_operand || target { Open::Other } else { Open::Paren(i, false) });
                after_operand = false;
                empty = true;
                i += 1;
                continue;
            }
            b')' => {
                if let Some(Open::Paren(at, comma)) = stack.pop() {
                    if comma || empty {
                        inserts.push((base + at, OPEN_TUPLE));
                        inserts.push((base + i + 1, ")"));
                    }
                }
                after_operand = true;
            }
            b',' => {
                if let Some(Open::Paren(_, comma)) = stack.last_mut() {
                    *comma = true;
                }
                after_operand = false;
            }
            // Names are Unicode's (`grüß`, `ключ`): a byte of a non-ASCII character is part of
            // one (outside a string nothing else non-ASCII is valid Jinja).
            c if c.is_ascii_alphanumeric() || c == b'_' || c >= 0x80 => {
                word.push(c as char);
                empty = false;
                i += 1;
                // A name or a number is an operand; a keyword is an operator.
                if !bytes.get(i).is_some_and(|n| n.is_ascii_alphanumeric() || *n == b'_' || *n >= 0x80) {
                    after_operand = !matches!(
                        word.as_str(),
                        "in" | "and" | "or" | "not" | "if" | "else" | "elif" | "is" | "set" | "for" | "do" | "with" | "return" | "import"
                    );
                    if matches!(word.as_str(), "for" | "set") {
                        target = true;
                    } else if word == "in" {
                        target = false;
                    }
                    word.clear();
                }
                continue;
            }
            c if c.is_ascii_whitespace() => {
                i += 1;
                continue;
            }
            b'=' => {
                target = false;
                after_operand = false;
            }
            _ => after_operand = false,
        }
        empty = false;
        word.clear();
        i += 1;
    }
}

// JSON into a template's values, and back out of them as copies.

/// A JSON value as a template sees it: dicts and lists mutable, as Python's are.
pub fn from_json(v: &Json) -> Value {
    mutable(Value::from_serialize(v))
}

/// A pillar value as a template sees it: every dict in it an `OrderedDict`, as Salt's YAML
/// renderer (`SaltYamlSafeLoader(dictclass=OrderedDict)`) builds the pillar's SLS data; the
/// `yaml` filter writes those in their own order, a plain dict's keys sorted.
pub fn from_json_ordered(v: &Json) -> Value {
    from_json_like(v, &[], true)
}

/// A value of `data` (the pillar) as a template sees it: [`from_json_ordered`] when its dicts
/// are `OrderedDict`s, else [`from_json`].
pub fn from_data(data: &Data, v: &Json) -> Value {
    if data.ordered_dicts() {
        from_json_ordered(v)
    } else {
        from_json(v)
    }
}

/// The pillar itself (or a dict of its values, as `pillar.item` builds): a plain dict whose
/// dicts are `OrderedDict`s when the pillar's are.
pub fn from_data_whole(data: &Data, v: &Json) -> Value {
    from_json_like(v, &[&Value::from_object(MDict::default())], data.ordered_dicts())
}

/// The JSON result of a `dictupdate`-style merge as a template sees it: each dict is of the
/// type Python's merge leaves there, that of the first of `like` (the destination, then the
/// sources, at the same path) with a dict at that path; `ordered` when none has (a template's
/// own values are plain dicts; pass `true` for a pillar value's).
pub fn from_json_like(v: &Json, like: &[&Value], ordered: bool) -> Value {
    match v {
        Json::Object(m) => {
            let at: Vec<Option<Value>> = like.iter().map(|l| Some((*l).clone()).filter(|l| l.kind() == minijinja::value::ValueKind::Map)).collect();
            let flag = at.iter().flatten().next().map(is_ordered_dict).unwrap_or(ordered);
            let mut map = IndexMap::new();
            for (k, item) in m {
                let key = Value::from(k.as_str());
                let subs: Vec<Value> = at.iter().flatten().map(|l| child(l, k)).collect();
                let refs: Vec<&Value> = subs.iter().collect();
                map.insert(key, from_json_like(item, &refs, ordered));
            }
            Value::from_object(MDict(Mutex::new(map), flag))
        }
        Json::Array(items) => {
            let lists: Vec<&Value> = like.iter().copied().filter(|l| l.kind() == minijinja::value::ValueKind::Seq).collect();
            let out = items
                .iter()
                .enumerate()
                .map(|(i, item)| {
                    let subs: Vec<Value> = lists.iter().filter_map(|l| l.get_item_by_index(i).ok()).filter(|x| !x.is_undefined()).collect();
                    let refs: Vec<&Value> = subs.iter().collect();
                    from_json_like(item, &refs, ordered)
                })
                .collect();
            Value::from_object(MList(Mutex::new(out)))
        }
        _ => from_json(v),
    }
}

/// `l[k]` for a JSON key `k` (a non-string key is matched by its `str()`).
pub fn child(l: &Value, k: &str) -> Value {
    let direct = l.get_item(&Value::from(k)).unwrap_or_default();
    if !direct.is_undefined() {
        return direct;
    }
    l.try_iter()
        .ok()
        .and_then(|mut keys| keys.find(|mk| mk.as_str().is_none() && key_text(mk) == k))
        .map(|mk| l.get_item(&mk).unwrap_or_default())
        .unwrap_or_default()
}

/// `copy.deepcopy`: new dicts and lists all the way down, keys kept as they are.
pub fn deepcopy(v: &Value) -> Value {
    if let Some(d) = dict_of(v) {
        let map = d.0.lock().unwrap_or_else(|e| e.into_inner()).clone();
        return Value::from_object(MDict(Mutex::new(map.into_iter().map(|(k, v)| (k, deepcopy(&v))).collect()), d.1));
    }
    if let Some(l) = v.downcast_object::<MList>() {
        let items = l.0.lock().unwrap_or_else(|e| e.into_inner()).clone();
        return Value::from_object(MList(Mutex::new(items.iter().map(deepcopy).collect())));
    }
    match v.kind() {
        minijinja::value::ValueKind::Seq | minijinja::value::ValueKind::Map => deepcopy(&mutable(v.clone())),
        _ => v.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literals_are_wrapped_and_indexes_are_not() {
        let src = "{% set x = [] %}{% set d = {'a': [1, {'b': 2}]} %}\n{{ x[0] }} {{ salt['pillar.get']('k', {}) }} {{ f(a)[1] }} {{ 'ß'[0] }}\n{% for i in [1, 2] %}{% endfor %}{# [not] #}{% raw %}{{ [raw] }}{% endraw %}";
        expect_test::expect![[r#"
            {% set x = __salt_list([]) %}{% set d = __salt_dict({'a': __salt_list([1, __salt_dict({'b': 2})])}) %}
            {{ x[0] }} {{ salt['pillar.get']('k', __salt_dict({})) }} {{ f(a)[1] }} {{ 'ß'[0] }}
            {% for i in __salt_list([1, 2]) %}{% endfor %}{# [not] #}{% raw %}{{ [raw] }}{% endraw %}"#]]
        .assert_eq(&wrap_literals(src));
    }

    #[test]
    fn tuple_literals_are_wrapped_and_targets_and_calls_are_not() {
        let src = "{% for (a, b) in [(1, 2)] %}{{ (1,) }}{{ () }}{{ f(1, 2) }}{{ (1) }}{% endfor %}{% set t = ('a', (x or y)) %}{% macro m(x, y=(1, 2)) %}{% endmacro %}";
        expect_test::expect![[r#"{% for (a, b) in __salt_list([__salt_tuple((1, 2))]) %}{{ __salt_tuple((1,)) }}{{ __salt_tuple(()) }}{{ f(1, 2) }}{{ (1) }}{% endfor %}{% set t = __salt_tuple(('a', (x or y))) %}{% macro m(x, y=__salt_tuple((1, 2))) %}{% endmacro %}"#]]
            .assert_eq(&wrap_literals(src));
    }

    fn render(src: &str) -> String {
        let mut env = Environment::new();
        register(&mut env);
        env.set_unknown_method_callback(minijinja_contrib::pycompat::unknown_method_callback);
        env.render_str(&wrap_literals(src), minijinja::context! {}).unwrap_or_else(|e| format!("error: {e}"))
    }

    #[test]
    fn mutation_is_seen_through_every_name_and_scope() {
        // What Jinja2 over Python objects renders for the same template (Salt 3008).
        let src = "{% set names = [] %}{% set cfg = {'a': {'x': 1}} %}{% set alias = cfg %}\
                   {% for u in ['ß', 'ℝ'] %}{% do names.append(u) %}{% endfor %}\
                   {% do cfg.update({'b': 2}) %}{% do cfg.a.update(y=3) %}{% do names.extend(['💣']) %}\
                   {% do names.insert(0, 'first') %}{{ names | join(',') }} {{ alias.b }} {{ alias.a.y }} \
                   {{ cfg.setdefault('c', []) | length }}{% do cfg.c.append(1) %}{{ cfg.c | length }} {{ names.pop() }} {{ names | length }}";
        assert_eq!(render(src), "first,ß,ℝ,💣 2 3 01 💣 3");
        // A list extended with itself and a dict updated with itself (Python: [1, 1] and
        // {'a': 1}), which once waited on their own lock.
        assert_eq!(render("{% set l = [1] %}{% do l.extend(l) %}{% set d = {'a': 1} %}{% do d.update(d) %}{{ l | length }} {{ d | length }}"), "2 1");
    }
}
