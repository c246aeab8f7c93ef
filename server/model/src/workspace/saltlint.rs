//! A `.salt-lint` file at the workspace root, read as salt-lint 0.9.2 reads it
//! (`saltlint/config.py`, `linter/collection.py`, `linter/runner.py`), so a team moving from
//! salt-lint changes nothing: `skip_list` (rule IDs or tags, also `"201,204"`), `exclude_paths`
//! (path prefixes), `tags` (only the rules with one of these IDs or tags) and
//! `rules: {ID or tag: {ignore: "gitwildmatch patterns"}}`. Which rule of ours each ID is, is
//! [`crate::diagnostic::Code::salt_lint`]; its tags are [`tags`].

use crate::value::{Val, V};

/// One `.salt-lint` file's choices.
#[derive(Debug, Clone, Default)]
pub struct SaltLint {
    skip: Vec<String>,
    exclude: Vec<String>,
    tags: Vec<String>,
    /// `rules: ID: ignore:`, by rule ID or tag: the patterns, in order.
    ignore: Vec<(String, Vec<gix_glob::Pattern>)>,
}

impl PartialEq for SaltLint {
    fn eq(&self, other: &Self) -> bool {
        let ignore = |s: &SaltLint| s.ignore.iter().map(|(k, p)| (k.clone(), p.iter().map(|p| p.text.to_string()).collect::<Vec<_>>())).collect::<Vec<_>>();
        (&self.skip, &self.exclude, &self.tags) == (&other.skip, &other.exclude, &other.tags) && ignore(self) == ignore(other)
    }
}
impl Eq for SaltLint {}

/// salt-lint's tags of rule `id` (each rule's `tags`): the Jinja rules are `formatting` and
/// `jinja`, the state deprecations (9xx) `deprecation`, the rest `formatting`.
pub fn tags(id: &str) -> &'static [&'static str] {
    match id {
        "202" | "206" | "209" | "211" => &["formatting", "jinja"],
        _ if id.starts_with('9') => &["deprecation"],
        _ => &["formatting"],
    }
}

impl SaltLint {
    /// Reads the file's text; `None` when it is not a YAML mapping (salt-lint refuses it).
    pub fn parse(text: &str) -> Option<SaltLint> {
        let node = syntax::yaml::load(text).ok()?;
        let v = Val::from_node(&node, 0);
        let d = match &v.v {
            V::Dict(d) => d.clone(),
            V::None => Default::default(),
            _ => return None,
        };
        let list = |key: &str| -> Vec<String> {
            match d.get(key).map(|v| &v.v) {
                Some(V::List(l)) => l.iter().map(Val::py_str).collect(),
                Some(V::None) | None => Vec::new(),
                Some(_) => d.get(key).map(Val::py_str).into_iter().collect(),
            }
        };
        // `skip.update(str(s).split(','))`.
        let skip = list("skip_list").iter().flat_map(|s| s.split(',').map(str::to_string).collect::<Vec<_>>()).collect();
        // `tags` may be one comma-separated string.
        let tags = match d.get("tags").map(|v| &v.v) {
            Some(V::Str(s)) => s.split(',').map(str::to_string).collect(),
            _ => list("tags"),
        };
        let exclude = list("exclude_paths").iter().map(|p| p.trim().to_string()).collect();
        let mut ignore = Vec::new();
        if let Some(rules) = d.get("rules").and_then(Val::as_dict) {
            for (name, rule) in &rules.0 {
                let Some(text) = rule.as_dict().and_then(|r| r.get("ignore")).and_then(Val::as_str) else { continue };
                // `PathSpec.from_lines('gitwildmatch', ...)`: blank lines and comments are no patterns.
                let patterns = text.lines().filter(|l| !l.trim().is_empty() && !l.starts_with('#')).filter_map(|l| gix_glob::parse(l.trim_end())).collect();
                ignore.push((name.py_str(), patterns));
            }
        }
        Some(SaltLint { skip, exclude, tags, ignore })
    }

    /// Whether salt-lint leaves rule `id` out for the file `rel` (relative to the workspace
    /// root, `/`-separated): an excluded path, a `tags` list the rule is not in, a rule-specific
    /// `ignore` pattern matching the file, or a `skip_list` naming the rule or one of its tags.
    pub fn skips(&self, id: &str, rel: &str) -> bool {
        let rel = rel.trim_start_matches("./");
        if self.exclude.iter().any(|p| !p.is_empty() && rel.starts_with(p.trim_start_matches("./"))) {
            return true;
        }
        let definition = || std::iter::once(id).chain(tags(id).iter().copied());
        if !self.tags.is_empty() && !definition().any(|d| self.tags.iter().any(|t| t == d)) {
            return true;
        }
        if definition().any(|d| self.ignores(d, rel)) {
            return true;
        }
        definition().any(|d| self.skip.iter().any(|s| s == d))
    }

    /// `Configuration.is_file_ignored`: pathspec's `match_file`, the last pattern that matches
    /// the file or one of its directories deciding (a `!pattern` takes it back).
    fn ignores(&self, rule: &str, rel: &str) -> bool {
        let Some((_, patterns)) = self.ignore.iter().find(|(k, _)| k == rule) else { return false };
        let mut ignored = false;
        for p in patterns {
            if matches(p, rel) {
                ignored = !p.is_negative();
            }
        }
        ignored
    }
}

/// A gitwildmatch pattern against a file: pathspec matches a file whose path, or any of its
/// directories, the pattern matches as git would.
fn matches(p: &gix_glob::Pattern, rel: &str) -> bool {
    let mode = gix_glob::wildmatch::Mode::NO_MATCH_SLASH_LITERAL;
    let case = gix_glob::pattern::Case::Sensitive;
    let at = |path: &str, dir: bool| {
        let base = path.rfind('/').map(|i| i + 1);
        p.matches_repo_relative_path(path.as_bytes().into(), base, Some(dir), case, mode)
    };
    at(rel, false) || rel.match_indices('/').any(|(i, _)| at(&rel[..i], true))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn skip_list_exclude_paths_tags_and_rule_ignores() {
        let s = SaltLint::parse(
            "skip_list:\n  - 205\n  - '201,204'\nexclude_paths: [test/]\nrules:\n  203:\n    ignore: |\n      apache/files/*.jinja\n      logrotate.sls\n  jinja:\n    ignore: 'ß/'\n",
        )
        .expect("a mapping");
        assert!(s.skips("205", "a.sls") && s.skips("201", "a.sls") && s.skips("204", "a.sls"));
        assert!(!s.skips("203", "a.sls"));
        assert!(s.skips("210", "test/salt/x.sls"), "exclude_paths is a prefix");
        assert!(s.skips("203", "apache/files/x.conf.jinja"));
        assert!(!s.skips("203", "apache/files/sub/x.conf.jinja"), "* stops at a slash");
        assert!(s.skips("203", "apache/logrotate.sls"), "no slash: any directory");
        assert!(s.skips("206", "ß/💣/map.jinja") && !s.skips("213", "ß/💣/init.sls"), "a tag's ignore");
        let t = SaltLint::parse("tags: deprecation\n").expect("a mapping");
        assert!(!t.skips("912", "a.sls") && t.skips("201", "a.sls"));
        assert!(SaltLint::parse("[1]").is_none());
        assert_eq!(SaltLint::parse("---\n"), Some(SaltLint::default()));
    }
}
