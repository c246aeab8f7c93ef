//! The `compound` matcher (`salt/matchers/compound_match.py` and
//! `salt/utils/minions.py:parse_target`): words are split on whitespace, each term is run
//! through its engine, the results are pasted into a Python expression with `and`, `or`,
//! `not` and parentheses, and that expression is evaluated as Python's `eval` would. A
//! nodegroup target (`nodegroup_match.py`) is this matcher on the group's expansion.

use std::collections::VecDeque;

use serde_json::Value;

use super::{glob, ipcidr, list, nodegroup, pcre, py, quote, resource, subdict, MatchContext, MatchError, MatchErrorKind, MatchOutcome, Returned};

/// One word split into the parts of Salt's `TARGET_REX`:
/// `(?:(?P<engine>G|P|I|J|L|N|S|E|R|T|M)(?P<delimiter>(?<=G|P|I|J).)?@)?(?P<pattern>.+)$`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TargetInfo<'a> {
    /// The engine letter before `@`, if any.
    pub engine: Option<char>,
    /// A one-character alternate delimiter between the letter and `@` (`G|@a|b`).
    pub delimiter: Option<char>,
    /// What the engine is given.
    pub pattern: &'a str,
}

/// `parse_target(word)`. A word the regex does not match at all (one with a newline inside)
/// comes back whole, with no engine.
pub fn parse_target(word: &str) -> TargetInfo<'_> {
    let mut chars = word.char_indices();
    if let Some((_, c0)) = chars.next() {
        if "GPIJLNSERTM".contains(c0) {
            let rest = &word[c0.len_utf8()..];
            let mut rc = rest.chars();
            let c1 = rc.next();
            let c2 = rc.next();
            if "GPIJ".contains(c0) {
                if let (Some(d), Some('@')) = (c1, c2) {
                    if d != '\n' {
                        let after = &rest[d.len_utf8() + 1..];
                        if let Some(p) = dot_plus_dollar(after) {
                            return TargetInfo { engine: Some(c0), delimiter: Some(d), pattern: p };
                        }
                    }
                }
            }
            if c1 == Some('@') {
                if let Some(p) = dot_plus_dollar(&rest[1..]) {
                    return TargetInfo { engine: Some(c0), delimiter: None, pattern: p };
                }
            }
        }
    }
    TargetInfo { engine: None, delimiter: None, pattern: dot_plus_dollar(word).unwrap_or(word) }
}

/// The matcher an engine letter selects. `N` is expanded in place rather than matched, and
/// `R` needs `seco.range`, which Salt does not ship.
pub fn engine_matcher(letter: char) -> Option<&'static str> {
    Some(match letter {
        'G' => "grain",
        'P' => "grain_pcre",
        'I' => "pillar",
        'J' => "pillar_pcre",
        'L' => "list",
        'S' => "ipcidr",
        'E' => "pcre",
        'T' => "resource",
        'M' => "managing_minion",
        _ => return None,
    })
}

/// `compound_match.match(tgt)`: `tgt` is a string (split on whitespace) or a list of words.
pub fn matches(ctx: &MatchContext, tgt: &Value) -> MatchOutcome {
    let (words, shown): (Vec<Value>, String) = match tgt {
        Value::String(s) => (py::split_whitespace(s).into_iter().map(|w| Value::String(w.to_string())).collect(), s.clone()),
        Value::Array(items) => (items.clone(), py::repr(tgt)),
        other => {
            return MatchOutcome::failed(
                "compound",
                py::str_of(other),
                MatchError::logged(
                    MatchErrorKind::InvalidTarget,
                    format!("compound target {} is neither a string nor a list, so it never matches", py::repr(other)),
                ),
            )
        }
    };
    matches_words(ctx, words, &shown)
}

/// [`matches`] for a string.
pub fn matches_str(ctx: &MatchContext, tgt: &str) -> MatchOutcome {
    matches(ctx, &Value::String(tgt.to_string()))
}

/// Python's `(.+)$` at the end of `TARGET_REX`: one or more characters other than a newline,
/// where `$` may also match just before a final newline (which is then not captured).
fn dot_plus_dollar(s: &str) -> Option<&str> {
    let body = s.strip_suffix('\n').unwrap_or(s);
    (!body.is_empty() && !body.contains('\n')).then_some(body)
}

/// One token of the expression Salt evaluates.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Tok {
    And,
    Or,
    Not,
    Open,
    Close,
    Val(Returned),
}

