//! What each word of an SLS or top file is (the semantic tokens' classes, which document
//! highlight also reads). The
//! YAML side comes from the file's summary (the same static read that navigation uses: state
//! IDs, `module.function`, arguments and requisite keywords, requisite targets, include and
//! exclude items, extend keys, a top file's environments, targets, matchers and SLS entries),
//! the template side from the Jinja blocks' tokens (`syntax::jinja_lex`): delimiters,
//! statement words, variables, attributes, filters, tests, literals, and the keys a template
//! reads from `pillar` and `grains`.

use std::ops::Range;
use std::path::Path;

use model::state::catalog::Catalog;
use syntax::document::YamlNode;
use syntax::jinja::{JinjaBlock, Masked};
use syntax::jinja_lex::{Token, TokenKind};

use crate::snapshot::Snapshot;
use crate::types::*;

/// The tokens of a file, in order, disjoint; with `range`, only those that meet it.
pub(crate) fn classify(snap: &Snapshot, path: &Path, range: Option<Range<usize>>) -> Vec<SemanticToken> {
    if snap.too_large(path) {
        return Vec::new();
    }
    let Some(text) = snap.text(path) else { return Vec::new() };
    let masked = syntax::jinja::mask(&text);
    let mut out = Tokens { text: &text, base: 0, masked: &masked, out: Vec::new() };
    // A pillar file is data, not states: only its Jinja (and a pillar top file, a top file).
    let world = snap.world();
    let in_pillar = world.ws.opts.pillar_roots.values().flatten().any(|r| path.starts_with(r));
    let is_top = world.is_top(path) || (in_pillar && path.file_name().is_some_and(|n| n == "top.sls"));
    if is_top || (!in_pillar && path.extension().is_some_and(|e| e == "sls")) {
        let core = Catalog::for_version(snap.world().ws.opts.version);
        for (start, tree) in snap.yaml_trees(path).iter() {
            out.base = *start;
            for doc in tree.documents() {
                if is_top {
                    out.top(&doc);
                } else {
                    out.sls(&doc, core);
                }
            }
        }
    }
    for block in &masked.blocks {
        if range.as_ref().is_some_and(|r| block.range.end < r.start || block.range.start > r.end) {
            continue;
        }
        out.jinja(block);
    }
    let mut tokens = out.out;
    tokens.sort_by_key(|t| (t.range.start, t.range.end));
    // Disjoint, as the protocol requires: a later token overlapping an earlier one goes.
    let mut kept: Vec<SemanticToken> = Vec::with_capacity(tokens.len());
    for t in tokens {
        if kept.last().is_none_or(|last| last.range.end <= t.range.start) {
            kept.push(t);
        }
    }
    if let Some(r) = range {
        kept.retain(|t| t.range.end >= r.start && t.range.start <= r.end);
    }
    kept
}

struct Tokens<'a> {
    text: &'a str,
    /// Where the YAML block being read starts (its tree's offsets are from there).
    base: usize,
    masked: &'a Masked,
    out: Vec<SemanticToken>,
}

const NONE: TokenModifiers = TokenModifiers(0);

/// The names Salt puts in every template's context.
const SALT_CONTEXT: &[&str] = &[
    "salt",
    "grains",
    "pillar",
    "opts",
    "saltenv",
    "sls",
    "slspath",
    "sls_path",
    "slsdotpath",
    "slscolonpath",
    "tpldir",
    "tpldot",
    "tplfile",
    "tplpath",
    "tplroot",
    "env",
    "minion_id",
    "__opts__",
    "__salt__",
    "__grains__",
    "__pillar__",
    "show_full_context",
];

impl<'a> Tokens<'a> {
    /// A token from the YAML side: never over a Jinja block (a key `{{ x }}_pkg` is not the
    /// summary's, but a placeholder may sit in one).
    fn yaml(&mut self, range: Range<usize>, kind: TokenType, modifiers: TokenModifiers) {
        let range = range.start + self.base..range.end + self.base;
        if range.start < range.end && range.end <= self.text.len() && !self.masked.overlaps(range.clone()) {
            self.out.push(SemanticToken { range, kind, modifiers });
        }
    }

