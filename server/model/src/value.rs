//! Python-like values for Salt's high data: ordered dicts, lists and scalars that remember
//! the file and span they came from, with Python's equality, `str()` and `repr()`.

use std::ops::Range;

use syntax::yaml::{self, Node, Value};

/// Index of a file in the `FileTable` of the compilation that read it.
pub type FileId = u32;

/// Where a value was written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Loc {
    pub file: FileId,
    pub span: Range<usize>,
}

/// A value plus where it came from (`None` for values Salt synthesises).
#[derive(Debug, Clone)]
pub struct Val {
    pub v: V,
    pub at: Option<Loc>,
}

#[derive(Debug, Clone)]
pub enum V {
    None,
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(String),
    List(Vec<Val>),
    Dict(Dict),
}

/// An insertion-ordered dict with Python semantics: assigning an existing key keeps its place.
#[derive(Debug, Clone, Default)]
pub struct Dict(pub Vec<(Val, Val)>);

impl PartialEq for Val {
    fn eq(&self, other: &Val) -> bool {
        self.v == other.v
    }
}

impl PartialEq for V {
    /// Python `==`: numbers compare across int/float/bool, dicts ignore order.
    fn eq(&self, other: &V) -> bool {
        match (self, other) {
            (V::None, V::None) => true,
            (V::Str(a), V::Str(b)) => a == b,
            (V::List(a), V::List(b)) => a == b,
            (V::Dict(a), V::Dict(b)) => a.0.len() == b.0.len() && a.0.iter().all(|(k, v)| b.get_val(k).is_some_and(|w| w == v)),
            _ => match (self.num(), other.num()) {
                (Some(a), Some(b)) => a == b,
                _ => false,
            },
        }
    }
}

impl V {
    fn num(&self) -> Option<f64> {
        match self {
            V::Bool(b) => Some(*b as i64 as f64),
            V::Int(i) => Some(*i as f64),
            V::Float(f) => Some(*f),
            _ => None,
        }
    }
}

/// An edit of one file's text as the locations of its data see it: bytes `start..old_end` of
/// the old text became `start..new_end` of the new one (their common prefix and suffix kept).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TextEdit {
    pub file: FileId,
    pub start: usize,
    pub old_end: usize,
    pub new_end: usize,
}

impl TextEdit {
    /// The edit between two texts of `file`; `None` when they are equal.
    pub fn between(file: FileId, old: &str, new: &str) -> Option<TextEdit> {
        let syntax::text_diff::Changed { start, old_end, new_end } = syntax::text_diff::changed(old, new)?;
        Some(TextEdit { file, start, old_end, new_end })
    }

    /// Where `loc` is in the new text: the same before the edit (or in another file), moved
    /// after it, `None` across it.
    pub fn moved(&self, loc: &Loc) -> Option<Loc> {
        if loc.file != self.file || loc.span.end <= self.start {
            Some(loc.clone())
        } else if loc.span.start >= self.old_end {
            Some(self.after(loc))
        } else {
            None
        }
    }

    /// Moves `loc` when it lies after the edit (one across it stays where it was).
    pub fn shift_after(&self, loc: &mut Loc) {
        if loc.file == self.file && loc.span.start >= self.old_end {
            *loc = self.after(loc);
        }
    }

    fn after(&self, loc: &Loc) -> Loc {
        let by = |x: usize| x - self.old_end + self.new_end;
        Loc { file: loc.file, span: by(loc.span.start)..by(loc.span.end) }
    }
}

impl Val {
    /// Calls `f` on the location of this value and of every key and value inside it.
    pub fn locs_mut(&mut self, f: &mut dyn FnMut(&mut Option<Loc>)) {
        f(&mut self.at);
        match &mut self.v {
            V::List(l) => l.iter_mut().for_each(|x| x.locs_mut(f)),
            V::Dict(d) => d.0.iter_mut().for_each(|(k, x)| {
                k.locs_mut(f);
                x.locs_mut(f)
            }),
            _ => {}
        }
    }

