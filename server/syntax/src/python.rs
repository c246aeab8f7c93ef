//! Python source to the facts Salt's loader reads from a module, without importing it: the
//! top-level `def`s and their parameters (defaults as written, normalised to Python's repr for
//! plain literals), `__virtualname__` and `__func_alias__` (as `salt/modules/baredoc.py` reads
//! them, with tree-sitter-python instead of Python's `ast`).

use std::ops::Range;

use tree_sitter::{Node, Parser};

/// What a Python module declares at its top level.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PyModule {
    /// `__virtualname__ = "name"`.
    pub virtualname: Option<String>,
    /// `__func_alias__ = {"real": "alias"}`, in source order.
    pub func_alias: Vec<(String, String)>,
    /// Top-level functions, in source order (decorated ones too).
    pub functions: Vec<PyFunction>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PyFunction {
    pub name: String,
    /// Named parameters (positional and keyword-only), with the default's repr when it has one.
    pub params: Vec<(String, Option<String>)>,
    /// `*args`.
    pub varargs: bool,
    /// `**kwargs`.
    pub kwargs: bool,
    /// The function's name in the source.
    pub span: Range<usize>,
    /// Its docstring (a plain string literal opening the body), dedented as `inspect.cleandoc`.
    pub doc: Option<String>,
}

/// Parse `text`. A file with syntax errors still yields what its intact parts declare.
pub fn parse_module(text: &str) -> PyModule {
    let mut parser = Parser::new();
    let mut out = PyModule::default();
    if parser.set_language(&tree_sitter_python::LANGUAGE.into()).is_err() {
        return out;
    }
    let Some(tree) = parser.parse(text, None) else { return out };
    let root = tree.root_node();
    let mut cursor = root.walk();
    for node in root.named_children(&mut cursor) {
        match node.kind() {
            "function_definition" => out.functions.extend(function(node, text)),
            "decorated_definition" => {
                if let Some(def) = node.child_by_field_name("definition").filter(|d| d.kind() == "function_definition") {
                    out.functions.extend(function(def, text));
                }
            }
            "expression_statement" => {
                let Some(assign) = node.named_child(0).filter(|a| a.kind() == "assignment") else { continue };
                let (Some(left), Some(right)) = (assign.child_by_field_name("left"), assign.child_by_field_name("right")) else { continue };
                match &text[left.byte_range()] {
                    "__virtualname__" => {
                        if let Some(s) = string_value(right, text) {
                            out.virtualname = Some(s);
                        }
                    }
                    "__func_alias__" if right.kind() == "dictionary" => {
                        out.func_alias.clear();
                        let mut c = right.walk();
                        for pair in right.named_children(&mut c).filter(|p| p.kind() == "pair") {
                            let k = pair.child_by_field_name("key").and_then(|k| string_value(k, text));
                            let v = pair.child_by_field_name("value").and_then(|v| string_value(v, text));
                            if let (Some(k), Some(v)) = (k, v) {
                                out.func_alias.push((k, v));
                            }
                        }
                    }
                    _ => {}
                }
            }
            _ => {}
        }
    }
    out
}

fn function(node: Node<'_>, text: &str) -> Option<PyFunction> {
    let name = node.child_by_field_name("name")?;
    let params = node.child_by_field_name("parameters")?;
    let doc = node
        .child_by_field_name("body")
        .and_then(|b| b.named_child(0))
        .filter(|s| s.kind() == "expression_statement")
        .and_then(|s| s.named_child(0))
        .and_then(|s| docstring(s, text));
    let mut f = PyFunction { name: text[name.byte_range()].to_string(), params: Vec::new(), varargs: false, kwargs: false, span: name.byte_range(), doc };
    let mut c = params.walk();
    for p in params.named_children(&mut c) {
        match p.kind() {
            "identifier" => f.params.push((text[p.byte_range()].to_string(), None)),
            "typed_parameter" => {
                let mut pc = p.walk();
                let first = p.named_children(&mut pc).next();
                match first.map(|n| n.kind()) {
                    Some("identifier") => f.params.push((text[first.unwrap().byte_range()].to_string(), None)),
                    Some("list_splat_pattern") => f.varargs = true,
                    Some("dictionary_splat_pattern") => f.kwargs = true,
                    _ => {}
                }
            }
            "default_parameter" | "typed_default_parameter" => {
                let (Some(n), Some(v)) = (p.child_by_field_name("name"), p.child_by_field_name("value")) else { continue };
                f.params.push((text[n.byte_range()].to_string(), Some(repr(v, text))));
            }
            "list_splat_pattern" => f.varargs = true,
            "dictionary_splat_pattern" => f.kwargs = true,
            _ => {}
        }
    }
    Some(f)
}

