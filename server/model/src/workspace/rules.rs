//! `rules:` in `salt-analyzer.yaml`: which codes are reported and how seriously, for the whole
//! tree and per path glob, so a team's choices live in the repository (what `check --select`
//! and `--ignore` say for one run):
//!
//! ```yaml
//! rules:
//!   ignore: [unknown-function]
//!   severity: {likely-typo: error}
//!   paths:
//!     "legacy/*": {ignore: [missing-include], severity: {unknown-argument: warning}}
//! ```
//!
//! `select` reports only the codes it lists, `enable` turns on codes that are off by default
//! (salt-lint's formatting rules, [`Code::on_by_default`]) and keeps the rest, `ignore` leaves
//! codes out, `severity` sets a code's (`error`, `warning`, `hint`). In a list, `style` stands
//! for every code of that category. A path entry applies to the files its glob matches
//! (Python's `fnmatch` on the path relative to the workspace root: `*` matches `/` too), after
//! the top-level rules and the entries before it: its `select` replaces, its `enable` and
//! `ignore` add, its `severity` goes over.
//!
//! A `.salt-lint` file ([`SaltLint`]) turns on every code replacing a salt-lint rule, as
//! salt-lint runs all of its rules, and leaves a code out where salt-lint would skip all the
//! rules it replaces (`skip_list`, `exclude_paths`, `tags`, `rules: ID: ignore:`).

use std::path::Path;

use crate::diagnostic::{Code, Severity};
use crate::value::{Val, V};
use crate::workspace::config::ConfigError;
use crate::workspace::keys::RulesKey;
use crate::workspace::saltlint::SaltLint;

/// One set of choices.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct RuleSet {
    select: Option<Vec<Code>>,
    enable: Vec<Code>,
    ignore: Vec<Code>,
    severity: Vec<(Code, Severity)>,
}

/// The workspace's `rules:`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Rules {
    all: RuleSet,
    /// Each path glob's choices, in the order written.
    paths: Vec<(String, RuleSet)>,
    /// The workspace's `.salt-lint`, when it has one.
    salt_lint: Option<SaltLint>,
}

impl Rules {
    /// Whether there is nothing to apply.
    pub fn is_empty(&self) -> bool {
        *self == Rules::default()
    }

    /// How a finding of `code` in the file `rel` (relative to the workspace root, `/`-separated)
    /// is reported: `None` when it is not, else its severity (`default`, the finding's own,
    /// unless a rule sets it).
    pub fn judge(&self, code: Code, rel: &str, default: Severity) -> Option<Severity> {
        let mut select: Option<&[Code]> = None;
        let mut ignored = false;
        let mut enabled = code.on_by_default();
        let mut severity = default;
        let sets = std::iter::once(&self.all).chain(self.paths.iter().filter(|(glob, _)| crate::py::fnmatch::fnmatch(rel, glob)).map(|(_, s)| s));
        for set in sets {
            if let Some(s) = &set.select {
                select = Some(s);
            }
            ignored |= set.ignore.contains(&code);
            enabled |= set.enable.contains(&code);
            if let Some((_, s)) = set.severity.iter().rev().find(|(c, _)| *c == code) {
                severity = *s;
            }
        }
        if let Some(salt_lint) = &self.salt_lint {
            let ids = code.salt_lint();
            if !ids.is_empty() {
                if ids.iter().all(|id| salt_lint.skips(id, rel)) {
                    return None;
                }
                enabled = true;
            }
        }
        let selected = select.map_or(enabled, |s| s.contains(&code));
        (selected && !ignored).then_some(severity)
    }

    /// Whether salt-lint's rule `id` is skipped for the file `rel` by the `.salt-lint` file
    /// (the style rules ask per rule, since `deprecated-state` replaces fourteen).
    pub fn salt_lint_skips(&self, id: &str, rel: &str) -> bool {
        self.salt_lint.as_ref().is_some_and(|s| s.skips(id, rel))
    }

    /// Turns on codes that are off by default (`check --select` names them).
    pub fn enable(&mut self, codes: impl IntoIterator<Item = Code>) {
        self.all.enable.extend(codes);
    }

    /// Applies the rules to a finding of `code` at `file` under the workspace `root`.
    pub fn judge_at(&self, code: Code, file: &Path, root: &Path, default: Severity) -> Option<Severity> {
        if self.is_empty() {
            return code.on_by_default().then_some(default);
        }
        let rel = file.strip_prefix(root).unwrap_or(file).to_string_lossy().replace('\\', "/");
        self.judge(code, &rel, default)
    }
}

impl Rules {
    /// A `.salt-lint` file's choices laid under these (a team moving from salt-lint changes
    /// nothing); a file salt-lint would refuse (no mapping) changes nothing.
    pub fn with_salt_lint(mut self, text: &str) -> Rules {
        if let Some(s) = SaltLint::parse(text) {
            self.salt_lint = Some(s);
        }
        self
    }
}