    pub fn new(v: V) -> Val {
        Val { v, at: None }
    }
    pub fn str(s: impl Into<String>) -> Val {
        Val::new(V::Str(s.into()))
    }
    pub fn at(mut self, at: Option<Loc>) -> Val {
        self.at = at;
        self
    }
    pub fn list(items: Vec<Val>) -> Val {
        Val::new(V::List(items))
    }
    pub fn dict(d: Dict) -> Val {
        Val::new(V::Dict(d))
    }

    /// Convert a loaded YAML node, recording `file` for every span.
    pub fn from_node(node: &Node, file: FileId) -> Val {
        Val::from_node_at(node, file, 0)
    }

    /// [`Val::from_node`] for a node whose spans start `by` bytes into the file.
    pub fn from_node_at(node: &Node, file: FileId, by: usize) -> Val {
        let v = match &node.value {
            Value::Null => V::None,
            Value::Bool(b) => V::Bool(*b),
            Value::Int(i) => V::Int(*i),
            Value::Float(f) => V::Float(*f),
            Value::Str(s) => V::Str(s.clone()),
            Value::Seq(items) => V::List(items.iter().map(|n| Val::from_node_at(n, file, by)).collect()),
            Value::Map(pairs) => V::Dict(Dict(pairs.iter().map(|(k, v)| (Val::from_node_at(k, file, by), Val::from_node_at(v, file, by))).collect())),
        };
        Val { v, at: Some(Loc { file, span: node.span.start + by..node.span.end + by }) }
    }

    /// Convert a load that may be made of cached blocks (see [`syntax::yaml_reuse`]).
    pub fn from_loaded(loaded: &syntax::yaml_reuse::Loaded, file: FileId) -> Val {
        use syntax::yaml_reuse::Loaded;
        match loaded {
            Loaded::Whole(node) => Val::from_node(node, file),
            Loaded::Blocks { span, .. } => {
                let pairs = loaded.block_pairs().map(|(k, v, by)| (Val::from_node_at(k, file, by), Val::from_node_at(v, file, by))).collect();
                Val { v: V::Dict(Dict(pairs)), at: Some(Loc { file, span: span.clone() }) }
            }
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match &self.v {
            V::Str(s) => Some(s),
            _ => None,
        }
    }
    pub fn as_dict(&self) -> Option<&Dict> {
        match &self.v {
            V::Dict(d) => Some(d),
            _ => None,
        }
    }
    pub fn as_dict_mut(&mut self) -> Option<&mut Dict> {
        match &mut self.v {
            V::Dict(d) => Some(d),
            _ => None,
        }
    }
    pub fn as_list(&self) -> Option<&Vec<Val>> {
        match &self.v {
            V::List(l) => Some(l),
            _ => None,
        }
    }
    pub fn as_list_mut(&mut self) -> Option<&mut Vec<Val>> {
        match &mut self.v {
            V::List(l) => Some(l),
            _ => None,
        }
    }
    pub fn is_none(&self) -> bool {
        matches!(self.v, V::None)
    }
    /// Whether Python could hash it (scalars only; lists and dicts are unhashable).
    pub fn is_hashable(&self) -> bool {
        !matches!(self.v, V::List(_) | V::Dict(_))
    }
    /// A string equal for keys Python considers equal.
    pub fn canonical(&self) -> String {
        match &self.v {
            V::None => "none".into(),
            V::Bool(b) => format!("n:{}", *b as i64 as f64),
            V::Int(i) => format!("n:{}", *i as f64),
            V::Float(f) => format!("n:{f}"),
            V::Str(s) => format!("s:{s}"),
            V::List(_) | V::Dict(_) => format!("u:{}", self.py_repr()),
        }
    }

    /// Python truthiness.
    pub fn truthy(&self) -> bool {
        match &self.v {
            V::None => false,
            V::Bool(b) => *b,
            V::Int(i) => *i != 0,
            V::Float(f) => *f != 0.0,
            V::Str(s) => !s.is_empty(),
            V::List(l) => !l.is_empty(),
            V::Dict(d) => !d.0.is_empty(),
        }
    }
    /// `type(x).__name__` for values loaded into `OrderedDict`s.
    pub fn py_type(&self) -> &'static str {
        match &self.v {
            V::None => "NoneType",
            V::Bool(_) => "bool",
            V::Int(_) => "int",
            V::Float(_) => "float",
            V::Str(_) => "str",
            V::List(_) => "list",
            V::Dict(_) => "OrderedDict",
        }
    }

