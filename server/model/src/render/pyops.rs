//! Python's `%` operator in templates. minijinja's `%` is numeric only, while Salt's Jinja is
//! Python, where `"/home/%s" % name` formats a string. Each `a % b` is rewritten to a call,
//! `__salt_mod(a , b)`, found with minijinja's own parser (so precedence and parentheses are
//! exactly minijinja's), inserting characters only, never a line break, so every line keeps
//! its number.

use minijinja::machinery::ast::{self, CallArg, Expr, Stmt};
use minijinja::machinery::{parse, WhitespaceConfig};
use minijinja::value::{Value, ValueKind};
use minijinja::{Environment, Error, ErrorKind};

use crate::py::percent;
use crate::render::convert::to_json;
use crate::render::mutable::from_json;

/// The function the rewritten operators call: `(left, right, right_is_a_tuple_literal)`.
pub const MOD: &str = "__salt_mod";

/// Registers [`MOD`].
pub fn register(env: &mut Environment<'_>) {
    env.add_function(MOD, |left: Value, right: Value, tuple: bool| -> Result<Value, Error> {
        super::budget::check()?;
        let fail = |e: String| Error::new(ErrorKind::InvalidOperation, e);
        let (l, r) = (to_json(&left), to_json(&right));
        // A tuple's items are the arguments (a tuple value, or a tuple literal on the right),
        // a mapping is what `%(key)s` reads, anything else is the one argument.
        let tuple = tuple || crate::render::mutable::is_tuple(&right);
        match (&l, &r) {
            (serde_json::Value::String(format), serde_json::Value::Array(items)) if tuple => {
                percent::printf(format, items, None).map(Value::from).map_err(fail)
            }
            (serde_json::Value::String(format), serde_json::Value::Object(_)) => percent::printf(format, &[], Some(&r)).map(Value::from).map_err(fail),
            (serde_json::Value::String(format), _) => percent::printf(format, std::slice::from_ref(&r), None).map(Value::from).map_err(fail),
            _ if matches!(left.kind(), ValueKind::Number | ValueKind::Bool) => percent::modulo(&l, &r).map(|v| from_json(&v)).map_err(fail),
            _ => Err(fail(format!("unsupported operand type(s) for %: '{}' and '{}'", crate::py::builtins::type_name(&l), crate::py::builtins::type_name(&r)))),
        }
    });
}

/// `src` with every `%` operator turned into a [`MOD`] call; `src` itself when it has none or
/// does not parse (the render then reports the syntax error).
pub fn rewrite(src: &str, syntax: &minijinja::syntax::SyntaxConfig) -> String {
    // Most templates have no `%` but those of their `{% %}` tags: skip the second parse.
    let b = src.as_bytes();
    let operator = (0..b.len()).any(|i| b[i] == b'%' && (i == 0 || b[i - 1] != b'{') && b.get(i + 1) != Some(&b'}'));
    if !operator {
        return src.to_string();
    }
    let ws = WhitespaceConfig { keep_trailing_newline: true, ..Default::default() };
    let Ok(tree) = parse(src, "<template>", syntax.clone(), ws) else { return src.to_string() };
    let mut edits = Edits { src, inserts: Vec::new() };
    edits.stmt(&tree);
    if edits.inserts.is_empty() {
        return src.to_string();
    }
    // Stable: at one offset, an outer call opens before an inner one and closes after it.
    edits.inserts.sort_by_key(|(at, _)| *at);
    let mut out = String::with_capacity(src.len() + edits.inserts.len() * 12);
    let mut last = 0;
    for (at, text) in edits.inserts {
        if at < last || at > src.len() {
            return src.to_string();
        }
        out.push_str(&src[last..at]);
        match text {
            Insert::Text(t) => {
                out.push_str(t);
                last = at;
            }
            Insert::Comma => {
                out.push(',');
                last = at + 1;
            }
        }
    }
    out.push_str(&src[last..]);
    out
}

enum Insert {
    Text(&'static str),
    /// Replaces the `%` at this offset.
    Comma,
}

struct Edits<'s> {
    src: &'s str,
    inserts: Vec<(usize, Insert)>,
}

