//! The workspace file `salt-analyzer.yaml` (documented in docs/configuration.md): where the
//! Salt config or the file roots are, and the minion profiles.

use std::path::{Path, PathBuf};

use indexmap::IndexMap;

use crate::value::{Val, V};
use crate::version::{SaltVersion, VersionSource};
use crate::workspace::config::{opts_from_dict, read_config_dir, roots_of, ConfigError, Opts};
use crate::workspace::discover::{discover, Discovery};
use crate::workspace::keys::{ProfileKey, TopKey};
use crate::workspace::vfs::Vfs;

pub const WORKSPACE_FILE: &str = "salt-analyzer.yaml";

/// A minion profile: what a minion looks like, for targeting and rendering.
#[derive(Debug, Clone, Default)]
pub struct Profile {
    pub id: String,
    pub grains: serde_json::Value,
    pub pillar: serde_json::Value,
    pub grains_file: Option<PathBuf>,
    pub pillar_file: Option<PathBuf>,
    /// Answers pinned for Salt functions that touch the host (`file.file_exists`, `cmd.run`):
    /// `{function: {first argument: answer}}`.
    pub functions: serde_json::Value,
}

/// The analysed workspace: its root, the options in force and the profiles.
#[derive(Debug, Clone)]
pub struct Workspace {
    pub root: PathBuf,
    pub opts: Opts,
    pub profiles: IndexMap<String, Profile>,
    pub default_minion: Option<String>,
    /// The workspace file, when there is one.
    pub file: Option<PathBuf>,
    /// `fleet:`, the fleet sources (`workspace::fleet`), relative to the workspace file.
    pub fleet: Vec<PathBuf>,
    /// The databases SQL ext_pillar entries read (set by the binary; none in tests that do
    /// not give one: the entries are then reported as not evaluated).
    pub sql: Option<crate::workspace::sql::Databases>,
    /// `gitfs_clones`: a gitfs or git_pillar remote's URL to a local clone of it (nothing is
    /// fetched; `file://` remotes and the master's gitfs cache need no entry).
    pub gitfs_clones: IndexMap<String, PathBuf>,
    /// What zero configuration found, when neither `-c`, `salt_config` nor `file_roots` said
    /// where the states are ([`crate::workspace::discover`]).
    pub discovery: Option<Discovery>,
    /// `rules:`: which codes are reported, and how seriously, per path glob.
    pub rules: crate::workspace::rules::Rules,
}

impl Workspace {
    /// A workspace of nothing but `opts`: no workspace file, profiles, fleet or adapters.
    pub fn bare(root: &Path, opts: Opts) -> Workspace {
        Workspace {
            root: root.to_path_buf(),
            opts,
            profiles: IndexMap::new(),
            default_minion: None,
            file: None,
            fleet: Vec::new(),
            sql: None,
            gitfs_clones: IndexMap::new(),
            discovery: None,
            rules: Default::default(),
        }
    }