    /// Python `str(x)`.
    pub fn py_str(&self) -> String {
        match &self.v {
            V::Str(s) => s.clone(),
            _ => self.py_repr(),
        }
    }

    /// [`Val::py_str`], borrowed when the value is a string.
    pub fn py_cow(&self) -> std::borrow::Cow<'_, str> {
        match &self.v {
            V::Str(s) => std::borrow::Cow::Borrowed(s),
            _ => std::borrow::Cow::Owned(self.py_repr()),
        }
    }

    /// Python `repr(x)` (Python 3.11 `OrderedDict` style).
    pub fn py_repr(&self) -> String {
        match &self.v {
            V::None => "None".into(),
            V::Bool(true) => "True".into(),
            V::Bool(false) => "False".into(),
            V::Int(i) => i.to_string(),
            V::Float(f) => yaml::py_float(*f),
            V::Str(s) => py_str_repr(s),
            V::List(l) => format!("[{}]", l.iter().map(Val::py_repr).collect::<Vec<_>>().join(", ")),
            V::Dict(d) => {
                if d.0.is_empty() {
                    "OrderedDict()".into()
                } else {
                    format!("OrderedDict([{}])", d.0.iter().map(|(k, v)| format!("({}, {})", k.py_repr(), v.py_repr())).collect::<Vec<_>>().join(", "))
                }
            }
        }
    }

    /// JSON as Salt's `--out=json` prints it (dict keys become strings).
    /// A value as `json.loads` gives it (objects keep their order, as Python's dicts do); every
    /// part is placed at `at`.
    pub fn from_json(j: &serde_json::Value, at: Option<Loc>) -> Val {
        let v = match j {
            serde_json::Value::Null => V::None,
            serde_json::Value::Bool(b) => V::Bool(*b),
            serde_json::Value::Number(n) => match n.as_i64() {
                Some(i) => V::Int(i),
                None => V::Float(n.as_f64().unwrap_or(f64::NAN)),
            },
            serde_json::Value::String(s) => V::Str(s.clone()),
            serde_json::Value::Array(items) => V::List(items.iter().map(|i| Val::from_json(i, at.clone())).collect()),
            serde_json::Value::Object(m) => {
                let mut d = Dict::new();
                for (k, v) in m {
                    d.set(Val::str(k.as_str()).at(at.clone()), Val::from_json(v, at.clone()));
                }
                V::Dict(d)
            }
        };
        Val { v, at }
    }

    pub fn to_json(&self) -> serde_json::Value {
        use serde_json::Value as J;
        match &self.v {
            V::None => J::Null,
            V::Bool(b) => J::Bool(*b),
            V::Int(i) => J::from(*i),
            V::Float(f) => serde_json::Number::from_f64(*f).map(J::Number).unwrap_or(J::Null),
            V::Str(s) => J::String(s.clone()),
            V::List(l) => J::Array(l.iter().map(Val::to_json).collect()),
            V::Dict(d) => d.to_json(),
        }
    }

    /// This value as a JSON object key, as `json.dumps` writes a dict key.
    pub fn json_key(&self) -> String {
        match &self.v {
            V::Str(s) => s.clone(),
            V::None => "null".into(),
            V::Bool(b) => b.to_string(),
            _ => self.py_str(),
        }
    }
}

/// Python's `repr(str)` (one implementation, shared with the matchers' explanations).
pub fn py_str_repr(s: &str) -> String {
    crate::py::builtins::repr_str(s)
}

