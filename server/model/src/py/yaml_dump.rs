//! `yaml.dump(obj, Dumper=CSafeDumper)` for JSON-shaped data, as Salt's YAML serializer
//! (`salt/serializers/yaml.py`) and YAML dumper (`salt/utils/yamldumper.py`) call it: PyYAML's
//! representer (`yaml/representer.py` `SafeRepresenter`: sorted keys, `default_flow_style`)
//! and implicit resolver (`yaml/resolver.py`, YAML 1.1, which decides whether a string may stay
//! plain), and libyaml's emitter (`src/emitter.c`, 0.2.6 in PyYAML's wheels: scalar styles,
//! folding at 80 columns, indentless sequences under mapping keys). It is the text
//! `slsutil.serialize('yaml', ...)` prints.

use std::sync::OnceLock;

use regex::Regex;
use serde_json::Value;

use super::builtins::float_repr;

/// The keyword arguments of `yaml.dump` that change its text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DumpOptions {
    /// `None`: a collection is written in flow style (`[1, 2]`, `{a: 1}`) when it holds only
    /// scalars, else in block style; `Some(b)`: every collection in flow (`true`) or block.
    pub default_flow_style: Option<bool>,
    pub sort_keys: bool,
    /// Without it, characters outside ASCII are escaped in double quotes (`"\xDF"`).
    pub allow_unicode: bool,
    /// `indent` (2..=9) and `width` (more than twice the indent), as the emitter accepts them.
    pub indent: usize,
    pub width: usize,
    /// `explicit_start`: `---` before the document.
    pub explicit_start: bool,
}

impl Default for DumpOptions {
    /// `yaml.dump`'s defaults, with `default_flow_style=None` as Salt's yaml serializer sets it.
    fn default() -> DumpOptions {
        DumpOptions { default_flow_style: None, sort_keys: true, allow_unicode: false, indent: 2, width: 80, explicit_start: false }
    }
}

/// `yaml.dump(v, Dumper=SafeDumper, **options)`.
pub fn dump(v: &Value, options: &DumpOptions) -> String {
    let node = represent(v, options);
    let mut e = Emitter {
        out: String::new(),
        column: 0,
        whitespace: true,
        indention: true,
        indent: None,
        indents: Vec::new(),
        flow_level: 0,
        best_indent: if (2..10).contains(&options.indent) { options.indent } else { 2 },
        best_width: 80,
        unicode: options.allow_unicode,
    };
    if options.width > e.best_indent * 2 {
        e.best_width = options.width;
    }
    // `yaml_emitter_emit_document_start`: implicit unless asked for (libyaml never treats an
    // empty root scalar as an empty document).
    if options.explicit_start {
        e.write_indent();
        e.write_indicator("---", true, false, false);
    }
    e.node(&node, Ctx::default());
    // `yaml_emitter_emit_document_end` of an implicit end.
    e.write_indent();
    e.out
}

enum Node {
    /// `plain_implicit`: the text read back as plain YAML has the scalar's own type (a string
    /// that would load as a bool, a number, null or a timestamp must be quoted).
    Scalar {
        value: String,
        plain_implicit: bool,
    },
    Seq(Vec<Node>, bool),
    Map(Vec<(Node, Node)>, bool),
}

