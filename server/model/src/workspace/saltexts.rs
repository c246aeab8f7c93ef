//! `saltexts:` in `salt-analyzer.yaml`: the Salt extensions (saltext packages) the minions
//! have installed, as users write their names ([`normalise`]), checked against the packages the
//! committed extension catalog knows (`state/saltexts.json`, whose state modules
//! `state::catalog` reads).

use std::path::Path;
use std::sync::OnceLock;

use crate::value::{Val, V};
use crate::workspace::config::ConfigError;

/// A Salt extension's name as `saltexts:` accepts it, normalised: lower case, each run of
/// `-`, `_` and `.` one `-` (PEP 503, as pip compares names), and `saltext-` in front when it
/// is not there. `saltext.mysql`, `saltext-mysql`, `saltext_mysql`, `SaltExt.MySQL` and
/// `mysql` are all `saltext-mysql`.
pub fn normalise(name: &str) -> String {
    let mut out = String::with_capacity(name.len() + 8);
    let mut sep = false;
    for c in name.trim().chars() {
        if matches!(c, '-' | '_' | '.') {
            sep = true;
            continue;
        }
        if sep && !out.is_empty() {
            out.push('-');
        }
        sep = false;
        out.extend(c.to_lowercase());
    }
    if !out.starts_with("saltext-") {
        out.insert_str(0, "saltext-");
    }
    out
}

/// The extension catalog's package names, normalised and sorted.
pub fn known() -> &'static [String] {
    static NAMES: OnceLock<Vec<String>> = OnceLock::new();
    NAMES.get_or_init(|| {
        let root: serde_json::Value = serde_json::from_str(include_str!("../state/saltexts.json")).unwrap_or_default();
        let mut names: Vec<String> = root.get("packages").and_then(|p| p.as_object()).into_iter().flatten().map(|(k, _)| normalise(k)).collect();
        names.sort();
        names
    })
}

/// `saltexts:` (a list of names, or one name), normalised, each once, in the order written. A
/// name the catalog does not know is an error at its line: salt-analyzer cannot say what it
/// provides.
pub fn parse(v: &Val, text: &str, file: &Path) -> Result<Vec<String>, ConfigError> {
    let line = |v: &Val| v.at.as_ref().map_or(0, |at| syntax::line_index::line_number(text, at.span.start));
    let items: Vec<&Val> = match &v.v {
        V::List(l) => l.iter().collect(),
        V::None => Vec::new(),
        _ => vec![v],
    };
    let mut out: Vec<String> = Vec::new();
    for item in items {
        let Some(name) = item.as_str() else {
            return Err(ConfigError { path: file.to_path_buf(), line: line(item), message: format!("saltexts: {} is not a package name", item.py_str()) });
        };
        let normal = normalise(name);
        if known().binary_search(&normal).is_err() {
            return Err(ConfigError {
                path: file.to_path_buf(),
                line: line(item),
                message: format!(
                    "saltexts: {name} ({normal}) is not a Salt extension salt-analyzer knows (docs/configuration.md lists them); a custom extension's state modules can go in a file root's _states/ instead"
                ),
            });
        }
        if !out.contains(&normal) {
            out.push(normal);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_as_users_write_them() {
        for name in ["saltext.mysql", "saltext-mysql", "saltext_mysql", "SaltExt.MySQL", "mysql", " mysql ", "saltext..mysql"] {
            assert_eq!(normalise(name), "saltext-mysql", "{name}");
        }
        assert_eq!(normalise("saltext.snapper-state"), "saltext-snapper-state");
        assert_eq!(normalise("snapper_state"), "saltext-snapper-state");
        assert!(known().len() > 40 && known().iter().any(|n| n == "saltext-vault"));
    }

    #[test]
    fn the_configuration_doc_lists_every_known_extension() {
        let doc = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/configuration.md")).expect("docs/configuration.md");
        let missing: Vec<&String> = known().iter().filter(|name| !doc.contains(&format!("`{name}`"))).collect();
        assert!(missing.is_empty(), "docs/configuration.md (Salt extensions) does not list {missing:?}");
    }
}
