//! Which Salt release an answer is for: the supported release lines (3006, 3007, 3008), how
//! a version is written by users, by `salt-call --version` and by the `saltversioninfo`
//! grain, and where the version in force came from. Rules that changed between releases
//! read [`SaltVersion`] and keep one body with a switch, never a copy per release.

use std::fmt;

/// A supported Salt release line. Ordered: `V3006 < V3007 < V3008`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub enum SaltVersion {
    /// 3006.x, the long-term release.
    V3006,
    /// 3007.x.
    V3007,
    /// 3008.x (the default: the newest release).
    #[default]
    V3008,
}

impl SaltVersion {
    pub const ALL: [SaltVersion; 3] = [SaltVersion::V3006, SaltVersion::V3007, SaltVersion::V3008];

    /// The release line of a version as users and Salt write it: `3006`, `3006.9`,
    /// `3007.16`, `salt-call 3008.4 (Argon)`, `v3006.1rc2`, or a `saltversioninfo` grain
    /// written out (`[3006, 9, 0, 0]`). `None` for anything else, including releases before
    /// 3006 and after 3008, which are not supported.
    pub fn parse(text: &str) -> Option<SaltVersion> {
        let t = text.trim();
        let t = t.strip_prefix("salt-call").or_else(|| t.strip_prefix("salt")).unwrap_or(t).trim_start();
        let t = t.trim_start_matches(['[', 'v', 'V']);
        let major: String = t.chars().take_while(char::is_ascii_digit).collect();
        let rest = &t[major.len()..];
        // `3006` alone, or followed by what a version or a grain list puts after the major.
        if !(rest.is_empty() || rest.starts_with(['.', ',', ' ', ']', 'r'])) {
            return None;
        }
        match major.as_str() {
            "3006" => Some(SaltVersion::V3006),
            "3007" => Some(SaltVersion::V3007),
            "3008" => Some(SaltVersion::V3008),
            _ => None,
        }
    }

    /// The release line of a `saltversioninfo` grain (`[3006, 9, 0, 0]`, as a JSON list).
    pub fn from_grain(v: &serde_json::Value) -> Option<SaltVersion> {
        match v {
            serde_json::Value::Array(parts) => parts.first().and_then(|m| m.as_u64()).and_then(|m| SaltVersion::parse(&m.to_string())),
            serde_json::Value::String(s) => SaltVersion::parse(s),
            _ => None,
        }
    }

    /// `3006`, `3007`, `3008`.
    pub fn major(self) -> u32 {
        match self {
            SaltVersion::V3006 => 3006,
            SaltVersion::V3007 => 3007,
            SaltVersion::V3008 => 3008,
        }
    }

    /// Salt 3008's state compiler: requisites resolved into a dependency graph before
    /// anything runs (`salt/utils/requisite.py`), the chunks sorted by it, and a missing
    /// requisite or a cycle refused at compile time. 3006 and 3007 sort the chunks by `order`
    /// alone and find requisite problems while running (`State.check_requisite`).
    pub fn requisite_graph(self) -> bool {
        self >= SaltVersion::V3008
    }

    /// States of an included SLS carry `__sls_included_from__` (3007 and 3008), which
    /// `sls:` requisites also match.
    pub fn sls_included_from(self) -> bool {
        self >= SaltVersion::V3007
    }

    /// `salt.utils.url.parse` strips the leading `/` of `salt:///x` (3008), so an SLS name
    /// written `/x` loads `x.sls`; before, the file server refuses an absolute path.
    pub fn strips_leading_slash(self) -> bool {
        self >= SaltVersion::V3008
    }