/// A docstring's text: a string literal (triple-quoted or not, `r` prefix allowed) without
/// its quotes, cleaned as `inspect.cleandoc` does (first line stripped, the common
/// indentation of the others removed, blank lines at either end dropped).
fn docstring(node: Node<'_>, text: &str) -> Option<String> {
    if node.kind() != "string" {
        return None;
    }
    let raw = text[node.byte_range()].trim_start_matches(['r', 'R', 'u', 'U']);
    let inner = ["\"\"\"", "'''", "\"", "'"].iter().find_map(|q| raw.strip_prefix(q).and_then(|r| r.strip_suffix(q)))?;
    let mut lines = inner.lines();
    let first = lines.next().unwrap_or("").trim().to_string();
    let rest: Vec<&str> = lines.collect();
    let indent = rest.iter().filter(|l| !l.trim().is_empty()).map(|l| l.len() - l.trim_start().len()).min().unwrap_or(0);
    let mut out: Vec<String> = std::iter::once(first).chain(rest.iter().map(|l| l.get(indent..).unwrap_or("").trim_end().to_string())).collect();
    while out.first().is_some_and(|l| l.is_empty()) {
        out.remove(0);
    }
    while out.last().is_some_and(|l| l.is_empty()) {
        out.pop();
    }
    (!out.is_empty()).then(|| out.join("\n"))
}

/// A plain string literal's value (no prefix, no escapes, no interpolation).
fn string_value(node: Node<'_>, text: &str) -> Option<String> {
    if node.kind() != "string" {
        return None;
    }
    let raw = &text[node.byte_range()];
    let q = raw.chars().next()?;
    if !(q == '"' || q == '\'') || raw.starts_with("\"\"\"") || raw.starts_with("'''") || raw.len() < 2 || !raw.ends_with(q) {
        return None;
    }
    let inner = &raw[1..raw.len() - 1];
    (!inner.contains('\\') && !inner.contains(q)).then(|| inner.to_string())
}

/// The default as Python's `repr` would print it, for plain string literals; otherwise the
/// source text as written (`None`, `True`, `0`, `[]` read the same either way).
fn repr(node: Node<'_>, text: &str) -> String {
    match string_value(node, text) {
        Some(s) if s.contains('\'') => format!("\"{s}\""),
        Some(s) => format!("'{s}'"),
        None => text[node.byte_range()].to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signatures_virtualname_and_aliases() {
        let m = parse_module(
            r#"
"""Doc."""
import os
__virtualname__ = "webapp"
__func_alias__ = {"list_": "list", 'x': "y"}

def __virtual__():
    return __virtualname__

def deployed(name, version, port=8080, mode="fast", *args, flag: bool = False, **kwargs):
    """
    Deploy the app.

    version
        Which release.
    """
    pass

@decorator
def list_(name, items=None):
    pass

def _private(name):
    pass

class Foo:
    def method(self):
        pass

def broken(name
"#,
        );
        assert_eq!(m.virtualname.as_deref(), Some("webapp"));
        assert_eq!(m.func_alias, vec![("list_".into(), "list".into()), ("x".into(), "y".into())]);
        let names: Vec<&str> = m.functions.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(names[..4], ["__virtual__", "deployed", "list_", "_private"]);
        let d = &m.functions[1];
        assert_eq!(
            d.params,
            vec![
                ("name".into(), None),
                ("version".into(), None),
                ("port".into(), Some("8080".into())),
                ("mode".into(), Some("'fast'".into())),
                ("flag".into(), Some("False".into())),
            ]
        );
        assert!(d.varargs && d.kwargs);
        assert_eq!(d.doc.as_deref(), Some("Deploy the app.\n\nversion\n    Which release."));
        assert_eq!(m.functions[2].doc, None);
        assert!(!m.functions[2].kwargs);
    }
}
