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
//! `select` reports only the codes it lists, `ignore` leaves codes out, `severity` sets a code's
//! (`error`, `warning`, `hint`). A path entry applies to the files its glob matches (Python's
//! `fnmatch` on the path relative to the workspace root: `*` matches `/` too), after the
//! top-level rules and the entries before it: its `select` replaces, its `ignore` adds, its
//! `severity` goes over.

use std::path::Path;

use crate::diagnostic::{Code, Severity};
use crate::value::{Val, V};
use crate::workspace::config::ConfigError;

/// One set of choices.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct RuleSet {
    select: Option<Vec<Code>>,
    ignore: Vec<Code>,
    severity: Vec<(Code, Severity)>,
}

/// The workspace's `rules:`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Rules {
    all: RuleSet,
    /// Each path glob's choices, in the order written.
    paths: Vec<(String, RuleSet)>,
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
        let mut severity = default;
        let sets = std::iter::once(&self.all).chain(self.paths.iter().filter(|(glob, _)| crate::py::fnmatch::fnmatch(rel, glob)).map(|(_, s)| s));
        for set in sets {
            if let Some(s) = &set.select {
                select = Some(s);
            }
            ignored |= set.ignore.contains(&code);
            if let Some((_, s)) = set.severity.iter().rev().find(|(c, _)| *c == code) {
                severity = *s;
            }
        }
        let selected = select.is_none_or(|s| s.contains(&code));
        (selected && !ignored).then_some(severity)
    }

    /// Applies the rules to a finding of `code` at `file` under the workspace `root`.
    pub fn judge_at(&self, code: Code, file: &Path, root: &Path, default: Severity) -> Option<Severity> {
        if self.is_empty() {
            return Some(default);
        }
        let rel = file.strip_prefix(root).unwrap_or(file).to_string_lossy().replace('\\', "/");
        self.judge(code, &rel, default)
    }
}

impl Rules {
    /// A `.salt-lint` file's choices laid under these (a team moving from salt-lint changes
    /// nothing): `skip_list`'s IDs leave out the codes that replace those rules, and
    /// `exclude_paths` leaves every ported salt-lint rule out under each path (salt-lint's
    /// `rules:` options have no port yet).
    pub fn with_salt_lint(mut self, text: &str) -> Rules {
        let Ok(node) = syntax::yaml::load(text) else { return self };
        let v = Val::from_node(&node, 0);
        let Some(d) = v.as_dict() else { return self };
        let of = |id: &str| Code::ALL.iter().copied().find(|c| c.salt_lint() == Some(id));
        let ids = |key: &str| -> Vec<String> {
            match d.get(key).map(|v| &v.v) {
                Some(V::List(l)) => l.iter().map(Val::py_str).collect(),
                Some(_) => d.get(key).map(Val::py_str).into_iter().collect(),
                None => Vec::new(),
            }
        };
        let skipped: Vec<Code> = ids("skip_list").iter().filter_map(|id| of(id.trim())).collect();
        let ported: Vec<Code> = Code::ALL.iter().copied().filter(|c| c.salt_lint().is_some()).collect();
        // Before the workspace file's own: its `select` and `severity` still go over.
        let mut all = RuleSet { ignore: skipped, ..RuleSet::default() };
        all.ignore.append(&mut self.all.ignore);
        all.select = self.all.select.take();
        all.severity = std::mem::take(&mut self.all.severity);
        self.all = all;
        for path in ids("exclude_paths") {
            let glob = format!("{}*", path.trim_start_matches("./"));
            self.paths.insert(0, (glob, RuleSet { ignore: ported.clone(), ..RuleSet::default() }));
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
    let Some(d) = v.as_dict() else { return Err(err(v, "rules: must be a mapping (select, ignore, severity, paths)".into())) };
    let set = |d: &crate::value::Dict, within: &str, top: bool| -> Result<RuleSet, ConfigError> {
        let mut out = RuleSet::default();
        for (k, val) in &d.0 {
            match k.py_str().as_str() {
                "select" => out.select = Some(codes(val, &format!("{within}select"), &err)?),
                "ignore" => out.ignore = codes(val, &format!("{within}ignore"), &err)?,
                "severity" => {
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
                "paths" if top => {}
                other => return Err(err(k, format!("{within}`{other}` is not a rules key (select, ignore, severity{})", if top { ", paths" } else { "" }))),
            }
        }
        Ok(out)
    };
    let mut rules = Rules { all: set(d, "rules: ", true)?, paths: Vec::new() };
    if let Some(paths) = d.get("paths") {
        let Some(p) = paths.as_dict() else { return Err(err(paths, "rules: paths: must map path globs to rules".into())) };
        for (glob, body) in &p.0 {
            let Some(b) = body.as_dict() else { return Err(err(body, format!("rules: paths: `{}` must map to select, ignore or severity", glob.py_str()))) };
            rules.paths.push((glob.py_str(), set(b, &format!("rules: paths: {}: ", glob.py_str()), false)?));
        }
    }
    Ok(rules)
}

fn code_of(v: &Val, within: &str, err: &dyn Fn(&Val, String) -> ConfigError) -> Result<Code, ConfigError> {
    let name = v.py_str();
    Code::ALL.iter().copied().find(|c| c.as_str() == name).ok_or_else(|| err(v, format!("{within}: `{name}` is no code")))
}

fn codes(v: &Val, within: &str, err: &dyn Fn(&Val, String) -> ConfigError) -> Result<Vec<Code>, ConfigError> {
    match &v.v {
        V::List(items) => items.iter().map(|i| code_of(i, within, err)).collect(),
        V::Str(_) => Ok(vec![code_of(v, within, err)?]),
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
        let r = Rules::default().with_salt_lint("skip_list:\n  - 204\n  - 207\n  - '208'\nexclude_paths: [test/]\nverbosity: 1\n");
        let j = |code, rel| r.judge(code, rel, Severity::Warning);
        assert_eq!((j(Code::FileModeUnquoted, "a.sls"), j(Code::FileModeLeadingZero, "a.sls")), (None, None));
        assert_eq!(j(Code::OctalUnquoted, "a.sls"), Some(Severity::Warning));
        assert_eq!(j(Code::OctalUnquoted, "test/salt/x.sls"), None);
        assert_eq!(j(Code::MissingInclude, "test/salt/x.sls"), Some(Severity::Warning), "only salt-lint's rules");
        assert_eq!(Rules::default().with_salt_lint("[not a mapping"), Rules::default());
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
            "salt-analyzer.yaml:3: rules: paths: x: `paths` is not a rules key (select, ignore, severity)"
        );
        assert_eq!(rules("rules: [a]\n").unwrap_err(), "salt-analyzer.yaml:1: rules: must be a mapping (select, ignore, severity, paths)");
    }
}
