//! The cursor's place in a file being typed, from indentation alone (the file is mid-edit
//! and rarely valid YAML; Jinja is masked first, same offsets): the lines that enclose it, what
//! is typed, and what a state module's body already gives. Completion and signature help read it.

use std::collections::BTreeSet;

/// One line above the cursor that encloses it: its indentation and key (or item text).
#[derive(Debug, Clone)]
pub(crate) struct Parent {
    pub(crate) indent: usize,
    pub(crate) item: bool,
    pub(crate) key: String,
    /// Where the line starts.
    pub(crate) start: usize,
}

/// The cursor's place in the indentation structure.
#[derive(Debug)]
pub(crate) struct Context {
    /// Enclosing lines, outermost first.
    pub(crate) parents: Vec<Parent>,
    /// The cursor's line is a list item (`- ...`).
    pub(crate) item: bool,
    /// What is typed on the line before the cursor, after the indentation and `- `.
    pub(crate) typed: String,
    /// Where `typed` starts.
    pub(crate) typed_start: usize,
}

impl Context {
    pub(crate) fn at(text: &str, offset: usize) -> Context {
        let line_start = syntax::line_index::line_start(text, offset);
        let line = &text[line_start..offset];
        let indent = line.len() - line.trim_start_matches(' ').len();
        let rest = &line[indent..];
        let (item, typed, typed_start) = match rest.strip_prefix('-').filter(|r| r.is_empty() || r.starts_with(' ')) {
            Some(r) => {
                let t = r.trim_start();
                (true, t.to_string(), offset - t.len())
            }
            None => (false, rest.to_string(), line_start + indent),
        };
        let mut parents: Vec<Parent> = Vec::new();
        let mut limit = indent;
        let mut limit_item = item;
        let mut end = line_start;
        while end > 0 {
            let start = syntax::line_index::line_start(text, end - 1);
            let l = &text[start..end - 1];
            end = start;
            let content = l.trim_start_matches(' ');
            if content.trim().is_empty() || content.starts_with('#') {
                continue;
            }
            let ind = l.len() - content.len();
            let is_item = content.starts_with("- ") || content == "-";
            let body = if is_item { content[1..].trim_start() } else { content };
            let key = body.split_once(':').map_or(body, |(k, _)| k).trim().trim_matches(['\'', '"']).to_string();
            // A key at the same indentation as a list of items below it encloses them.
            let encloses = ind < limit || (ind == limit && limit_item && !is_item && body.trim_end().ends_with(':'));
            if encloses {
                parents.push(Parent { indent: ind, item: is_item, key, start });
                limit = ind;
                limit_item = is_item;
                if ind == 0 && !is_item {
                    break;
                }
            }
        }
        parents.reverse();
        Context { parents, item, typed, typed_start }
    }

    /// The word being typed (after the last space or separator) and where it starts.
    pub(crate) fn word(&self, stops: &[char]) -> (&str, usize) {
        let cut =
            self.typed.rfind(|c: char| c.is_whitespace() || stops.contains(&c)).map_or(0, |i| i + self.typed[i..].chars().next().map_or(1, char::len_utf8));
        (&self.typed[cut..], self.typed_start + cut)
    }
}

/// What the body under a state module key says: the module, the function (from the key,
/// `pkg.installed`, else from a `- installed` item other than `typing`) and the arguments
/// given.
pub(crate) fn module_body(masked: &str, module_line: &Parent, typing: &str) -> (String, Option<String>, BTreeSet<String>) {
    let (module, mut function) = match module_line.key.split_once('.') {
        Some((m, f)) => (m.to_string(), Some(f.to_string())),
        None => (module_line.key.clone(), None),
    };
    // The siblings: arguments already given, and a `- installed` item naming the function.
    let mut given: BTreeSet<String> = BTreeSet::new();
    let body_start = masked[module_line.start..].find('\n').map_or(masked.len(), |i| module_line.start + i + 1);
    for l in masked[body_start..].lines() {
        let content = l.trim_start_matches(' ');
        if content.trim().is_empty() || content.starts_with('#') {
            continue;
        }
        if l.len() - content.len() <= module_line.indent {
            break;
        }
        let Some(rest) = content.strip_prefix("- ") else { continue };
        let rest = rest.trim();
        match rest.split_once(':') {
            Some((k, _)) => {
                given.insert(k.trim().to_string());
            }
            None if function.is_none() && !rest.is_empty() && rest != typing => function = Some(rest.to_string()),
            None => {}
        }
    }
    (module, function, given)
}