impl Tok {
    fn text(self) -> &'static str {
        match self {
            Tok::And => "and",
            Tok::Or => "or",
            Tok::Not => "not",
            Tok::Open => "(",
            Tok::Close => ")",
            Tok::Val(v) => v.py(),
        }
    }
    fn operator(word: &str) -> Option<Tok> {
        Some(match word {
            "and" => Tok::And,
            "or" => Tok::Or,
            "not" => Tok::Not,
            "(" => Tok::Open,
            ")" => Tok::Close,
            _ => return None,
        })
    }
}

/// The compound loop over a word list, shared with the nodegroup matcher.
pub(crate) fn matches_words(ctx: &MatchContext, words: Vec<Value>, shown: &str) -> MatchOutcome {
    let mut words: VecDeque<Value> = words.into();
    let mut results: Vec<Tok> = Vec::new();
    let mut parts: Vec<MatchOutcome> = Vec::new();
    let mut errors: Vec<MatchError> = Vec::new();
    let finish = |matched: bool, text: String, parts: Vec<MatchOutcome>, errors: Vec<MatchError>| {
        let mut out = MatchOutcome::new("compound", shown, matched, text);
        out.parts = parts;
        out.errors = errors;
        out
    };
    // Salt's nodegroup expansion has no size limit; ours keeps a pathological set of nested
    // groups from exhausting memory.
    let mut spliced_words = 0usize;
    while let Some(word) = words.pop_front() {
        let Value::String(word) = word else {
            errors
                .push(MatchError::raised(MatchErrorKind::InvalidTarget, format!("compound word {} is not a string (Salt raises TypeError)", py::repr(&word))));
            let text = format!("compound: {}: a word is not a string", quote(shown));
            return finish(false, text, parts, errors);
        };
        if let Some(op) = Tok::operator(&word) {
            match results.last() {
                Some(&last) => {
                    if last == Tok::Open && (op == Tok::And || op == Tok::Or) {
                        let msg = format!("invalid operator `{word}` right after `(`");
                        errors.push(MatchError::logged(MatchErrorKind::InvalidCompound, msg.clone()));
                        return finish(false, format!("compound: {}: {msg}", quote(shown)), parts, errors);
                    }
                    if op == Tok::Not && !matches!(last, Tok::And | Tok::Or | Tok::Open) {
                        // Salt inserts an implicit `and` before a `not` that follows a term.
                        results.push(Tok::And);
                    }
                    results.push(op);
                }
                None => {
                    if op != Tok::Open && op != Tok::Not {
                        let msg = format!("invalid beginning operator `{word}`");
                        errors.push(MatchError::logged(MatchErrorKind::InvalidCompound, msg.clone()));
                        return finish(false, format!("compound: {}: {msg}", quote(shown)), parts, errors);
                    }
                    results.push(op);
                }
            }
            continue;
        }
        let info = parse_target(&word);
        let Some(engine) = info.engine else {
            let part = glob::matches(ctx, &word);
            warn_attached_parens(&word, &mut errors);
            results.push(Tok::Val(part.returned));
            parts.push(part);
            continue;
        };
        if engine == 'N' {
            let expansion = nodegroup::nodegroup_comp(info.pattern, ctx.nodegroups);
            let fatal = expansion.errors.iter().any(|e| e.fatal);
            errors.extend(expansion.errors.iter().cloned());
            let spliced: Vec<String> = expansion.words.iter().map(py::str_of).collect();
            let explanation = if expansion.words.is_empty() {
                format!("nodegroup {} contributes nothing to the expression", quote(info.pattern))
            } else {
                format!("nodegroup {} expands to {}", quote(info.pattern), quote(&spliced.join(" ")))
            };
            let mut part = MatchOutcome::new("nodegroup", info.pattern, false, explanation);
            part.errors = expansion.errors.clone();
            parts.push(part);
            if fatal {
                return finish(false, format!("compound: {}: invalid nodegroup", quote(shown)), parts, errors);
            }
            if !expansion.wrapped && spliced.iter().any(|w| w == "or") && (!results.is_empty() || !words.is_empty()) {
                errors.push(MatchError::quirk(format!(
                    "nodegroup {} has no nested N@, so Salt splices `{}` in without parentheses; \
                     the surrounding operators bind to its first and last terms",
                    quote(info.pattern),
                    spliced.join(" ")
                )));
            }
            spliced_words += expansion.words.len();
            if spliced_words > nodegroup::MAX_EXPANSION {
                errors.push(MatchError::logged(
                    MatchErrorKind::InvalidNodegroup,
                    format!("nodegroup {} expands to more than {} words", quote(info.pattern), nodegroup::MAX_EXPANSION),
                ));
                return finish(false, format!("compound: {}: nodegroup expansion too large", quote(shown)), parts, errors);
            }
            for w in expansion.words.into_iter().rev() {
                words.push_front(w);
            }
            continue;
        }
        let Some(matcher) = engine_matcher(engine) else {
            let msg = format!("unsupported target engine `{engine}@` in {} (range targeting needs seco.range, which is not installed)", quote(&word));
            errors.push(MatchError::logged(MatchErrorKind::UnsupportedEngine, msg.clone()));
            return finish(false, format!("compound: {}: {msg}", quote(shown)), parts, errors);
        };
        let part = run_engine(ctx, matcher, info.pattern, info.delimiter);
        let fatal = part.is_fatal();
        errors.extend(part.errors.iter().cloned());
        results.push(Tok::Val(part.returned));
        parts.push(part);
        if fatal {
            // Salt's matcher raised, and the exception leaves the compound matcher.
            return finish(false, format!("compound: {}: a term raised an error", quote(shown)), parts, errors);
        }
    }
    let expr: Vec<&str> = results.iter().map(|t| t.text()).collect();
    let expr = expr.join(" ");
    match python_eval(&results) {
        Ok(v) => finish(v, format!("compound: {} -> {expr}", quote(shown)), parts, errors),
        Err(e) => {
            let shown_expr = if expr.is_empty() { "(nothing)".to_string() } else { expr.clone() };
            let msg = format!("the expression `{shown_expr}` is not valid Python ({e}), so Salt treats it as False");
            errors.push(MatchError::logged(MatchErrorKind::InvalidCompound, msg.clone()));
            finish(false, format!("compound: {} -> {shown_expr}: invalid expression", quote(shown)), parts, errors)
        }
    }
}