    /// Load the workspace rooted at `root`: the Salt configuration `config_dir` (`-c DIR`, over
    /// `salt_config`) or `salt_config` names, else the `file_roots` of `salt-analyzer.yaml`,
    /// else the roots the repository's layout shows ([`discover`]); the workspace file's
    /// profiles, fleet and options in every case.
    pub fn load(fs: &dyn Vfs, root: &Path, config_dir: Option<&Path>) -> Result<Workspace, ConfigError> {
        let file = root.join(WORKSPACE_FILE);
        let mut ws = Workspace::bare(root, Opts::default());
        let mut doc = None;
        let mut text = String::new();
        if fs.is_file(&file) {
            text = fs.read(&file).map_err(|e| ConfigError { path: file.clone(), line: 0, message: format!("cannot read: {e}") })?;
            let node = syntax::yaml::load(&text).map_err(|e| ConfigError {
                path: file.clone(),
                line: syntax::line_index::line_number(&text, e.offset),
                message: format!("not valid YAML: {}", e.message),
            })?;
            doc = Some(Val::from_node(&node, 0));
            ws.file = Some(file.clone());
        }
        let d = doc.as_ref().and_then(Val::as_dict).cloned().unwrap_or_default();
        // Every key is named through `keys`, the list docs/configuration.md is tested against.
        let top = |k: TopKey| d.get(k.name());
        let rel = |p: &str| -> PathBuf {
            let p = PathBuf::from(p);
            if p.is_absolute() {
                p
            } else {
                root.join(p)
            }
        };
        if let Some(dir) = config_dir {
            ws.opts = read_config_dir(fs, dir)?;
        } else if let Some(dir) = top(TopKey::SaltConfig).and_then(Val::as_str) {
            ws.opts = read_config_dir(fs, &rel(dir))?;
        } else if top(TopKey::FileRoots).is_some() {
            ws.opts = opts_from_dict(&d);
            // Without a Salt configuration there is no pillar unless the workspace file names
            // its roots (Salt's `/srv/pillar` default belongs to a real minion's machine).
            ws.opts.pillar_roots = IndexMap::new();
        } else {
            // Nothing says where the states are: find them as the repository lays them out.
            let found = discover(fs, root);
            // The workspace file's own options (merging strategy, nodegroups, ...) go over a
            // configuration found in the repository.
            ws.opts = found.opts(root, &d);
            ws.discovery = Some(found);
        }
        if config_dir.is_none() {
            if let Some(roots) = top(TopKey::FileRoots).and_then(|v| roots_of(v, |p| rel(p))) {
                ws.opts.file_roots = roots;
            }
            if let Some(roots) = top(TopKey::PillarRoots).and_then(|v| roots_of(v, |p| rel(p))) {
                ws.opts.pillar_roots = roots;
            }
        }
        if let Some(V::Dict(minions)) = top(TopKey::Minions).map(|v| &v.v) {
            for (id, body) in &minions.0 {
                let b = body.as_dict().cloned().unwrap_or_default();
                let json = |k: ProfileKey| b.get(k.name()).map(Val::to_json).unwrap_or(serde_json::Value::Object(Default::default()));
                let id = id.py_str();
                ws.profiles.insert(
                    id.clone(),
                    Profile {
                        id,
                        grains: json(ProfileKey::Grains),
                        pillar: json(ProfileKey::Pillar),
                        grains_file: b.get(ProfileKey::GrainsFile.name()).and_then(Val::as_str).map(rel),
                        pillar_file: b.get(ProfileKey::PillarFile.name()).and_then(Val::as_str).map(rel),
                        functions: json(ProfileKey::Functions),
                    },
                );
            }
        }
        ws.fleet = match top(TopKey::Fleet).map(|v| &v.v) {
            Some(V::List(l)) => l.iter().filter_map(Val::as_str).map(rel).collect(),
            Some(_) => top(TopKey::Fleet).and_then(Val::as_str).map(rel).into_iter().collect(),
            None => Vec::new(),
        };
        if let Some(V::Dict(clones)) = top(TopKey::GitfsClones).map(|v| &v.v) {
            ws.gitfs_clones = clones.0.iter().filter_map(|(url, p)| p.as_str().map(|p| (url.py_str(), rel(p)))).collect();
        }
        ws.default_minion = top(TopKey::DefaultMinion).and_then(Val::as_str).map(str::to_string);
        if let Some(v) = top(TopKey::SaltVersion) {
            let line = v.at.as_ref().map_or(0, |at| syntax::line_index::line_number(&text, at.span.start));
            let Some(version) = SaltVersion::parse(&v.py_str()) else {
                return Err(ConfigError {
                    path: file,
                    line,
                    message: format!("salt_version: {} is not a Salt release salt-analyzer supports (3006, 3007 or 3008)", v.py_str()),
                });
            };
            ws.opts.version = version;
            ws.opts.version_source = VersionSource::WorkspaceFile;
        }
        if let Some(v) = top(TopKey::Saltexts) {
            ws.opts.saltexts = crate::workspace::saltexts::parse(v, &text, &file)?;
        }
        if let Some(v) = top(TopKey::Rules) {
            ws.rules = crate::workspace::rules::parse(v, &text, &file)?;
        }
        // A migrating team's `.salt-lint` (skip_list, exclude_paths) holds too.
        if let Ok(salt_lint) = fs.read(&root.join(".salt-lint")) {
            ws.rules = std::mem::take(&mut ws.rules).with_salt_lint(&salt_lint);
        }
        Ok(ws)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workspace::vfs::MemFs;

    fn load(yaml: &str) -> Result<Workspace, ConfigError> {
        let fs = MemFs::from_fixture(&format!("#- salt-analyzer.yaml\nfile_roots: {{base: [salt]}}\n{yaml}"));
        Workspace::load(&fs, Path::new("/ws"), None)
    }

    #[test]
    fn saltexts_are_normalised_and_checked() {
        let ws = load("saltexts:\n  - saltext.mysql\n  - saltext-dockermod\n  - vault\n  - saltext_mysql\n").unwrap();
        assert_eq!(ws.opts.saltexts, ["saltext-mysql", "saltext-dockermod", "saltext-vault"]);
        assert_eq!(load("saltexts: mysql\n").unwrap().opts.saltexts, ["saltext-mysql"]);
        assert!(load("").unwrap().opts.saltexts.is_empty());
        let err = load("saltexts:\n  - mysql\n  - saltext.nope\n").unwrap_err();
        expect_test::expect!["/ws/salt-analyzer.yaml:4: saltexts: saltext.nope (saltext-nope) is not a Salt extension salt-analyzer knows (docs/configuration.md lists them); a custom extension's state modules can go in a file root's _states/ instead"]
            .assert_eq(&err.to_string());
        assert_eq!(load("saltexts:\n  - {a: 1}\n").unwrap_err().line, 3);
    }
}
