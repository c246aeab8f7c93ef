//! The keys `salt-analyzer.yaml` accepts, by the mapping they stand in: the one list the
//! readers (`file`, `rules`) name a key through, and that docs/configuration.md's table of keys
//! is held to (`server/analyzer/tests/docs_config.rs`). Any other top-level key is a Salt
//! option, read as a master or minion configuration file's when the file gives `file_roots` or
//! the roots are discovered.

/// An enum whose variants are the keys of one mapping, with `ALL` (every variant, in order),
/// `name` (the key as written) and `of` (the variant written `name`).
macro_rules! keys {
    ($(#[$doc:meta])* $name:ident { $($(#[$vdoc:meta])* $variant:ident = $key:literal,)* }) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub enum $name {
            $($(#[$vdoc])* $variant,)*
        }

        impl $name {
            pub const ALL: &'static [$name] = &[$($name::$variant,)*];

            /// The key as the file writes it.
            pub fn name(self) -> &'static str {
                match self {
                    $($name::$variant => $key,)*
                }
            }

            /// The key written `name`, when it is one.
            pub fn of(name: &str) -> Option<$name> {
                $name::ALL.iter().copied().find(|k| k.name() == name)
            }
        }
    };
}

keys! {
    /// The top-level keys salt-analyzer reads itself.
    TopKey {
        SaltConfig = "salt_config",
        FileRoots = "file_roots",
        PillarRoots = "pillar_roots",
        Minions = "minions",
        DefaultMinion = "default_minion",
        Fleet = "fleet",
        GitfsClones = "gitfs_clones",
        SaltVersion = "salt_version",
        Saltexts = "saltexts",
        Rules = "rules",
    }
}

keys! {
    /// The keys of a profile, `minions: ID:`.
    ProfileKey {
        Grains = "grains",
        GrainsFile = "grains_file",
        Pillar = "pillar",
        PillarFile = "pillar_file",
        Functions = "functions",
    }
}

keys! {
    /// The keys of `rules:` (all of them) and of each `rules: paths: GLOB:` (all but `paths`).
    RulesKey {
        Select = "select",
        Enable = "enable",
        Ignore = "ignore",
        Severity = "severity",
        Paths = "paths",
    }
}

impl RulesKey {
    /// Whether the key may stand in a `rules: paths: GLOB:` entry too.
    pub fn per_path(self) -> bool {
        self != RulesKey::Paths
    }
}

/// Every key the file accepts, with where it stands (`""` at the top level, else the keys
/// above it as docs/configuration.md writes them: `minions: ID:`, `rules:`, `rules: paths: GLOB:`).
pub fn all() -> Vec<(&'static str, &'static str)> {
    let mut out: Vec<(&str, &str)> = TopKey::ALL.iter().map(|k| ("", k.name())).collect();
    out.extend(ProfileKey::ALL.iter().map(|k| ("minions: ID:", k.name())));
    out.extend(RulesKey::ALL.iter().map(|k| ("rules:", k.name())));
    out.extend(RulesKey::ALL.iter().filter(|k| k.per_path()).map(|k| ("rules: paths: GLOB:", k.name())));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_variants_round_trip() {
        for (_, name) in all() {
            assert!(TopKey::of(name).is_some() || ProfileKey::of(name).is_some() || RulesKey::of(name).is_some(), "{name}");
        }
        assert_eq!(RulesKey::of("paths"), Some(RulesKey::Paths));
        assert_eq!(TopKey::of("grains"), None);
        assert_eq!(all().len(), TopKey::ALL.len() + ProfileKey::ALL.len() + 2 * RulesKey::ALL.len() - 1);
    }
}
