//! The wall-clock budget of one file's render. minijinja's fuel bounds how many instructions a
//! template runs, not how long our own filters, tests, functions and methods take on large data
//! inside them; so a render sets a deadline on its thread ([`start`]) and every call into our
//! code from a template (filters, tests, the `salt` functions, methods of strings and of the
//! mutable dicts and lists, the `%` operator, imports, each printed `{{ }}`) checks it
//! ([`check`]): past it, the render stops with one error naming the budget.

use std::cell::Cell;
use std::time::{Duration, Instant};

use minijinja::{Error, ErrorKind};

/// How long one file's render may take, imports and the renders `salt` functions make inside it
/// (`map.data`'s layer templates) included. Salt has no such limit; a template this slow
/// (rendering a real state tree takes milliseconds a file) is a runaway, as a fuel-exhausting
/// loop is.
pub const DEFAULT: Duration = Duration::from_secs(10);

thread_local! {
    /// The deadline of the render running on this thread, and its budget (for the message).
    static DEADLINE: Cell<Option<(Instant, Duration)>> = const { Cell::new(None) };
}

/// The deadline of one render, in force until it is dropped. A render inside another (a
/// template a `salt` function renders) keeps the outer deadline when that is sooner.
pub struct Deadline {
    outer: Option<(Instant, Duration)>,
}

/// Starts a render's budget on this thread.
pub fn start(budget: Duration) -> Deadline {
    let outer = DEADLINE.get();
    let mine = Instant::now().checked_add(budget).map(|at| (at, budget));
    let sooner = match (outer, mine) {
        (Some(o), Some(m)) if o.0 <= m.0 => Some(o),
        (o, None) => o,
        (_, m) => m,
    };
    DEADLINE.set(sooner);
    Deadline { outer }
}

impl Drop for Deadline {
    fn drop(&mut self) {
        DEADLINE.set(self.outer);
    }
}

/// An error once the render running on this thread is past its deadline.
pub fn check() -> Result<(), Error> {
    match DEADLINE.get() {
        Some((at, budget)) if Instant::now() >= at => Err(Error::new(ErrorKind::InvalidOperation, exceeded(budget))),
        _ => Ok(()),
    }
}

/// What the error says.
pub fn exceeded(budget: Duration) -> String {
    format!("rendering this file took longer than the {} salt-analyzer gives one file, so it was stopped", words(budget))
}

fn words(d: Duration) -> String {
    if d.as_millis() >= 1000 && d.subsec_millis() == 0 {
        format!("{} s", d.as_secs())
    } else {
        format!("{} ms", d.as_millis())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_inner_render_keeps_the_sooner_deadline() {
        assert!(check().is_ok());
        let outer = start(Duration::ZERO);
        assert!(check().is_err());
        {
            let _inner = start(DEFAULT);
            assert!(check().is_err(), "the outer render's deadline has passed");
        }
        drop(outer);
        assert!(check().is_ok());
        let _outer = start(DEFAULT);
        {
            let _inner = start(Duration::ZERO);
            assert!(check().is_err_and(|e| e.to_string().contains("longer than the 0 ms")));
        }
        assert!(check().is_ok());
    }
}