    /// The text of a scalar without its quotes, and where that text starts.
    fn scalar(&self, r: &Range<usize>) -> Option<(&'a str, Range<usize>)> {
        let text: &'a str = self.text;
        let written = text.get(r.start + self.base..r.end + self.base)?;
        let quoted = written.len() >= 2 && (written.starts_with('\'') || written.starts_with('"'));
        let inner = if quoted { r.start + 1..r.end - 1 } else { r.clone() };
        Some((text.get(inner.start + self.base..inner.end + self.base)?, inner))
    }

    /// An SLS file's top-level mapping: `include`, `exclude`, `extend` and state IDs.
    fn sls(&mut self, node: &YamlNode, core: &Catalog) {
        let YamlNode::Mapping(pairs) = node else { return };
        for (k, v) in pairs {
            let YamlNode::Scalar(kr) = k else { continue };
            let Some((key, _)) = self.scalar(kr) else { continue };
            match key {
                "include" | "exclude" => {
                    self.yaml(kr.clone(), TokenType::Keyword, NONE);
                    for item in items(v) {
                        match item {
                            YamlNode::Scalar(r) => self.yaml(r.clone(), TokenType::Namespace, NONE),
                            YamlNode::Mapping(p) => {
                                for (ik, iv) in p {
                                    let (YamlNode::Scalar(ikr), YamlNode::Scalar(ivr)) = (ik, iv) else { continue };
                                    let is_id = self.scalar(ikr).is_some_and(|(w, _)| w == "id");
                                    // `- dev: tools` names an environment; `- id: x` and `- sls: x` a kind.
                                    let key_kind = if key == "include" { TokenType::Type } else { TokenType::Keyword };
                                    self.yaml(ikr.clone(), key_kind, NONE);
                                    self.yaml(ivr.clone(), if is_id && key == "exclude" { TokenType::Variable } else { TokenType::Namespace }, NONE);
                                }
                            }
                            _ => {}
                        }
                    }
                }
                "extend" => {
                    self.yaml(kr.clone(), TokenType::Keyword, NONE);
                    if let YamlNode::Mapping(ids) = v {
                        for (id, body) in ids {
                            if let YamlNode::Scalar(r) = id {
                                self.yaml(r.clone(), TokenType::Variable, NONE);
                            }
                            self.state_body(body, core);
                        }
                    }
                }
                _ => {
                    self.yaml(kr.clone(), TokenType::Variable, TokenModifiers::DECLARATION);
                    self.state_body(v, core);
                }
            }
        }
    }

    /// A declaration's body: `pkg.installed` alone, or module keys with their arguments.
    fn state_body(&mut self, body: &YamlNode, core: &Catalog) {
        match body {
            YamlNode::Scalar(r) => self.function(r, None, core),
            YamlNode::Mapping(modules) => {
                for (k, run) in modules {
                    let YamlNode::Scalar(kr) = k else { continue };
                    let Some((key, _)) = self.scalar(kr) else { continue };
                    if key.starts_with("__") {
                        continue;
                    }
                    let module = key.split('.').next().unwrap_or(key).to_string();
                    self.function(kr, None, core);
                    let dotted = key.contains('.');
                    for item in items(run) {
                        match item {
                            YamlNode::Scalar(r) if !dotted => self.function(r, Some(&module), core),
                            YamlNode::Mapping(args) => {
                                for (ak, av) in args {
                                    let YamlNode::Scalar(akr) = ak else { continue };
                                    let Some((arg, _)) = self.scalar(akr) else { continue };
                                    let requisite = model::requisites::is_requisite_key(arg);
                                    let keyword = requisite || model::requisites::is_internal_keyword(arg);
                                    self.yaml(akr.clone(), if keyword { TokenType::Keyword } else { TokenType::Parameter }, NONE);
                                    if requisite {
                                        self.requisites(av, core);
                                    }
                                }
                            }
                            _ => {}
                        }
                    }
                }
            }
            _ => {}
        }
    }