/// Reads `rules:` (`v`) of the workspace file `path`, whose text is `text` (for lines).
pub fn parse(v: &Val, text: &str, path: &Path) -> Result<Rules, ConfigError> {
    let err = |at: &Val, message: String| ConfigError {
        path: path.to_path_buf(),
        line: at.at.as_ref().map_or(0, |a| syntax::line_index::line_number(text, a.span.start)),
        message,
    };
    let Some(d) = v.as_dict() else {
        let keys: Vec<&str> = RulesKey::ALL.iter().map(|k| k.name()).collect();
        return Err(err(v, format!("rules: must be a mapping ({})", keys.join(", "))));
    };
    let set = |d: &crate::value::Dict, within: &str, top: bool| -> Result<RuleSet, ConfigError> {
        let mut out = RuleSet::default();
        for (k, val) in &d.0 {
            let name = k.py_str();
            match RulesKey::of(&name).filter(|key| top || key.per_path()) {
                Some(RulesKey::Select) => out.select = Some(codes(val, &format!("{within}select"), &err)?),
                Some(RulesKey::Enable) => out.enable = codes(val, &format!("{within}enable"), &err)?,
                Some(RulesKey::Ignore) => out.ignore = codes(val, &format!("{within}ignore"), &err)?,
                Some(RulesKey::Severity) => {
                    let Some(m) = val.as_dict() else { return Err(err(val, format!("{within}severity: must map codes to error, warning or hint"))) };
                    for (c, s) in &m.0 {
                        let code = code_of(c, &format!("{within}severity"), &err)?;
                        let severity = match s.py_str().as_str() {
                            "error" => Severity::Error,
                            "warning" => Severity::Warning,
                            "hint" => Severity::Hint,
                            other => return Err(err(s, format!("{within}severity: `{other}` for {} is not error, warning or hint", code.as_str()))),
                        };
                        out.severity.push((code, severity));
                    }
                }
                Some(RulesKey::Paths) => {}
                None => {
                    let known: Vec<&str> = RulesKey::ALL.iter().filter(|key| top || key.per_path()).map(|key| key.name()).collect();
                    return Err(err(k, format!("{within}`{name}` is not a rules key ({})", known.join(", "))));
                }
            }
        }
        Ok(out)
    };
    let mut rules = Rules { all: set(d, "rules: ", true)?, paths: Vec::new(), salt_lint: None };
    if let Some(paths) = d.get(RulesKey::Paths.name()) {
        let Some(p) = paths.as_dict() else { return Err(err(paths, "rules: paths: must map path globs to rules".into())) };
        for (glob, body) in &p.0 {
            let Some(b) = body.as_dict() else {
                let keys: Vec<&str> = RulesKey::ALL.iter().filter(|k| k.per_path()).map(|k| k.name()).collect();
                return Err(err(body, format!("rules: paths: `{}` must be a mapping ({})", glob.py_str(), keys.join(", "))));
            };
            rules.paths.push((glob.py_str(), set(b, &format!("rules: paths: {}: ", glob.py_str()), false)?));
        }
    }
    Ok(rules)
}

fn code_of(v: &Val, within: &str, err: &dyn Fn(&Val, String) -> ConfigError) -> Result<Code, ConfigError> {
    let name = v.py_str();
    Code::ALL.iter().copied().find(|c| c.as_str() == name).ok_or_else(|| err(v, format!("{within}: `{name}` is no code")))
}