/// Run one engine on its pattern, as `<engine>_match.match(pattern, delimiter=...)`.
fn run_engine(ctx: &MatchContext, matcher: &str, pattern: &str, delimiter: Option<char>) -> MatchOutcome {
    let delim = delimiter.map(|c| c.to_string());
    let value = Value::String(pattern.to_string());
    match matcher {
        "pcre" => pcre::matches(ctx, pattern),
        "list" => list::matches(ctx, &value),
        "ipcidr" => ipcidr::matches(ctx, &value),
        "resource" => resource::resource(ctx, &value),
        "managing_minion" => resource::managing_minion(ctx, &value),
        other => match subdict::Kind::from_matcher(other) {
            Some(kind) => subdict::matches(ctx, kind, pattern, delim.as_deref()),
            None => glob::matches(ctx, pattern),
        },
    }
}

/// `nodegroup_match.match(tgt, nodegroups)`: False without nodegroups or without this group,
/// else the compound matcher on the group's expansion.
pub fn matches_nodegroup(ctx: &MatchContext, tgt: &Value) -> MatchOutcome {
    let shown = py::str_of(tgt);
    let groups = match ctx.nodegroups {
        Value::Object(m) if !m.is_empty() => m,
        _ => {
            return MatchOutcome::failed(
                "nodegroup",
                shown.clone(),
                // With none at all, the configuration read is likely not the master's (which
                // defines them): a warning, with how to say it, not an error.
                MatchError {
                    severity: super::Severity::Warning,
                    ..MatchError::logged(
                        MatchErrorKind::UndefinedNodegroup,
                        format!(
                            "no nodegroups are defined here, so nodegroup {} never matches (if the master defines them, give its configuration with -c DIR or set nodegroups: in salt-analyzer.yaml)",
                            quote(&shown)
                        ),
                    )
                },
            );
        }
    };
    let name = match tgt {
        Value::String(s) => s.as_str(),
        Value::Array(_) | Value::Object(_) => {
            return MatchOutcome::failed(
                "nodegroup",
                shown,
                MatchError::raised(MatchErrorKind::InvalidTarget, format!("nodegroup target {} is unhashable (Salt raises TypeError)", py::repr(tgt))),
            )
        }
        // A non-string name is never a key of nodegroups loaded from a config file.
        _ => "",
    };
    if name.is_empty() || !groups.contains_key(name) {
        return MatchOutcome::failed(
            "nodegroup",
            shown.clone(),
            MatchError::logged(MatchErrorKind::UndefinedNodegroup, format!("nodegroup {} is not defined", quote(&shown))),
        );
    }
    let expansion = nodegroup::nodegroup_comp(name, ctx.nodegroups);
    let spliced: Vec<String> = expansion.words.iter().map(py::str_of).collect();
    let display = spliced.join(" ");
    if expansion.errors.iter().any(|e| e.fatal) {
        let mut out = MatchOutcome::new("nodegroup", name, false, format!("nodegroup {} cannot be expanded", quote(name)));
        out.errors = expansion.errors;
        return out;
    }
    let inner = matches_words(ctx, expansion.words.clone(), &display);
    let verb = if inner.matched { "matches" } else { "does not match" };
    let mut out = MatchOutcome::new("nodegroup", name, inner.matched, format!("nodegroup {} expands to {}, which {verb}", quote(name), quote(&display)));
    out.errors = expansion.errors;
    out.errors.extend(inner.errors.iter().cloned());
    out.parts.push(inner);
    out
}