impl Edits<'_> {
    fn stmts(&mut self, body: &[Stmt<'_>]) {
        body.iter().for_each(|s| self.stmt(s));
    }

    fn stmt(&mut self, s: &Stmt<'_>) {
        match s {
            Stmt::Template(t) => self.stmts(&t.children),
            Stmt::EmitExpr(e) => self.expr(&e.expr),
            Stmt::EmitRaw(_) => {}
            Stmt::ForLoop(f) => {
                self.expr(&f.target);
                self.expr(&f.iter);
                if let Some(e) = &f.filter_expr {
                    self.expr(e);
                }
                self.stmts(&f.body);
                self.stmts(&f.else_body);
            }
            Stmt::IfCond(i) => {
                self.expr(&i.expr);
                self.stmts(&i.true_body);
                self.stmts(&i.false_body);
            }
            Stmt::WithBlock(w) => {
                for (t, e) in &w.assignments {
                    self.expr(t);
                    self.expr(e);
                }
                self.stmts(&w.body);
            }
            Stmt::Set(s) => {
                self.expr(&s.target);
                self.expr(&s.expr);
            }
            Stmt::SetBlock(s) => {
                if let Some(f) = &s.filter {
                    self.expr(f);
                }
                self.stmts(&s.body);
            }
            Stmt::AutoEscape(a) => {
                self.expr(&a.enabled);
                self.stmts(&a.body);
            }
            Stmt::FilterBlock(f) => {
                self.expr(&f.filter);
                self.stmts(&f.body);
            }
            Stmt::Block(b) => self.stmts(&b.body),
            Stmt::Import(i) => self.expr(&i.expr),
            Stmt::FromImport(f) => self.expr(&f.expr),
            Stmt::Extends(e) => self.expr(&e.name),
            Stmt::Include(i) => self.expr(&i.name),
            Stmt::Macro(m) => self.macro_decl(m),
            Stmt::CallBlock(c) => {
                self.call(&c.call);
                self.macro_decl(&c.macro_decl);
            }
            Stmt::Continue(_) | Stmt::Break(_) => {}
            Stmt::Do(d) => self.call(&d.call),
        }
    }

    fn macro_decl(&mut self, m: &ast::Macro<'_>) {
        m.defaults.iter().for_each(|e| self.expr(e));
        self.stmts(&m.body);
    }

    fn call(&mut self, c: &ast::Call<'_>) {
        self.expr(&c.expr);
        self.args(&c.args);
    }

    fn args(&mut self, args: &[CallArg<'_>]) {
        for a in args {
            match a {
                CallArg::Pos(e) | CallArg::Kwarg(_, e) | CallArg::PosSplat(e) | CallArg::KwargSplat(e) => self.expr(e),
            }
        }
    }

    fn expr(&mut self, e: &Expr<'_>) {
        match e {
            Expr::Var(_) | Expr::Const(_) => {}
            Expr::Slice(s) => {
                self.expr(&s.expr);
                for part in [&s.start, &s.stop, &s.step].into_iter().flatten() {
                    self.expr(part);
                }
            }
            Expr::UnaryOp(u) => self.expr(&u.expr),
            Expr::BinOp(b) if matches!(b.op, ast::BinOpKind::Rem) => {
                let (whole, left, right) = (b.span(), b.left.span(), b.right.span());
                // The `%` is the one between the operands (only spaces and closing
                // parentheses of the left operand can stand next to it).
                let gap = self.src.get(left.end_offset as usize..right.start_offset as usize).unwrap_or("");
                let Some(pct) = gap.find('%') else {
                    self.expr(&b.left);
                    self.expr(&b.right);
                    return;
                };
                let tuple = matches!(&b.right, Expr::List(_)) && self.src[right.start_offset as usize..].starts_with('(');
                self.inserts.push((whole.start_offset as usize, Insert::Text("__salt_mod(")));
                self.expr(&b.left);
                self.inserts.push((left.end_offset as usize + pct, Insert::Comma));
                self.expr(&b.right);
                self.inserts.push((whole.end_offset as usize, Insert::Text(if tuple { ", true)" } else { ", false)" })));
            }
            Expr::BinOp(b) => {
                self.expr(&b.left);
                self.expr(&b.right);
            }
            Expr::Compare(c) => {
                self.expr(&c.expr);
                c.ops.iter().for_each(|op| self.expr(&op.expr));
            }
            Expr::IfExpr(i) => {
                self.expr(&i.test_expr);
                self.expr(&i.true_expr);
                if let Some(f) = &i.false_expr {
                    self.expr(f);
                }
            }
            Expr::Filter(f) => {
                if let Some(e) = &f.expr {
                    self.expr(e);
                }
                self.args(&f.args);
            }
            Expr::Test(t) => {
                self.expr(&t.expr);
                self.args(&t.args);
            }
            Expr::GetAttr(g) => self.expr(&g.expr),
            Expr::GetItem(g) => {
                self.expr(&g.expr);
                self.expr(&g.subscript_expr);
            }
            Expr::Call(c) => self.call(c),
            Expr::List(l) => l.items.iter().for_each(|e| self.expr(e)),
            Expr::Map(m) => {
                m.keys.iter().for_each(|e| self.expr(e));
                m.values.iter().for_each(|e| self.expr(e));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percent_operators_become_calls_on_the_same_lines() {
        let src =
            "{% set h = \"/home/%s\" % name %}\n{{ (a + b) % 2 }} {{ '%s-%s' % (x, y) }}\n{{ '%d%%' %\n n|int }} {# 5 % 2 #}{% raw %}{{ 1 % 2 }}{% endraw %}";
        let out = rewrite(src, &Default::default());
        expect_test::expect![[r#"
            {% set h = __salt_mod("/home/%s" , name, false) %}
            {{ __salt_mod((a + b) , 2, false) }} {{ __salt_mod('%s-%s' , (x, y), true) }}
            {{ __salt_mod('%d%%' ,
             n|int, false) }} {# 5 % 2 #}{% raw %}{{ 1 % 2 }}{% endraw %}"#]]
        .assert_eq(&out);
        assert_eq!(out.lines().count(), src.lines().count());
    }
}
