//! `salt/modules/file.py`'s pure path helpers: `join`, `dirname`, `basename`.

use super::args::Sig;
use super::common::{raised, string, Functions};
use minijinja::value::Value as JValue;
use minijinja::Error;

/// Calls `file.<name>` (the whole name, `file.get`); a function not modelled here is inert.
pub(super) fn call(f: &Functions<'_>, name: &str, args: &[JValue]) -> Result<JValue, Error> {
    let a = |sig: &Sig| sig.bind(args);
    match name {
        "file.join" => {
            let b = a(&Sig::new("join", &[], 0).star_args())?;
            let parts = b.star.iter().map(string).collect::<Result<Vec<_>, _>>()?;
            if parts.is_empty() {
                return Err(raised("join() missing 1 required positional argument: 'a'"));
            }
            Ok(JValue::from(posix_join(&parts)))
        }
        "file.dirname" => Ok(JValue::from(posix_split(&a(&Sig::new("dirname", &["path"], 1))?.string(0)?).0)),
        "file.basename" => Ok(JValue::from(posix_split(&a(&Sig::new("basename", &["path"], 1))?.string(0)?).1)),
        _ => Ok(f.inert(name)),
    }
}

/// `posixpath.join(a, *p)`.
fn posix_join(parts: &[String]) -> String {
    let mut path = parts[0].clone();
    for b in &parts[1..] {
        if b.starts_with('/') {
            path = b.clone();
        } else if path.is_empty() || path.ends_with('/') {
            path.push_str(b);
        } else {
            path.push('/');
            path.push_str(b);
        }
    }
    path
}

/// `posixpath.split(p)`: `(dirname, basename)`; the head loses its trailing slashes unless it
/// is all slashes.
fn posix_split(p: &str) -> (String, String) {
    let i = p.rfind('/').map_or(0, |i| i + 1);
    let (head, tail) = (&p[..i], &p[i..]);
    let head = if !head.is_empty() && head.chars().any(|c| c != '/') { head.trim_end_matches('/') } else { head };
    (head.to_string(), tail.to_string())
}