/// Parentheses glued to a word are part of the glob, not grouping (`salt/matchers/compound_match.py`, `salt/utils/minions.py` `parse_target`).
fn warn_attached_parens(word: &str, errors: &mut Vec<MatchError>) {
    if word.len() > 1 && (word.starts_with('(') || word.ends_with(')')) {
        errors.push(MatchError::quirk(format!("{} is globbed as a whole: parentheses must be separate words (`( a or b )`)", quote(word))));
    }
}

/// Python's deepest bracket nesting (`MAXLEVEL` in the tokenizer).
const MAX_LEVEL: usize = 200;

/// A parsed Python expression over Salt's result tokens.
#[derive(Debug)]
enum Expr {
    Const(Returned),
    EmptyTuple,
    Not(Box<Expr>),
    And(Vec<Expr>),
    Or(Vec<Expr>),
    /// `x ( ... )`: calling a bool, list or tuple, which raises TypeError when evaluated.
    Call(Box<Expr>, Option<Box<Expr>>),
}

/// The value of a (sub)expression: `True`, `False`, `[]` or `()`.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Obj {
    Bool(bool),
    EmptyList,
    EmptyTuple,
}

impl Obj {
    fn truthy(self) -> bool {
        self == Obj::Bool(true)
    }
}

/// `bool(eval(" ".join(results)))`, or the reason Python raises.
fn python_eval(toks: &[Tok]) -> Result<bool, String> {
    // The tokenizer checks bracket nesting first; `[]` opens a level of its own.
    let mut level = 0usize;
    for t in toks {
        match t {
            Tok::Open | Tok::Val(Returned::EmptyList) => {
                if level >= MAX_LEVEL {
                    return Err("too many nested parentheses".into());
                }
                if *t == Tok::Open {
                    level += 1;
                }
            }
            Tok::Close => {
                if level == 0 {
                    return Err("unmatched ')'".into());
                }
                level -= 1;
            }
            _ => {}
        }
    }
    if level > 0 {
        return Err("'(' was never closed".into());
    }
    let mut p = ExprParser { toks, pos: 0 };
    let expr = p.or_test()?;
    if p.pos != toks.len() {
        return Err("invalid syntax".into());
    }
    eval(&expr).map(Obj::truthy)
}

struct ExprParser<'t> {
    toks: &'t [Tok],
    pos: usize,
}

impl ExprParser<'_> {
    fn peek(&self) -> Option<Tok> {
        self.toks.get(self.pos).copied()
    }
    fn or_test(&mut self) -> Result<Expr, String> {
        let mut items = vec![self.and_test()?];
        while self.peek() == Some(Tok::Or) {
            self.pos += 1;
            items.push(self.and_test()?);
        }
        Ok(if items.len() == 1 { items.remove(0) } else { Expr::Or(items) })
    }
    fn and_test(&mut self) -> Result<Expr, String> {
        let mut items = vec![self.not_test()?];
        while self.peek() == Some(Tok::And) {
            self.pos += 1;
            items.push(self.not_test()?);
        }
        Ok(if items.len() == 1 { items.remove(0) } else { Expr::And(items) })
    }
    fn not_test(&mut self) -> Result<Expr, String> {
        // Consecutive `not`s cannot occur (Salt puts `and` between them), so recursion here
        // is bounded by the bracket nesting checked beforehand.
        if self.peek() == Some(Tok::Not) {
            self.pos += 1;
            return Ok(Expr::Not(Box::new(self.not_test()?)));
        }
        self.primary()
    }
    fn primary(&mut self) -> Result<Expr, String> {
        let mut e = self.atom()?;
        while self.peek() == Some(Tok::Open) {
            self.pos += 1;
            let arg = if self.peek() == Some(Tok::Close) { None } else { Some(Box::new(self.or_test()?)) };
            if self.peek() != Some(Tok::Close) {
                return Err("invalid syntax".into());
            }
            self.pos += 1;
            e = Expr::Call(Box::new(e), arg);
        }
        Ok(e)
    }
    fn atom(&mut self) -> Result<Expr, String> {
        match self.peek() {
            Some(Tok::Val(v)) => {
                self.pos += 1;
                Ok(Expr::Const(v))
            }
            Some(Tok::Open) => {
                self.pos += 1;
                if self.peek() == Some(Tok::Close) {
                    self.pos += 1;
                    return Ok(Expr::EmptyTuple);
                }
                let inner = self.or_test()?;
                if self.peek() != Some(Tok::Close) {
                    return Err("invalid syntax".into());
                }
                self.pos += 1;
                Ok(inner)
            }
            _ => Err("invalid syntax".into()),
        }
    }
}

