//! What a load gives: [`Node`], a value with its span, [`Value`], and [`YamlError`].

use std::ops::Range;

/// A YAML value with the byte range of the text it was loaded from.
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    pub value: Value,
    pub span: Range<usize>,
}

/// A loaded YAML value. Mappings are ordered pairs, as Salt loads into `OrderedDict`.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(String),
    Seq(Vec<Node>),
    Map(Vec<(Node, Node)>),
}

/// A load failure with the byte offset it is about, and PyYAML-like wording.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct YamlError {
    pub offset: usize,
    pub message: String,
}

impl Node {
    pub fn as_str(&self) -> Option<&str> {
        match &self.value {
            Value::Str(s) => Some(s),
            _ => None,
        }
    }
    pub fn as_map(&self) -> Option<&[(Node, Node)]> {
        match &self.value {
            Value::Map(m) => Some(m),
            _ => None,
        }
    }
    pub fn as_seq(&self) -> Option<&[Node]> {
        match &self.value {
            Value::Seq(s) => Some(s),
            _ => None,
        }
    }
    /// The value for a string key of a mapping.
    pub fn get(&self, key: &str) -> Option<&Node> {
        self.as_map()?.iter().find(|(k, _)| k.as_str() == Some(key)).map(|(_, v)| v)
    }
}

impl Value {
    /// The Python type name Salt prints in messages (`type(x).__name__`).
    pub fn py_type(&self) -> &'static str {
        match self {
            Value::Null => "NoneType",
            Value::Bool(_) => "bool",
            Value::Int(_) => "int",
            Value::Float(_) => "float",
            Value::Str(_) => "str",
            Value::Seq(_) => "list",
            Value::Map(_) => "OrderedDict",
        }
    }
}
