//! Python's `re` as the translation (`py::re`) answers it, and the `%` operator (`py::percent`):
//! any pattern, subject, replacement and flags through compile, `match`, `search` (every match,
//! as `findall` walks them) and `sub`; any format string and arguments through `printf` and
//! `modulo`. Never a panic; a match's groups lie inside the subject on character boundaries,
//! and `re.match` answers the same through both compiled forms.
#![no_main]

use libfuzzer_sys::fuzz_target;
use model::py::percent;
use model::py::re::{PyRegex, PySearch, IGNORECASE, MULTILINE};
use serde_json::Value;

fuzz_target!(|data: &[u8]| {
    let Some((&flag_byte, rest)) = data.split_first() else { return };
    let Ok(text) = std::str::from_utf8(rest) else { return };
    let mut parts = text.splitn(5, '\0');
    let pattern = parts.next().unwrap_or("");
    let subject = parts.next().unwrap_or("");
    let repl = parts.next().unwrap_or("");
    let fmt = parts.next();
    let args = parts.next();
    regex(pattern, subject, repl, flag_byte);
    if let Some(fmt) = fmt {
        format(fmt, args.unwrap_or(""));
    }
});

fn regex(pattern: &str, subject: &str, repl: &str, flag_byte: u8) {
    let mut flags = 0;
    if flag_byte & 1 != 0 {
        flags |= IGNORECASE;
    }
    if flag_byte & 2 != 0 {
        flags |= MULTILINE;
    }
    let anchored = PyRegex::compile(pattern);
    let Ok(re) = PySearch::compile(pattern, flags) else { return };
    let check = |groups: &[Option<std::ops::Range<usize>>]| {
        assert_eq!(groups.len(), re.groups() + 1);
        for r in groups.iter().flatten() {
            // Slicing asserts the range is inside the subject, on character boundaries.
            let _ = &subject[r.clone()];
        }
    };
    // `findall`'s walk: after an empty match, one character on.
    let mut pos = 0;
    for _ in 0..64 {
        let Ok(Some(groups)) = re.search(subject, pos) else { break };
        check(&groups);
        let whole = groups[0].clone().expect("group 0 of a match");
        assert!(whole.start >= pos, "a match before the search position");
        pos = if whole.is_empty() {
            match subject[whole.end..].chars().next() {
                Some(c) => whole.end + c.len_utf8(),
                None => break,
            }
        } else {
            whole.end
        };
    }
    let started = re.match_start(subject);
    if let Ok(Some(groups)) = &started {
        check(groups);
        assert_eq!(groups[0].as_ref().map(|r| r.start), Some(0));
    }
    if flags == 0 {
        // Both compiled forms come from one parse: they accept the same patterns and agree on
        // `re.match` (unless a backtracking limit stopped one).
        let anchored = anchored.expect("PyRegex refuses a pattern PySearch compiles");
        if let (Ok(a), Ok(b)) = (anchored.re_match(subject), &started) {
            assert_eq!(a, b.is_some(), "re.match differs between PyRegex and PySearch");
        }
    }
    let _ = re.sub(repl, subject);
}

fn format(fmt: &str, args: &str) {
    let value: Value = serde_json::from_str(args).unwrap_or(Value::String(args.to_string()));
    let _ = match &value {
        Value::Array(items) => percent::printf(fmt, items, None),
        Value::Object(_) => percent::printf(fmt, &[], Some(&value)),
        other => percent::printf(fmt, std::slice::from_ref(other), None),
    };
    if let Value::Array(items) = &value {
        if let [a, b] = items.as_slice() {
            let _ = percent::modulo(a, b);
        }
    }
}