fn eval(e: &Expr) -> Result<Obj, String> {
    Ok(match e {
        Expr::Const(Returned::True) => Obj::Bool(true),
        Expr::Const(Returned::False) => Obj::Bool(false),
        Expr::Const(Returned::EmptyList) => Obj::EmptyList,
        Expr::EmptyTuple => Obj::EmptyTuple,
        Expr::Not(inner) => Obj::Bool(!eval(inner)?.truthy()),
        Expr::And(items) => {
            let mut last = Obj::Bool(true);
            for item in items {
                last = eval(item)?;
                if !last.truthy() {
                    break;
                }
            }
            last
        }
        Expr::Or(items) => {
            let mut last = Obj::Bool(false);
            for item in items {
                last = eval(item)?;
                if last.truthy() {
                    break;
                }
            }
            last
        }
        Expr::Call(callee, arg) => {
            let f = eval(callee)?;
            if let Some(arg) = arg {
                eval(arg)?;
            }
            let kind = match f {
                Obj::Bool(_) => "bool",
                Obj::EmptyList => "list",
                Obj::EmptyTuple => "tuple",
            };
            return Err(format!("TypeError: '{kind}' object is not callable"));
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use expect_test::expect;
    use serde_json::json;

    fn grains() -> Value {
        json!({
            "os": "Ubuntu",
            "os_family": "Debian",
            "roles": ["web", "db"],
            "deep": {"key": "value"},
            "ipv4": ["127.0.0.1", "10.1.2.3"],
        })
    }

    fn run(tgt: &str) -> MatchOutcome {
        let g = grains();
        let p = json!({"app": {"color": "Blue"}});
        let ng = json!({});
        let ctx = MatchContext::new("web01.example.com", &g, &p).with_nodegroups(&ng);
        matches_str(&ctx, tgt)
    }

    // `salt/matchers/compound_match.py`, `salt/utils/minions.py` `parse_target` results checked against Salt 3008 (id `web01.example.com`).
    #[test]
    fn compound_truth_table() {
        let rows = [
            ("web* and G@os:Ubuntu", true),
            ("not web*", false),
            ("and web*", false),
            ("( and web* )", false),
            ("web* or", false),
            ("G@os:Ubuntu and", false),
            (r"E@web\d+ and L@x,web01.example.com", true),
            ("J@app:color:^bl", true),
            ("I|@app|color|blue", true),
            ("S@10.1.0.0/16", true),
            ("R@%foo", false),
            ("X@foo", false),
            ("web* or G@nonexist:x", true),
            ("N@nosuch and web*", false),
            ("web* and N@nosuch", false),
            // Parentheses must be separate words; implicit `and` before `not`.
            ("(web* or db*)", false),
            ("( web* or db* )", true),
            ("G@os:Ubuntu not db*", true),
            ("not not web*", false),
            ("G@roles:web G@roles:db", false),
            // Alternate delimiters are one character and only after G, P, I, J.
            ("G|@deep|key|value", true),
            ("G@deep|key|value", false),
            ("L|@web01.example.com", false),
        ];
        for (tgt, want) in rows {
            let out = run(tgt);
            assert!(!out.is_fatal(), "{tgt}: {:?}", out.errors);
            assert_eq!(out.matched, want, "{tgt}: {}", out.explanation);
        }
    }

    // `salt/matchers/compound_match.py`, `salt/utils/minions.py` `parse_target`: parse_target's regex.
    #[test]
    fn target_parsing() {
        let t = |w| {
            let i = parse_target(w);
            (i.engine, i.delimiter, i.pattern)
        };
        assert_eq!(t("G@os:Ubuntu"), (Some('G'), None, "os:Ubuntu"));
        assert_eq!(t("G|@a|b"), (Some('G'), Some('|'), "a|b"));
        assert_eq!(t("L|@a"), (None, None, "L|@a"));
        assert_eq!(t("G@@x"), (Some('G'), Some('@'), "x"));
        assert_eq!(t("G@@"), (Some('G'), None, "@"));
        assert_eq!(t("G@"), (None, None, "G@"));
        assert_eq!(t("X@foo"), (None, None, "X@foo"));
        assert_eq!(t("E@a\n"), (Some('E'), None, "a"));
        assert_eq!(t("web*"), (None, None, "web*"));
    }

    // checked against Salt 3008 with CPython 3.11 `eval`: Salt's expression strings, including the odd ones.
    #[test]
    fn python_eval_quirks() {
        use Returned::{EmptyList as L, False as F, True as T};
        use Tok::*;
        let rows: Vec<(Vec<Tok>, Result<bool, ()>)> = vec![
            (vec![Val(T), Or, Val(F), Open, Close], Ok(true)),
            (vec![Open, Close], Ok(false)),
            (vec![Not, Open, Close], Ok(true)),
            (vec![Val(T), Open, Close], Err(())),
            (vec![Val(F), And, Val(T), Open, Close], Ok(false)),
            (vec![Val(L), Or, Val(F)], Ok(false)),
            (vec![Not, Val(L)], Ok(true)),
            (vec![Val(T), And, Val(L)], Ok(false)),
            (vec![Val(T), Val(L)], Err(())),
            (vec![], Err(())),
            (vec![Not], Err(())),
            (vec![Val(T), Or, Val(F), And, Val(F)], Ok(true)),
            (vec![Open, Val(T), Or, Val(F), Close, And, Val(F)], Ok(false)),
        ];
        for (toks, want) in rows {
            assert_eq!(python_eval(&toks).map_err(|_| ()), want, "{toks:?}");
        }
        let deep = |n: usize| {
            let mut v = vec![Open; n];
            v.push(Val(T));
            v.extend(vec![Close; n]);
            v
        };
        assert_eq!(python_eval(&deep(200)), Ok(true));
        assert!(python_eval(&deep(201)).is_err());
    }

    // `salt/matchers/compound_match.py`, `salt/utils/minions.py` `parse_target`: a failing ipcidr pastes `[]`, which is falsy; there is no
    // engine letter for pillar_exact, so `X@`-style unknown letters are globbed.
    #[test]
    fn ipcidr_empty_list_in_expressions() {
        let out = run("S@garbage or web*");
        assert!(out.matched);
        expect!["compound: `S@garbage or web*` -> [] or True"].assert_eq(&out.explanation);
        assert!(run("not S@garbage").matched);
        assert!(!run("S@garbage").matched);
        assert!(!run("S@10.1.2.3/16 and web*").matched);
        assert_eq!(engine_matcher('G'), Some("grain"));
        assert_eq!(engine_matcher('R'), None);
        assert_eq!(engine_matcher('N'), None);
    }

    // Python allows 200 nested brackets; deeper is a SyntaxError. Both fit a small stack.
    #[test]
    fn deep_parentheses() {
        let run = || {
            let deep = |n: usize| format!("{} web* {}", "( ".repeat(n), " )".repeat(n));
            assert!(super::tests::run(&deep(200)).matched);
            assert!(!super::tests::run(&deep(201)).matched);
            assert!(!super::tests::run(&deep(100_000)).matched);
        };
        let joined = std::thread::Builder::new().stack_size(2 << 20).spawn(run).map(|h| h.join());
        assert!(matches!(joined, Ok(Ok(()))));
    }

    #[test]
    fn compound_errors_and_explanations() {
        let out = run("E@( or web*");
        assert!(out.is_fatal());
        let out = run("web* or");
        assert_eq!(out.errors[0].kind, MatchErrorKind::InvalidCompound);
        expect!["compound: `web* or` -> True or: invalid expression"].assert_eq(&out.explanation);
        let out = run("and web*");
        expect!["compound: `and web*`: invalid beginning operator `and`"].assert_eq(&out.explanation);
        let out = run("(web* or db*)");
        assert!(out.errors.iter().any(|e| e.kind == MatchErrorKind::Quirk));
        // An operator error returns before a later term could raise.
        let out = run("( or E@(");
        assert!(!out.is_fatal());
    }
}