impl Dict {
    pub fn new() -> Dict {
        Dict(Vec::new())
    }
    /// As [`Val::to_json`] writes a dict (without copying it into a `Val` first).
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::Value::Object(self.0.iter().map(|(k, v)| (k.json_key(), v.to_json())).collect())
    }
    pub fn len(&self) -> usize {
        self.0.len()
    }
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
    fn pos_val(&self, key: &Val) -> Option<usize> {
        self.0.iter().position(|(k, _)| k.v == key.v)
    }
    fn pos(&self, key: &str) -> Option<usize> {
        self.0.iter().position(|(k, _)| k.as_str() == Some(key))
    }
    pub fn get(&self, key: &str) -> Option<&Val> {
        self.pos(key).map(|i| &self.0[i].1)
    }
    pub fn get_mut(&mut self, key: &str) -> Option<&mut Val> {
        self.pos(key).map(move |i| &mut self.0[i].1)
    }
    pub fn get_val(&self, key: &Val) -> Option<&Val> {
        self.pos_val(key).map(|i| &self.0[i].1)
    }
    pub fn contains(&self, key: &str) -> bool {
        self.pos(key).is_some()
    }
    /// `d[key] = value`: an existing key keeps its position (and its key's location).
    pub fn set(&mut self, key: Val, value: Val) {
        match self.pos_val(&key) {
            Some(i) => self.0[i].1 = value,
            None => self.0.push((key, value)),
        }
    }
    pub fn set_str(&mut self, key: &str, value: Val) {
        self.set(Val::str(key), value)
    }
    pub fn remove(&mut self, key: &str) -> Option<(Val, Val)> {
        self.pos(key).map(|i| self.0.remove(i))
    }
    /// The first key, as `next(iter(d))`.
    pub fn first_key(&self) -> Option<&Val> {
        self.0.first().map(|(k, _)| k)
    }
    pub fn first_key_str(&self) -> Option<&str> {
        self.first_key().and_then(Val::as_str)
    }
    pub fn keys(&self) -> impl Iterator<Item = &Val> {
        self.0.iter().map(|(k, _)| k)
    }
    /// Positions of keys by their canonical form, for bulk lookups in large dicts.
    pub fn index(&self) -> std::collections::HashMap<String, usize> {
        self.0.iter().enumerate().map(|(i, (k, _))| (k.canonical(), i)).collect()
    }
    /// `d.update(other)`, in linear time.
    pub fn update(&mut self, other: Dict) {
        let mut index = self.index();
        self.update_indexed(other, &mut index);
    }
    /// [`Dict::update`] with `index` already built by [`Dict::index`] (and kept current).
    pub fn update_indexed(&mut self, other: Dict, index: &mut std::collections::HashMap<String, usize>) {
        for (k, v) in other.0 {
            let c = k.canonical();
            match index.get(&c) {
                Some(&i) => self.0[i].1 = v,
                None => {
                    index.insert(c, self.0.len());
                    self.0.push((k, v));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A large file comes back from the block cache in parts; converting the parts must give
    /// the values and spans of converting the whole-text load, on the first load and on a
    /// reload after an edit (when later blocks moved).
    #[test]
    fn block_loads_convert_like_the_whole_load() {
        let mut text = String::from("# ß comment\n");
        for i in 0..300 {
            text.push_str(&format!("id_{i}_ℝ:\n  file.managed:\n    - contents: \"💣 {i}\"\n    - require: [{{pkg: p{i}}}]\n"));
        }
        for round in 0..3 {
            if round == 2 {
                text = text.replacen("💣 7\"", "💣 7 longer\"", 1);
            }
            let loaded = syntax::yaml_reuse::load_shared(&text).expect("loads");
            assert!(matches!(loaded, syntax::yaml_reuse::Loaded::Blocks { .. }), "a large file loads by blocks");
            let whole = Val::from_node(&syntax::yaml::load(&text).expect("loads"), 3);
            assert_eq!(format!("{:?}", Val::from_loaded(&loaded, 3)), format!("{whole:?}"));
        }
    }

    #[test]
    fn python_repr_and_equality() {
        let mut d = Dict::new();
        d.set_str("a", Val::new(V::Int(1)));
        d.set_str("b", Val::list(vec![Val::str("it's"), Val::new(V::None)]));
        d.set_str("a", Val::new(V::Bool(true)));
        assert_eq!(Val::dict(d.clone()).py_repr(), "OrderedDict([('a', True), ('b', [\"it's\", None])])");
        let mut e = Dict::new();
        e.set_str("b", Val::list(vec![Val::str("it's"), Val::new(V::None)]));
        e.set_str("a", Val::new(V::Float(1.0)));
        assert_eq!(Val::dict(d), Val::dict(e));
    }
}