fn represent(v: &Value, o: &DumpOptions) -> Node {
    let scalar = |value: String| Node::Scalar { value, plain_implicit: true };
    match v {
        Value::Null => scalar("null".into()),
        Value::Bool(b) => scalar(if *b { "true" } else { "false" }.into()),
        Value::Number(n) => match (n.as_i64(), n.as_u64(), n.as_f64()) {
            (Some(i), _, _) => scalar(i.to_string()),
            (None, Some(u), _) => scalar(u.to_string()),
            (None, None, Some(f)) => scalar(represent_float(f)),
            _ => scalar(n.to_string()),
        },
        Value::String(s) => Node::Scalar { value: s.clone(), plain_implicit: resolves_to_str(s) },
        Value::Array(items) => {
            let nodes: Vec<Node> = items.iter().map(|x| represent(x, o)).collect();
            let best = nodes.iter().all(|n| matches!(n, Node::Scalar { .. }));
            Node::Seq(nodes, o.default_flow_style.unwrap_or(best))
        }
        Value::Object(map) => {
            let mut pairs: Vec<(&String, &Value)> = map.iter().collect();
            if o.sort_keys {
                pairs.sort_by(|a, b| a.0.cmp(b.0));
            }
            let nodes: Vec<(Node, Node)> = pairs.into_iter().map(|(k, x)| (represent(&Value::String(k.clone()), o), represent(x, o))).collect();
            let best = nodes.iter().all(|(k, x)| matches!(k, Node::Scalar { .. }) && matches!(x, Node::Scalar { .. }));
            Node::Map(nodes, o.default_flow_style.unwrap_or(best))
        }
    }
}

/// `SafeRepresenter.represent_float`: `repr(f).lower()`, with `.0` added before an exponent
/// that has no dot (`1e+20` is `1.0e+20`), and `.inf`, `-.inf`, `.nan`.
pub(crate) fn represent_float(f: f64) -> String {
    if f.is_nan() {
        return ".nan".into();
    }
    if f.is_infinite() {
        return if f > 0.0 { ".inf".into() } else { "-.inf".into() };
    }
    let value = float_repr(f).to_lowercase();
    if !value.contains('.') && value.contains('e') {
        return value.replacen('e', ".0e", 1);
    }
    value
}

/// The escape of `c` in a double-quoted scalar, as libyaml and PyYAML's Python emitter write
/// it: a named escape, else `\x`, `\u` or `\U` with uppercase hex.
pub(crate) fn double_quoted_escape(c: char) -> String {
    match c {
        '\0' => "\\0".to_string(),
        '\u{7}' => "\\a".to_string(),
        '\u{8}' => "\\b".to_string(),
        '\t' => "\\t".to_string(),
        '\n' => "\\n".to_string(),
        '\u{b}' => "\\v".to_string(),
        '\u{c}' => "\\f".to_string(),
        '\r' => "\\r".to_string(),
        '\u{1b}' => "\\e".to_string(),
        '"' => "\\\"".to_string(),
        '\\' => "\\\\".to_string(),
        '\u{85}' => "\\N".to_string(),
        '\u{a0}' => "\\_".to_string(),
        '\u{2028}' => "\\L".to_string(),
        '\u{2029}' => "\\P".to_string(),
        c if (c as u32) <= 0xff => format!("\\x{:02X}", c as u32),
        c if (c as u32) <= 0xffff => format!("\\u{:04X}", c as u32),
        c => format!("\\U{:08X}", c as u32),
    }
}

/// `yaml.safe_dump(text, default_style='"', allow_unicode=True, width=2**31 - 1)` without its
/// line break: `text` as one double-quoted scalar, never folded, as Salt's printed dicts write
/// a string holding a line break or a tab (`salt/utils/jinja.py` `_yaml_safe_repr`).
pub(crate) fn double_quoted_line(text: &str) -> String {
    let mut out = String::from("\"");
    for c in text.chars() {
        if !is_printable(c) || c == '\u{feff}' || is_break(c) || c == '"' || c == '\\' {
            out.push_str(&double_quoted_escape(c));
        } else {
            out.push(c);
        }
    }
    out.push('"');
    out
}