    /// A requisite's targets: `- id`, `- pkg: name`, `- sls: web`.
    fn requisites(&mut self, targets: &YamlNode, core: &Catalog) {
        for t in items(targets) {
            match t {
                YamlNode::Scalar(r) => self.yaml(r.clone(), TokenType::Variable, NONE),
                YamlNode::Mapping(p) => {
                    for (k, v) in p {
                        let YamlNode::Scalar(kr) = k else { continue };
                        let Some((key, _)) = self.scalar(kr) else { continue };
                        let (kind, modifiers) = match key {
                            "sls" | "id" => (TokenType::Keyword, NONE),
                            module => (TokenType::Namespace, if core.module(module).is_some() { TokenModifiers::DEFAULT_LIBRARY } else { NONE }),
                        };
                        self.yaml(kr.clone(), kind, modifiers);
                        if let YamlNode::Scalar(vr) = v {
                            self.yaml(vr.clone(), if key == "sls" { TokenType::Namespace } else { TokenType::Variable }, NONE);
                        }
                    }
                }
                _ => {}
            }
        }
    }

    /// `pkg.installed` (module and function), `pkg` under a declaration, or (with the module)
    /// the `- installed` item under `pkg:`.
    fn function(&mut self, r: &Range<usize>, module: Option<&str>, core: &Catalog) {
        let Some((written, inner)) = self.scalar(r) else { return };
        let written = written.to_string();
        let lib = |m: &str, f: Option<&str>| {
            let known = match (core.module(m), f) {
                (Some(_), None) => true,
                (Some(md), Some(f)) => md.function(f).is_some(),
                (None, _) => false,
            };
            if known {
                TokenModifiers::DEFAULT_LIBRARY
            } else {
                NONE
            }
        };
        if let Some(m) = module {
            self.yaml(inner, TokenType::Function, lib(m, Some(&written)));
            return;
        }
        match written.split_once('.') {
            Some((m, f)) => {
                self.yaml(inner.start..inner.start + m.len(), TokenType::Namespace, lib(m, None));
                self.yaml(inner.start + m.len() + 1..inner.end, TokenType::Function, lib(m, Some(f)));
            }
            None => self.yaml(inner, TokenType::Namespace, lib(&written, None)),
        }
    }

    /// A top file's environments, targets, `match:` options and SLS entries.
    fn top(&mut self, node: &YamlNode) {
        let YamlNode::Mapping(envs) = node else { return };
        for (env, targets) in envs {
            if let YamlNode::Scalar(r) = env {
                self.yaml(r.clone(), TokenType::Type, NONE);
            }
            let YamlNode::Mapping(targets) = targets else { continue };
            for (target, value) in targets {
                let mut matcher = None;
                for item in items(value) {
                    match item {
                        YamlNode::Scalar(r) => self.yaml(r.clone(), TokenType::Namespace, NONE),
                        YamlNode::Mapping(opts) => {
                            for (ok, ov) in opts {
                                let (YamlNode::Scalar(okr), YamlNode::Scalar(ovr)) = (ok, ov) else { continue };
                                self.yaml(okr.clone(), TokenType::Keyword, NONE);
                                if self.scalar(okr).is_some_and(|(w, _)| w == "match") {
                                    matcher = self.scalar(ovr).map(|(w, _)| w.to_string());
                                    self.yaml(ovr.clone(), TokenType::EnumMember, NONE);
                                }
                            }
                        }
                        _ => {}
                    }
                }
                if let YamlNode::Scalar(r) = target {
                    self.target(r, matcher.as_deref());
                }
            }
        }
    }

    /// A target: a pattern, or a compound expression whose `G@`-style prefixes are operators
    /// and whose `and`, `or` and `not` are keywords.
    fn target(&mut self, span: &Range<usize>, matcher: Option<&str>) {
        let Some((written, inner)) = self.scalar(span) else { return };
        if matcher != Some("compound") {
            self.yaml(span.clone(), TokenType::Regexp, NONE);
            return;
        }
        let mut pieces = Vec::new();
        let mut at = inner.start;
        for word in written.split_inclusive(' ') {
            let w = word.trim_end_matches(' ');
            let lead = w.len() - w.trim_start_matches('(').len();
            let bare = w.trim_matches(['(', ')']);
            let r = at + lead..at + lead + bare.len();
            at += word.len();
            if matches!(bare, "and" | "or" | "not") {
                pieces.push((r, TokenType::Keyword));
            } else if bare.get(1..2) == Some("@") {
                pieces.push((r.start..r.start + 2, TokenType::Operator));
                pieces.push((r.start + 2..r.end, TokenType::Regexp));
            } else {
                pieces.push((r, TokenType::Regexp));
            }
        }
        for (r, kind) in pieces {
            self.yaml(r, kind, NONE);
        }
    }

