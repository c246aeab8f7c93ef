//! Python's mutable lists and dicts inside templates. Salt's Jinja is Jinja2 over Python
//! objects, so `{% do names.append(x) %}` and `{% do mapdata.update(other) %}` change the list
//! or dict every other name bound to it sees, inside loops and macros too. minijinja's values
//! are immutable, so templates get [`MList`] and [`MDict`] instead: list and dict literals are
//! wrapped in constructor calls by [`wrap_literals`] (a rewrite that keeps every line where it
//! was), and data that enters a template (grains, pillar, imported YAML, function results) is
//! made mutable by [`mutable`].

use std::sync::{Arc, Mutex};

use indexmap::IndexMap;
use minijinja::value::{Enumerator, Kwargs, Object, ObjectRepr, Value};
use minijinja::{Environment, Error, ErrorKind, State};

/// The functions the rewritten literals call.
pub const LIST: &str = "__salt_list";
pub const DICT: &str = "__salt_dict";

/// Registers the constructors [`wrap_literals`] calls.
pub fn register(env: &mut Environment<'_>) {
    env.add_function(LIST, |v: Value| Ok::<_, Error>(mutable(v)));
    env.add_function(DICT, |v: Value| Ok::<_, Error>(mutable(v)));
}

/// A Python list.
#[derive(Debug, Default)]
pub struct MList(pub Mutex<Vec<Value>>);

/// A Python dict (insertion-ordered, as Python's).
#[derive(Debug, Default)]
pub struct MDict(pub Mutex<IndexMap<Value, Value>>);

/// `v` with every list and map in it replaced by a mutable one (those already mutable kept, so
/// that aliases stay aliases).
pub fn mutable(v: Value) -> Value {
    if v.downcast_object_ref::<MList>().is_some() || v.downcast_object_ref::<MDict>().is_some() {
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
            Value::from_object(MDict(Mutex::new(map)))
        }
        _ => v,
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
    fn call_method(self: &Arc<Self>, _state: &State<'_, '_>, method: &str, args: &[Value]) -> Result<Value, Error> {
        let mut items = lock(&self.0);
        match method {
            "append" => items.push(mutable(arg(args, 0, method)?)),
            "extend" => {
                let more = arg(args, 0, method)?;
                items.extend(more.try_iter()?.map(mutable));
            }
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
    fn call_method(self: &Arc<Self>, _state: &State<'_, '_>, method: &str, args: &[Value]) -> Result<Value, Error> {
        // Keyword arguments come last, as one map (`d.update(a=1)`).
        let (args, kwargs): (&[Value], Option<Kwargs>) = match args.split_last() {
            Some((last, rest)) if last.is_kwargs() => (rest, Kwargs::try_from(last.clone()).ok()),
            _ => (args, None),
        };
        let mut map = lock(&self.0);
        match method {
            "update" => {
                if let Some(other) = args.first() {
                    let other = other.clone();
                    if other.kind() == minijinja::value::ValueKind::Map {
                        for k in other.try_iter()? {
                            let v = other.get_item(&k)?;
                            map.insert(k, mutable(v));
                        }
                    } else {
                        // A list of pairs.
                        for pair in other.try_iter()? {
                            map.insert(pair.get_item(&Value::from(0))?, mutable(pair.get_item(&Value::from(1))?));
                        }
                    }
                }
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
            "items" => return Ok(Value::from(map.iter().map(|(k, v)| Value::from(vec![k.clone(), v.clone()])).collect::<Vec<_>>())),
            "copy" => return Ok(Value::from_object(MDict(Mutex::new(map.clone())))),
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

/// Finds the list and dict literals of one block's inside (`base`: its offset in the source).
fn literals(inner: &str, base: usize, inserts: &mut Vec<(usize, &'static str)>) {
    let bytes = inner.as_bytes();
    // Open brackets: (offset, whether it is a literal we wrap).
    let mut stack: Vec<bool> = Vec::new();
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
                word.clear();
                continue;
            }
            b'[' | b'{' => {
                let literal = c == b'{' || !after_operand;
                if literal {
                    inserts.push((base + i, if c == b'[' { OPEN_LIST } else { OPEN_DICT }));
                }
                stack.push(literal);
                after_operand = false;
            }
            b']' | b'}' => {
                if stack.pop() == Some(true) {
                    inserts.push((base + i + 1, ")"));
                }
                after_operand = true;
            }
            b'(' => {
                stack.push(false);
                after_operand = false;
            }
            b')' => {
                stack.pop();
                after_operand = true;
            }
            c if c.is_ascii_alphanumeric() || c == b'_' => {
                word.push(c as char);
                i += 1;
                // A name or a number is an operand; a keyword is an operator.
                if !bytes.get(i).is_some_and(|n| n.is_ascii_alphanumeric() || *n == b'_') {
                    after_operand = !matches!(
                        word.as_str(),
                        "in" | "and" | "or" | "not" | "if" | "else" | "elif" | "is" | "set" | "for" | "do" | "with" | "return" | "import"
                    );
                    word.clear();
                }
                continue;
            }
            c if c.is_ascii_whitespace() => {}
            b'.' => after_operand = false,
            _ => after_operand = false,
        }
        word.clear();
        i += 1;
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
    }
}