    /// `Pillar.compile_pillar` starts from a copy of `opts["pillar"]` (`Pillar.pillar_data`,
    /// 3008) and updates it with what the files and ext_pillar give; before, it starts from
    /// the pillar override alone, and `opts["pillar"]` only comes back through
    /// `ssh_merge_pillar`'s merge. Likewise the pillar matchers: 3008 falls back to
    /// `__pillar__`, then `{}`; 3006 and 3007 read `opts["pillar"]`, else `opts["ext_pillar"]`,
    /// else raise `UnboundLocalError` (`salt/matchers/pillar_match.py`).
    pub fn pillar_data(self) -> bool {
        self >= SaltVersion::V3008
    }

    /// `Pillar.get_tops` reads the environments' top files in `pillar_roots` order (3006,
    /// 3008); 3007 collects them in a Python `set`, whose order changes with each run's hash
    /// seed.
    pub fn pillar_tops_unordered(self) -> bool {
        self == SaltVersion::V3007
    }
}

impl fmt::Display for SaltVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.major())
    }
}

/// Where the version in force came from, for the line that says which Salt an answer is for.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum VersionSource {
    /// Nothing said: the newest supported release.
    #[default]
    Default,
    /// `--salt-version` on the command line.
    CommandLine,
    /// `salt_version:` in `salt-analyzer.yaml`.
    WorkspaceFile,
    /// The installed `salt-call --version` (its whole answer, e.g. `3006.9`).
    Installed(String),
    /// The minion's own `saltversioninfo` grain (e.g. `3007.1`).
    Grain(String),
    /// The release an editor's impact report compares against (its `impact.toSaltVersion`
    /// setting, or the report command's argument).
    ImpactTarget,
}

impl VersionSource {
    /// Whether the release was chosen for every minion (a minion's `saltversioninfo` grain
    /// then does not count).
    pub fn pins(&self) -> bool {
        !matches!(self, VersionSource::Default | VersionSource::Installed(_))
    }
}

/// How a report names one side when the releases are the question: `LABEL on Salt 3006`, or,
/// where nothing pinned the release, on each minion's own.
pub fn side_label(label: &str, version: SaltVersion, source: &VersionSource) -> String {
    match source {
        VersionSource::CommandLine | VersionSource::WorkspaceFile | VersionSource::ImpactTarget => format!("{label} on Salt {version}"),
        _ => format!("{label} on each minion's Salt (its saltversioninfo grain, else {version})"),
    }
}

impl fmt::Display for VersionSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            VersionSource::Default => write!(f, "the default: set salt_version: in salt-analyzer.yaml or --salt-version"),
            VersionSource::CommandLine => write!(f, "--salt-version"),
            VersionSource::WorkspaceFile => write!(f, "salt_version: in salt-analyzer.yaml"),
            VersionSource::Installed(v) => write!(f, "the installed salt-call {v}"),
            VersionSource::Grain(v) => write!(f, "the minion's saltversioninfo grain, {v}"),
            VersionSource::ImpactTarget => write!(f, "the impact report's target release"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_what_users_and_salt_write() {
        for (text, want) in [
            ("3006", Some(SaltVersion::V3006)),
            ("3006.9", Some(SaltVersion::V3006)),
            (" 3007.16 ", Some(SaltVersion::V3007)),
            ("salt-call 3008.4 (Argon)", Some(SaltVersion::V3008)),
            ("v3006.1rc2", Some(SaltVersion::V3006)),
            ("[3007, 1, 0, 0]", Some(SaltVersion::V3007)),
            ("3005.1", None),
            ("30061", None),
            ("3009", None),
            ("ß", None),
            ("", None),
        ] {
            assert_eq!(SaltVersion::parse(text), want, "{text:?}");
        }
        assert_eq!(SaltVersion::from_grain(&serde_json::json!([3006, 9, 0, 0])), Some(SaltVersion::V3006));
        assert_eq!(SaltVersion::from_grain(&serde_json::json!("3008.4")), Some(SaltVersion::V3008));
        assert_eq!(SaltVersion::from_grain(&serde_json::json!({})), None);
        assert!(SaltVersion::V3006 < SaltVersion::V3008);
        assert_eq!(SaltVersion::V3007.to_string(), "3007");
    }
}