    fn jinja(&mut self, block: &JinjaBlock) {
        let tokens = syntax::jinja_lex::tokens(self.text, block);
        let word = |t: &Token| &self.text[t.range.clone()];
        for (i, t) in tokens.iter().enumerate() {
            let prev = |n: usize| i.checked_sub(n).and_then(|j| tokens.get(j));
            let prev_word = |n: usize| prev(n).map(word).unwrap_or("");
            let (kind, modifiers) = match t.kind {
                TokenKind::Delimiter => (TokenType::Macro, NONE),
                TokenKind::Keyword | TokenKind::Constant => (TokenType::Keyword, NONE),
                TokenKind::Name if prev_word(1) == "macro" => (TokenType::Function, TokenModifiers::DECLARATION),
                TokenKind::Name if matches!(prev_word(1), "set" | "for" | "as" | "import" | ",") && declares(&tokens, i, self.text) => {
                    (TokenType::Variable, TokenModifiers::DECLARATION)
                }
                TokenKind::Name if SALT_CONTEXT.contains(&word(t)) => (TokenType::Variable, TokenModifiers::READONLY.union(TokenModifiers::DEFAULT_LIBRARY)),
                TokenKind::Name => (TokenType::Variable, NONE),
                TokenKind::Attribute => (TokenType::Property, NONE),
                TokenKind::Filter | TokenKind::Test => (TokenType::Function, TokenModifiers::DEFAULT_LIBRARY),
                TokenKind::String if data_key(&tokens, i, self.text) => (TokenType::Property, NONE),
                TokenKind::String => (TokenType::String, NONE),
                TokenKind::Number => (TokenType::Number, NONE),
                TokenKind::Operator => (TokenType::Operator, NONE),
                TokenKind::Comment => (TokenType::Comment, NONE),
            };
            self.out.push(SemanticToken { range: t.range.clone(), kind, modifiers });
        }
    }
}

/// `pillar`, `grains` and Salt's dunder forms of them.
fn is_data(name: &str) -> bool {
    matches!(name, "pillar" | "grains" | "__pillar__" | "__grains__")
}

/// Whether the string token `i` is a key a template reads from the pillar or the grains:
/// `pillar['k']`, `grains.get('k')`, `salt['pillar.get']('k')` (and `grains.get`,
/// `config.get`).
fn data_key(tokens: &[Token], i: usize, text: &str) -> bool {
    let w = |n: usize| i.checked_sub(n).and_then(|j| tokens.get(j)).map(|t| &text[t.range.clone()]).unwrap_or("");
    if w(1) == "[" && is_data(w(2)) {
        return true;
    }
    if w(1) == "(" && w(2) == "get" && w(3) == "." && is_data(w(4)) {
        return true;
    }
    if w(1) == "(" && w(2) == "]" && w(4) == "[" && w(5) == "salt" {
        let called = w(3).trim_matches(['\'', '"']);
        return matches!(called, "pillar.get" | "grains.get" | "config.get" | "pillar.item" | "grains.item");
    }
    false
}

/// Whether the name token `i`, after `set`, `for`, `as`, `import` or a comma, is one the
/// statement binds (`{% set a, b = ... %}`, `{% for k, v in ... %}`, `{% from x import a, b %}`),
/// not a name it reads.
fn declares(tokens: &[Token], i: usize, text: &str) -> bool {
    // The statement's word is the token after the opening delimiter.
    let Some(first) = tokens.get(1).map(|t| &text[t.range.clone()]) else { return false };
    let before: Vec<&str> = tokens[..i].iter().map(|t| &text[t.range.clone()]).collect();
    match first {
        "set" | "for" => !before.iter().any(|w| matches!(*w, "=" | "in")),
        "import" => before.contains(&"as"),
        "from" => before.contains(&"import"),
        _ => false,
    }
}

/// The items of a sequence (a lone value as one item, as Salt reads `require: x`).
fn items(node: &YamlNode) -> &[YamlNode] {
    match node {
        YamlNode::Sequence(items) => items,
        YamlNode::Empty => &[],
        other => std::slice::from_ref(other),
    }
}