/// Whether `s` written plain would be read back as a string by the YAML 1.1 implicit
/// resolvers of `yaml/resolver.py` (bool, float, int, merge, null, timestamp, value).
pub(crate) fn resolves_to_str(s: &str) -> bool {
    static RESOLVERS: OnceLock<Vec<(&'static str, Regex)>> = OnceLock::new();
    let resolvers = RESOLVERS.get_or_init(|| {
        let r = |first: &'static str, re: &str| (first, Regex::new(re).expect("resolver regex"));
        vec![
            r("yYnNtTfFoO", r"^(?:yes|Yes|YES|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF)$"),
            r(
                "-+0123456789.",
                r"^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?|\.[0-9][0-9_]*(?:[eE][-+][0-9]+)?|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$",
            ),
            r("-+0123456789", r"^(?:[-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+|[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+)$"),
            r("<", r"^(?:<<)$"),
            r("~nN", r"^(?:~|null|Null|NULL|)$"),
            r(
                "0123456789",
                r"^(?:[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]|[0-9][0-9][0-9][0-9]-[0-9][0-9]?-[0-9][0-9]?(?:[Tt]|[ \t]+)[0-9][0-9]?:[0-9][0-9]:[0-9][0-9](?:\.[0-9]*)?(?:[ \t]*(?:Z|[-+][0-9][0-9]?(?::[0-9][0-9])?))?)$",
            ),
            r("=", r"^(?:=)$"),
        ]
    });
    // `resolve` looks up the resolvers registered for the first character (the empty string
    // has the null resolver), and Python's `$` also matches before a final newline.
    let first = s.chars().next();
    let text = s.strip_suffix('\n').unwrap_or(s);
    !resolvers.iter().any(|(chars, re)| first.map_or(chars.contains('~'), |c| chars.contains(c)) && re.is_match(text))
}

#[derive(Default, Clone, Copy)]
struct Ctx {
    mapping: bool,
    simple_key: bool,
}

/// libyaml's emitter state (`yaml_emitter_t`), for one document.
struct Emitter {
    out: String,
    column: usize,
    whitespace: bool,
    indention: bool,
    indent: Option<usize>,
    indents: Vec<Option<usize>>,
    flow_level: usize,
    best_indent: usize,
    best_width: usize,
    unicode: bool,
}

/// `yaml_emitter_analyze_scalar`'s `scalar_data`.
struct Analysis {
    /// The text's length in UTF-8 bytes, which libyaml compares with 128 for simple keys.
    length: usize,
    multiline: bool,
    flow_plain_allowed: bool,
    block_plain_allowed: bool,
    single_quoted_allowed: bool,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Style {
    Plain,
    Single,
    Double,
}

/// `IS_BREAK`: CR, LF, NEL, LS, PS.
fn is_break(c: char) -> bool {
    matches!(c, '\r' | '\n' | '\u{85}' | '\u{2028}' | '\u{2029}')
}

/// `IS_BLANKZ`: a space, a tab, a break, or the end of the text.
fn is_blankz(c: Option<char>) -> bool {
    c.is_none_or(|c| c == ' ' || c == '\t' || c == '\0' || is_break(c))
}

/// `IS_PRINTABLE`: LF, ASCII from space to `~`, U+A0..U+D7FF and U+E000..U+FFFD without the
/// BOM. Characters beyond the BMP are not printable for libyaml.
fn is_printable(c: char) -> bool {
    c == '\n' || (' '..='~').contains(&c) || ('\u{a0}'..='\u{d7ff}').contains(&c) || (('\u{e000}'..='\u{fffd}').contains(&c) && c != '\u{feff}')
}

impl Emitter {
    /// `PUT`/`WRITE`: one character, one column.
    fn put(&mut self, c: char) {
        self.out.push(c);
        self.column += 1;
    }

    fn put_break(&mut self) {
        self.out.push('\n');
        self.column = 0;
    }

    /// `yaml_emitter_write_indicator`.
    fn write_indicator(&mut self, indicator: &str, need_whitespace: bool, is_whitespace: bool, is_indention: bool) {
        if need_whitespace && !self.whitespace {
            self.put(' ');
        }
        indicator.chars().for_each(|c| self.put(c));
        self.whitespace = is_whitespace;
        self.indention = self.indention && is_indention;
    }

    /// `yaml_emitter_write_indent`.
    fn write_indent(&mut self) {
        let indent = self.indent.unwrap_or(0);
        if !self.indention || self.column > indent || (self.column == indent && !self.whitespace) {
            self.put_break();
        }
        while self.column < indent {
            self.put(' ');
        }
        self.whitespace = true;
        self.indention = true;
    }

    /// `yaml_emitter_increase_indent`.
    fn increase_indent(&mut self, flow: bool, indentless: bool) {
        self.indents.push(self.indent);
        match self.indent {
            None => self.indent = Some(if flow { self.best_indent } else { 0 }),
            Some(i) if !indentless => self.indent = Some(i + self.best_indent),
            Some(_) => {}
        }
    }

    fn pop_indent(&mut self) {
        self.indent = self.indents.pop().flatten();
    }

    /// `yaml_emitter_emit_node` and the states it leads to.
    fn node(&mut self, node: &Node, ctx: Ctx) {
        match node {
            Node::Scalar { value, plain_implicit } => {
                let a = self.analyze(value);
                let style = self.select_style(&a, *plain_implicit, ctx);
                self.increase_indent(true, false);
                let allow_breaks = !ctx.simple_key;
                match style {
                    Style::Plain => self.write_plain(value, allow_breaks),
                    Style::Single => self.write_single_quoted(value, allow_breaks),
                    Style::Double => self.write_double_quoted(value, allow_breaks),
                }
                self.pop_indent();
            }
            Node::Seq(items, flow) => {
                if self.flow_level > 0 || *flow || items.is_empty() {
                    self.write_indicator("[", true, true, false);
                    self.increase_indent(true, false);
                    self.flow_level += 1;
                    for (i, item) in items.iter().enumerate() {
                        if i > 0 {
                            self.write_indicator(",", false, false, false);
                        }
                        if self.column > self.best_width {
                            self.write_indent();
                        }
                        self.node(item, Ctx::default());
                    }
                    self.flow_level -= 1;
                    self.pop_indent();
                    self.write_indicator("]", false, false, false);
                } else {
                    self.increase_indent(false, ctx.mapping && !self.indention);
                    for item in items {
                        self.write_indent();
                        self.write_indicator("-", true, false, true);
                        self.node(item, Ctx::default());
                    }
                    self.pop_indent();
                }
            }
            Node::Map(pairs, flow) => {
                let mapping = Ctx { mapping: true, simple_key: false };
                let key_ctx = Ctx { mapping: true, simple_key: true };
                if self.flow_level > 0 || *flow || pairs.is_empty() {
                    self.write_indicator("{", true, true, false);
                    self.increase_indent(true, false);
                    self.flow_level += 1;
                    for (i, (k, v)) in pairs.iter().enumerate() {
                        if i > 0 {
                            self.write_indicator(",", false, false, false);
                        }
                        if self.column > self.best_width {
                            self.write_indent();
                        }
                        if self.check_simple_key(k) {
                            self.node(k, key_ctx);
                            self.write_indicator(":", false, false, false);
                        } else {
                            self.write_indicator("?", true, false, false);
                            self.node(k, mapping);
                            if self.column > self.best_width {
                                self.write_indent();
                            }
                            self.write_indicator(":", true, false, false);
                        }
                        self.node(v, mapping);
                    }
                    self.flow_level -= 1;
                    self.pop_indent();
                    self.write_indicator("}", false, false, false);
                } else {
                    self.increase_indent(false, false);
                    for (k, v) in pairs {
                        self.write_indent();
                        if self.check_simple_key(k) {
                            self.node(k, key_ctx);
                            self.write_indicator(":", false, false, false);
                        } else {
                            self.write_indicator("?", true, false, true);
                            self.node(k, mapping);
                            self.write_indent();
                            self.write_indicator(":", true, false, true);
                        }
                        self.node(v, mapping);
                    }
                    self.pop_indent();
                }
            }
        }
    }

    /// `yaml_emitter_check_simple_key`: a scalar on one line of at most 128 bytes, or an
    /// empty collection.
    fn check_simple_key(&self, key: &Node) -> bool {
        match key {
            Node::Scalar { value, .. } => {
                let a = self.analyze(value);
                !a.multiline && a.length <= 128
            }
            Node::Seq(items, _) => items.is_empty(),
            Node::Map(pairs, _) => pairs.is_empty(),
        }
    }

    /// `yaml_emitter_select_scalar_style` for a scalar without a requested style.
    fn select_style(&self, a: &Analysis, plain_implicit: bool, ctx: Ctx) -> Style {
        let mut style = Style::Plain;
        if ctx.simple_key && a.multiline {
            style = Style::Double;
        }
        if style == Style::Plain
            && ((self.flow_level > 0 && !a.flow_plain_allowed)
                || (self.flow_level == 0 && !a.block_plain_allowed)
                || (a.length == 0 && (self.flow_level > 0 || ctx.simple_key))
                || !plain_implicit)
        {
            style = Style::Single;
        }
        if style == Style::Single && !a.single_quoted_allowed {
            style = Style::Double;
        }
        style
    }

    /// `yaml_emitter_analyze_scalar`.
    fn analyze(&self, scalar: &str) -> Analysis {
        let chars: Vec<char> = scalar.chars().collect();
        if chars.is_empty() {
            return Analysis { length: 0, multiline: false, flow_plain_allowed: false, block_plain_allowed: true, single_quoted_allowed: true };
        }
        let (mut block_indicators, mut flow_indicators, mut line_breaks, mut special) = (false, false, false, false);
        let (mut leading_space, mut leading_break, mut trailing_space, mut trailing_break) = (false, false, false, false);
        let (mut break_space, mut space_break) = (false, false);
        if scalar.starts_with("---") || scalar.starts_with("...") {
            block_indicators = true;
            flow_indicators = true;
        }
        let mut preceded_by_whitespace = true;
        let mut followed_by_whitespace = is_blankz(chars.get(1).copied());
        let (mut previous_space, mut previous_break) = (false, false);
        let last = chars.len() - 1;
        for (i, &ch) in chars.iter().enumerate() {
            if i == 0 {
                if "#,[]{}&*!|>'\"%@`".contains(ch) {
                    flow_indicators = true;
                    block_indicators = true;
                }
                if ch == '?' || ch == ':' {
                    flow_indicators = true;
                    if followed_by_whitespace {
                        block_indicators = true;
                    }
                }
                if ch == '-' && followed_by_whitespace {
                    flow_indicators = true;
                    block_indicators = true;
                }
            } else {
                if ",?[]{}".contains(ch) {
                    flow_indicators = true;
                }
                if ch == ':' {
                    flow_indicators = true;
                    if followed_by_whitespace {
                        block_indicators = true;
                    }
                }
                if ch == '#' && preceded_by_whitespace {
                    flow_indicators = true;
                    block_indicators = true;
                }
            }
            if !is_printable(ch) || (!ch.is_ascii() && !self.unicode) {
                special = true;
            }
            if is_break(ch) {
                line_breaks = true;
            }
            if ch == ' ' {
                leading_space |= i == 0;
                trailing_space |= i == last;
                break_space |= previous_break;
                previous_space = true;
                previous_break = false;
            } else if is_break(ch) {
                leading_break |= i == 0;
                trailing_break |= i == last;
                space_break |= previous_space;
                previous_space = false;
                previous_break = true;
            } else {
                previous_space = false;
                previous_break = false;
            }
            preceded_by_whitespace = is_blankz(Some(ch));
            if i < last {
                followed_by_whitespace = is_blankz(chars.get(i + 2).copied());
            }
        }
        let mut a = Analysis { length: scalar.len(), multiline: line_breaks, flow_plain_allowed: true, block_plain_allowed: true, single_quoted_allowed: true };
        if leading_space || leading_break || trailing_space || trailing_break || line_breaks {
            a.flow_plain_allowed = false;
            a.block_plain_allowed = false;
        }
        if break_space || space_break || special {
            a.flow_plain_allowed = false;
            a.block_plain_allowed = false;
            a.single_quoted_allowed = false;
        }
        if flow_indicators {
            a.flow_plain_allowed = false;
        }
        if block_indicators {
            a.block_plain_allowed = false;
        }
        a
    }

    /// `WRITE_BREAK`: a line feed ends the line; another break character is copied as is.
    fn write_break(&mut self, c: char) {
        self.out.push(c);
        self.column = 0;
    }

    /// `yaml_emitter_write_plain_scalar`.
    fn write_plain(&mut self, text: &str, allow_breaks: bool) {
        let chars: Vec<char> = text.chars().collect();
        if !self.whitespace && (!chars.is_empty() || self.flow_level > 0) {
            self.put(' ');
        }
        let (mut spaces, mut breaks) = (false, false);
        for (i, &c) in chars.iter().enumerate() {
            if c == ' ' {
                if allow_breaks && !spaces && self.column > self.best_width && chars.get(i + 1) != Some(&' ') {
                    self.write_indent();
                } else {
                    self.put(c);
                }
                spaces = true;
            } else if is_break(c) {
                if !breaks && c == '\n' {
                    self.put_break();
                }
                self.write_break(c);
                self.indention = true;
                breaks = true;
            } else {
                if breaks {
                    self.write_indent();
                }
                self.put(c);
                self.indention = false;
                spaces = false;
                breaks = false;
            }
        }
        self.whitespace = false;
        self.indention = false;
    }

    /// `yaml_emitter_write_single_quoted_scalar`.
    fn write_single_quoted(&mut self, text: &str, allow_breaks: bool) {
        self.write_indicator("'", true, false, false);
        let chars: Vec<char> = text.chars().collect();
        let (mut spaces, mut breaks) = (false, false);
        for (i, &c) in chars.iter().enumerate() {
            if c == ' ' {
                if allow_breaks && !spaces && self.column > self.best_width && i != 0 && i != chars.len() - 1 && chars.get(i + 1) != Some(&' ') {
                    self.write_indent();
                } else {
                    self.put(c);
                }
                spaces = true;
            } else if is_break(c) {
                if !breaks && c == '\n' {
                    self.put_break();
                }
                self.write_break(c);
                self.indention = true;
                breaks = true;
            } else {
                if breaks {
                    self.write_indent();
                }
                if c == '\'' {
                    self.put('\'');
                }
                self.put(c);
                self.indention = false;
                spaces = false;
                breaks = false;
            }
        }
        if breaks {
            self.write_indent();
        }
        self.write_indicator("'", false, false, false);
        self.whitespace = false;
        self.indention = false;
    }

    /// `yaml_emitter_write_double_quoted_scalar`.
    fn write_double_quoted(&mut self, text: &str, allow_breaks: bool) {
        self.write_indicator("\"", true, false, false);
        let chars: Vec<char> = text.chars().collect();
        let mut spaces = false;
        for (i, &c) in chars.iter().enumerate() {
            if !is_printable(c) || (!self.unicode && !c.is_ascii()) || c == '\u{feff}' || is_break(c) || c == '"' || c == '\\' {
                let escape = double_quoted_escape(c);
                escape.chars().for_each(|e| self.put(e));
                spaces = false;
            } else if c == ' ' {
                if allow_breaks && !spaces && self.column > self.best_width && i != 0 && i != chars.len() - 1 {
                    self.write_indent();
                    if chars.get(i + 1) == Some(&' ') {
                        self.put('\\');
                    }
                } else {
                    self.put(c);
                }
                spaces = true;
            } else {
                self.put(c);
                spaces = false;
            }
        }
        self.write_indicator("\"", false, false, false);
        self.whitespace = false;
        self.indention = false;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// `salt.serializers.yaml.serialize`: the dump without its final newline (or `\n...\n`).
    fn serialize(v: &Value) -> String {
        let text = dump(v, &DumpOptions::default());
        match text.strip_suffix("\n...\n") {
            Some(t) => t.to_string(),
            None => text.strip_suffix('\n').unwrap_or(&text).to_string(),
        }
    }

    #[test]
    fn like_salts_yaml_serializer() {
        // /work/main/tests/.work/venv/bin/python -c 'import salt.serializers.yaml as s; print(repr(s.serialize(OBJ)))'
        // (Salt 3008.4, PyYAML 6.0.4 with libyaml: CSafeDumper).
        assert_eq!(serialize(&json!({"b": 1, "a": [1, 2], "c": {"x": "y z", "l": [{"k": 1}]}})), "a: [1, 2]\nb: 1\nc:\n  l:\n  - {k: 1}\n  x: y z");
        assert_eq!(serialize(&json!("x")), "x");
        assert_eq!(serialize(&json!(5)), "5");
        assert_eq!(serialize(&json!(null)), "null");
        assert_eq!(serialize(&json!(["a", "ß"])), "[a, \"\\xDF\"]");
        let word = "word ".repeat(30);
        assert_eq!(
            serialize(&json!({"s": "yes", "n": "1", "e": "", "c": "a: b", "q": "it's", "nl": "a\nb", "long": word})),
            "{c: 'a: b', e: '', long: 'word word word word word word word word word word word word\n    word word word word word word word word word word word word word word word word\n    word word ', n: '1', nl: 'a\n\n    b', q: it's, s: 'yes'}"
        );
        assert_eq!(serialize(&json!({"f": 1e20, "g": 1.5, "h": -0.5})), "{f: 1.0e+20, g: 1.5, h: -0.5}");
        assert_eq!(serialize(&json!([[1, 2], {"a": 1}])), "- [1, 2]\n- {a: 1}");
        assert_eq!(serialize(&json!({})), "{}");
        assert_eq!(serialize(&json!([])), "[]");
        // libyaml counts CR as a line break, so the key cannot be simple.
        assert_eq!(serialize(&json!({"a\rb": 1, "k": ["x", {"y": [1, 2]}], "e": {}})), "? \"a\\rb\"\n: 1\ne: {}\nk:\n- x\n- y: [1, 2]");
    }

    #[test]
    fn with_yaml_dump_options() {
        // s.serialize(OBJ, **OPTIONS), as above. Beyond these, 7000 generated values (odd
        // strings, unicode, nesting, every option) printed the same text as Salt.
        let with = |v: Value, o: DumpOptions| {
            let text = dump(&v, &o);
            text.strip_suffix('\n').unwrap_or(&text).to_string()
        };
        let d = DumpOptions::default;
        assert_eq!(
            with(json!({"b": {"c": [1, {"d": "x"}]}, "a": "ß"}), DumpOptions { default_flow_style: Some(false), allow_unicode: true, ..d() }),
            "a: ß\nb:\n  c:\n  - 1\n  - d: x"
        );
        assert_eq!(
            with(
                json!(["word word word word word word word word word word word word ", "a  b a  b a  b a  b a  b a  b a  b a  b a  b a  b "]),
                DumpOptions { width: 40, ..d() }
            ),
            "['word word word word word word word word\n    word word word word ', 'a  b a  b a  b\n    a  b a  b a  b a  b a  b a  b a  b ']"
        );
        assert_eq!(with(json!({"z": 1, "a": [1, 2]}), DumpOptions { sort_keys: false, default_flow_style: Some(true), ..d() }), "{z: 1, a: [1, 2]}");
        assert_eq!(
            with(
                json!({"k": "a\nb\n", "l": " lead", "- x": "2020-01-01", "q": "it's", "n": "~", "p": "💣"}),
                DumpOptions { indent: 4, default_flow_style: Some(false), ..d() }
            ),
            "'- x': '2020-01-01'\nk: 'a\n\n    b\n\n    '\nl: ' lead'\nn: '~'\np: \"\\U0001F4A3\"\nq: it's"
        );
    }
}