/// A list of codes, `style` standing for every code of that category.
fn codes(v: &Val, within: &str, err: &dyn Fn(&Val, String) -> ConfigError) -> Result<Vec<Code>, ConfigError> {
    let one = |i: &Val| -> Result<Vec<Code>, ConfigError> {
        if i.py_str() == "style" {
            return Ok(Code::ALL.iter().copied().filter(|c| c.category() == "style").collect());
        }
        Ok(vec![code_of(i, within, err)?])
    };
    match &v.v {
        V::List(items) => Ok(items.iter().map(one).collect::<Result<Vec<_>, _>>()?.concat()),
        V::Str(_) => one(v),
        _ => Err(err(v, format!("{within}: must be a code or a list of codes"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules(text: &str) -> Result<Rules, String> {
        let node = syntax::yaml::load(text).map_err(|e| e.message)?;
        let v = Val::from_node(&node, 0);
        let r = v.as_dict().and_then(|d| d.get("rules")).expect("rules:");
        parse(r, text, Path::new("salt-analyzer.yaml")).map_err(|e| e.to_string())
    }

    #[test]
    fn top_level_then_paths_in_order() {
        let r = rules("rules:\n  ignore: [unknown-function]\n  severity: {likely-typo: error}\n  paths:\n    'legacy/*': {ignore: missing-include, severity: {likely-typo: hint}}\n    'legacy/ß/*': {select: [likely-typo, missing-include]}\n").unwrap();
        let j = |code, rel| r.judge(code, rel, Severity::Warning);
        assert_eq!(j(Code::UnknownFunction, "salt/web.sls"), None);
        assert_eq!(j(Code::LikelyTypo, "salt/web.sls"), Some(Severity::Error));
        assert_eq!(j(Code::MissingInclude, "salt/web.sls"), Some(Severity::Warning));
        assert_eq!(j(Code::MissingInclude, "legacy/a/b.sls"), None);
        assert_eq!(j(Code::LikelyTypo, "legacy/💣.sls"), Some(Severity::Hint));
        // The later entry selects: its codes only, the earlier ignore still holds.
        assert_eq!(j(Code::DuplicateId, "legacy/ß/x.sls"), None);
        assert_eq!(j(Code::MissingInclude, "legacy/ß/x.sls"), None);
        assert_eq!(j(Code::LikelyTypo, "legacy/ß/x.sls"), Some(Severity::Hint));
    }

    #[test]
    fn a_salt_lint_file_is_read() {
        let r = Rules::default().with_salt_lint("skip_list:\n  - 204\n  - 207\n  - '208'\n  - 903\nexclude_paths: [test/]\nverbosity: 1\n");
        let j = |code, rel| r.judge(code, rel, Severity::Warning);
        assert_eq!((j(Code::FileModeUnquoted, "a.sls"), j(Code::FileModeLeadingZero, "a.sls"), j(Code::LineTooLong, "a.sls")), (None, None, None));
        assert_eq!(j(Code::OctalUnquoted, "a.sls"), Some(Severity::Warning));
        // salt-lint runs all its rules: those off by default are on.
        assert_eq!(j(Code::TrailingWhitespace, "a.sls"), Some(Severity::Warning));
        // One of the fourteen deprecations skipped: the code stays, the rule asks per ID.
        assert_eq!(j(Code::DeprecatedState, "a.sls"), Some(Severity::Warning));
        assert!(r.salt_lint_skips("903", "a.sls") && !r.salt_lint_skips("902", "a.sls"));
        assert_eq!(j(Code::OctalUnquoted, "test/salt/x.sls"), None);
        assert_eq!(j(Code::MissingInclude, "test/salt/x.sls"), Some(Severity::Warning), "only salt-lint's rules");
        assert_eq!(Rules::default().with_salt_lint("[not a mapping"), Rules::default());
    }

    #[test]
    fn off_by_default_until_selected_or_enabled() {
        let none = Rules::default();
        assert_eq!(none.judge_at(Code::LineTooLong, Path::new("/ws/a.sls"), Path::new("/ws"), Severity::Hint), None);
        assert_eq!(none.judge_at(Code::OctalUnquoted, Path::new("/ws/a.sls"), Path::new("/ws"), Severity::Hint), Some(Severity::Hint));
        let r = rules("rules:\n  enable: [line-too-long]\n  paths:\n    'legacy/*': {select: [style]}\n").unwrap();
        let j = |code, rel| r.judge(code, rel, Severity::Hint);
        assert_eq!(j(Code::LineTooLong, "a.sls"), Some(Severity::Hint));
        assert_eq!((j(Code::TrailingWhitespace, "a.sls"), j(Code::MissingInclude, "a.sls")), (None, Some(Severity::Hint)));
        assert_eq!((j(Code::TrailingWhitespace, "legacy/a.sls"), j(Code::MissingInclude, "legacy/a.sls")), (Some(Severity::Hint), None));
        let mut cli = Rules::default();
        cli.enable([Code::TabCharacter]);
        assert_eq!(cli.judge(Code::TabCharacter, "a.sls", Severity::Hint), Some(Severity::Hint));
    }

    #[test]
    fn mistakes_name_their_line() {
        assert_eq!(rules("rules:\n  ignore: [missing-includes]\n").unwrap_err(), "salt-analyzer.yaml:2: rules: ignore: `missing-includes` is no code");
        assert_eq!(
            rules("rules:\n  severity:\n    likely-typo: fatal\n").unwrap_err(),
            "salt-analyzer.yaml:3: rules: severity: `fatal` for likely-typo is not error, warning or hint"
        );
        assert_eq!(
            rules("rules:\n  paths:\n    x: {paths: {}}\n").unwrap_err(),
            "salt-analyzer.yaml:3: rules: paths: x: `paths` is not a rules key (select, enable, ignore, severity)"
        );
        assert_eq!(rules("rules: [a]\n").unwrap_err(), "salt-analyzer.yaml:1: rules: must be a mapping (select, enable, ignore, severity, paths)");
    }
}
