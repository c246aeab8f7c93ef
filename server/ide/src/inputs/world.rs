//! The workspace as one revision sees it: configuration, file roots, the root SLS files and
//! where each path sits in the environments. Rebuilt only when the configuration changes or a
//! file is created or deleted; shared by every snapshot in between.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use indexmap::IndexMap;
use model::check::CheckContext;
use model::workspace::config::{ConfigError, Opts};
use model::workspace::roots::sls_name_of;
use model::workspace::vfs::Vfs;
use model::workspace::Workspace;

/// `(env, path relative to the file root)` of a root SLS file.
pub(crate) type RootKey = (String, String);

pub(crate) struct World {
    pub(crate) root: PathBuf,
    pub(crate) ws: Workspace,
    /// Why `salt-analyzer.yaml` (or the Salt config) could not be read; the analysis then
    /// runs with the workspace root as `base`'s only file root.
    pub(crate) config_error: Option<ConfigError>,
    /// The gitfs and git_pillar remotes that are not served (no local copy, no such branch),
    /// as `gitfs-remote` warnings at their lines of the configuration.
    pub(crate) remote_problems: Vec<model::diagnostic::Diagnostic>,
    pub(crate) ctx: CheckContext,
    /// Every root SLS file, as [`CheckContext::root_files`] lists them.
    pub(crate) roots: Vec<(String, String, PathBuf)>,
    pub(crate) roots_by_path: HashMap<PathBuf, Vec<RootKey>>,
    /// The top file's path relative to a file root (`top.sls`).
    pub(crate) top_rel: String,
    /// The Salt configuration directory it was loaded with, if any.
    pub(crate) config_dir: Option<PathBuf>,
    /// The workspace's fleet (`fleet:`): minions the picker offers besides the profiles.
    pub(crate) fleet: model::workspace::fleet::Fleet,
}

impl World {
    /// The workspace at `root`, with its gitfs remotes mounted into `mounts` (which `fs` reads
    /// through).
    pub(crate) fn load(fs: &dyn Vfs, root: &Path, salt_config: Option<&Path>, mounts: &salt_gitfs::MountedFs<std::sync::Arc<dyn Vfs>>) -> World {
        let config_dir = salt_config.map(|p| if p.is_absolute() { p.to_path_buf() } else { root.join(p) });
        let mut remote_problems = Vec::new();
        let (ws, config_error) = match Workspace::load(fs, root, config_dir.as_deref()) {
            // SQL ext_pillar entries read their databases, read-only.
            Ok(ws) => {
                let mut ws = Workspace { sql: Some(model::workspace::sql::Databases(std::sync::Arc::new(salt_extpillar::Databases))), ..ws };
                // gitfs and git_pillar remotes are read from local copies and mounted, never fetched.
                let served = salt_gitfs::serve::serve_gitfs(&mut ws);
                remote_problems = salt_gitfs::serve::diagnostics(&ws, &served.problems);
                mounts.set_mounts(served.mounts);
                (ws, None)
            }
            Err(e) => {
                let opts = Opts { file_roots: IndexMap::from([("base".to_string(), vec![root.to_path_buf()])]), ..Opts::default() };
                (Workspace::bare(root, opts), Some(e))
            }
        };
        // The editor recompiles the selected minion on every edit: it keeps rendered files.
        let ctx = CheckContext { memo: model::pipeline::Memo::keeping_renders(), ..CheckContext::new(fs, &ws) };
        let roots = ctx.root_files();
        let mut roots_by_path: HashMap<PathBuf, Vec<RootKey>> = HashMap::new();
        for (env, rel, path) in &roots {
            roots_by_path.entry(path.clone()).or_default().push((env.clone(), rel.clone()));
        }
        let top_rel = ctx.top_file.clone();
        let fleet = if ws.fleet.is_empty() { Default::default() } else { model::workspace::fleet::read(fs, &ws.fleet) };
        World { root: root.to_path_buf(), ws, config_error, remote_problems, ctx, roots, roots_by_path, top_rel, config_dir, fleet }
    }

    /// The minion a name selects: a profile, else a minion of the fleet (a profile with the same
    /// id wins), else the default one.
    pub(crate) fn who(&self, name: Option<&str>) -> model::pipeline::Who {
        use model::pipeline::Who;
        match name {
            Some(n) if self.ws.profiles.contains_key(n) => Who::Profile(n.to_string()),
            Some(n) => self.fleet_minion(n).map_or(Who::Default, Who::Fleet),
            None => Who::Default,
        }
    }

    /// The fleet minion with this id.
    pub(crate) fn fleet_minion(&self, id: &str) -> Option<std::sync::Arc<model::workspace::fleet::FleetMinion>> {
        self.fleet.minions.iter().find(|m| m.id == id).cloned()
    }

    /// Every `(env, relative path)` a path has under the file roots, in configuration order.
    pub(crate) fn locations(&self, path: &Path) -> Vec<(String, String)> {
        let mut out = Vec::new();
        for (env, dirs) in &self.ws.opts.file_roots {
            for dir in dirs {
                if let Ok(rel) = path.strip_prefix(dir) {
                    let rel = rel.to_string_lossy().replace('\\', "/");
                    if !out.iter().any(|(e, r): &(String, String)| e == env && *r == rel) {
                        out.push((env.clone(), rel));
                    }
                }
            }
        }
        out
    }

    /// The first environment and relative path of a file.
    pub(crate) fn locate(&self, path: &Path) -> Option<(String, String)> {
        self.locations(path).into_iter().next()
    }

    /// The environment, SLS name and init-ness of an SLS file.
    pub(crate) fn sls_of(&self, path: &Path) -> Option<(String, String, bool)> {
        let (env, rel) = self.locate(path)?;
        let name = sls_name_of(&rel)?;
        let is_init = rel.ends_with("/init.sls");
        Some((env, name, is_init))
    }

    /// Whether the file is an environment's top file.
    pub(crate) fn is_top(&self, path: &Path) -> bool {
        self.locations(path).iter().any(|(_, rel)| *rel == self.top_rel)
    }

    /// The environments in the order Salt lists them.
    pub(crate) fn env_names(&self) -> Vec<String> {
        let client: Vec<String> = self.ctx.roots.env_names().map(str::to_string).collect();
        model::workspace::roots::get_envs(&self.ws.opts, &client)
    }

    /// Every environment's top file that exists.
    pub(crate) fn top_files(&self) -> Vec<(String, PathBuf)> {
        let mut out: Vec<(String, PathBuf)> = Vec::new();
        for env in self.env_names() {
            if let Some(p) = self.ctx.roots.find_file(&env, &self.top_rel) {
                out.push((env, p));
            }
        }
        out
    }

    /// A path relative to the workspace root, for messages.
    pub(crate) fn rel(&self, path: &Path) -> String {
        path.strip_prefix(&self.root).unwrap_or(path).display().to_string()
    }
}
