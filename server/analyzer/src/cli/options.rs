//! The options every command takes (`Common`: the minion, the fleet, paths, the Salt release,
//! `--format`) and loading the workspace they name.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::ValueEnum;
use model::workspace::vfs::RealFs;
use model::workspace::Workspace;
use salt_gitfs::MountedFs;

use super::output::PATH_STYLE;
use crate::out::errln;

#[derive(Clone, Copy, Debug, ValueEnum, PartialEq, Eq)]
pub enum Format {
    Text,
    Json,
}

/// The options every command but `diff` takes: whom to answer for ([`Unformatted`], which
/// `Common` reads through) and the output format.
#[derive(clap::Args, Debug, Clone)]
pub struct Common {
    #[command(flatten)]
    pub args: Unformatted,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
}

impl std::ops::Deref for Common {
    type Target = Unformatted;
    fn deref(&self) -> &Unformatted {
        &self.args
    }
}

/// Whom a command answers for, and how paths print: [`Common`] less `--format`, which `check`
/// and `plan` take with formats of their own.
#[derive(clap::Args, Debug, Clone)]
pub struct Unformatted {
    /// A Salt configuration directory, read as `salt-call -c DIR` reads it.
    #[arg(short = 'c', long = "config-dir", value_name = "DIR")]
    pub config_dir: Option<PathBuf>,
    /// A minion profile from `salt-analyzer.yaml`.
    #[arg(long)]
    pub minion: Option<String>,
    #[command(flatten)]
    pub fleet: FleetArgs,
    #[command(flatten)]
    pub quick: QuickMinion,
    /// Print absolute paths (default: relative to the directory of salt-analyzer.yaml, else to
    /// the current directory), in text and JSON.
    #[arg(long)]
    pub absolute_paths: bool,
    /// The Salt release to answer for (3006, 3007 or 3008; a full version like 3006.9 is read
    /// as its release line), over `salt_version:` in salt-analyzer.yaml, the minions'
    /// `saltversioninfo` grain and the installed `salt-call --version`.
    #[arg(long, value_name = "VERSION", value_parser = salt_version_arg)]
    pub salt_version: Option<model::version::SaltVersion>,
}

impl Unformatted {
    /// The options with the text or JSON `format` the shared code prints in.
    pub(super) fn with_format(self, format: Format) -> Common {
        Common { args: self, format }
    }
}

pub(crate) fn salt_version_arg(s: &str) -> Result<model::version::SaltVersion, String> {
    model::version::SaltVersion::parse(s).ok_or_else(|| format!("{s:?} is not a Salt release salt-analyzer supports (3006, 3007 or 3008)"))
}

/// Which Salt the workspace answers for: `--salt-version`, else `salt_version:` (already in
/// `ws`), else the installed `salt-call`; a minion's own `saltversioninfo` grain goes over
/// the last two (the pipeline reads it).
pub(crate) fn choose_salt_version(ws: &mut Workspace, given: Option<model::version::SaltVersion>) {
    use model::version::VersionSource;
    if let Some(v) = given {
        ws.opts.version = v;
        ws.opts.version_source = VersionSource::CommandLine;
    } else if ws.opts.version_source == VersionSource::Default {
        if let Some((line, full)) = salt_analyzer::saltcall::installed_version() {
            ws.opts.version = line;
            ws.opts.version_source = VersionSource::Installed(full);
        }
    }
}

/// A minion given on the command line, without a profile.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct QuickMinion {
    /// The minion's id (over a profile of that id, if there is one).
    #[arg(long, value_name = "ID")]
    pub id: Option<String>,
    /// Its grains: a JSON or YAML file (`salt-call --local grains.items --out=json` output as
    /// it is) or the text itself (`'{"os_family": "Debian", "roles": ["web"]}'`).
    #[arg(long, value_name = "FILE|JSON")]
    pub grains: Option<String>,
    /// Its pillar, merged over the pillar computed from `pillar_roots`: a file or the text.
    #[arg(long, value_name = "FILE|JSON")]
    pub pillar: Option<String>,
}

impl QuickMinion {
    fn given(&self) -> bool {
        self.id.is_some() || self.grains.is_some() || self.pillar.is_some()
    }
}

/// `--id`/`--grains`/`--pillar` name the minion a command is for, as `--minion` does.
pub(super) fn with_quick_minion(mut common: Common) -> Result<Common, ExitCode> {
    if !common.quick.given() {
        return Ok(common);
    }
    let id = match (&common.quick.id, &common.quick.grains) {
        (Some(id), _) => Some(id.clone()),
        (None, Some(g)) => model::workspace::minion::data_argument(&RealFs, g).ok().and_then(|g| g.get("id").and_then(|v| v.as_str()).map(str::to_string)),
        (None, None) => None,
    };
    let Some(id) = id else {
        errln!("salt-analyzer: error: give the minion's id with --id (the grains given have no `id`)");
        return Err(ExitCode::from(2));
    };
    if common.minion.as_ref().is_some_and(|m| *m != id) {
        errln!("salt-analyzer: error: --minion {} and --id {id} name two minions", common.minion.as_deref().unwrap_or_default());
        return Err(ExitCode::from(2));
    }
    common.args.minion = Some(id);
    Ok(common)
}

/// The fleet: every minion a master knows (see the README, "Fleet").
#[derive(clap::Args, Debug, Clone, Default)]
pub struct FleetArgs {
    /// Every minion of a fleet: a master cachedir, `salt '*' grains.items --out=json` output or
    /// a directory of `<id>.json` grains files; without PATH, the workspace's `fleet:`.
    #[arg(long, value_name = "PATH", num_args = 0..=1)]
    pub fleet: Option<Option<PathBuf>>,
    /// Only shard K of N of the fleet (1-based), split by a stable hash of each minion id.
    #[arg(long, value_name = "K/N", requires = "fleet", value_parser = shard_arg)]
    pub shard: Option<(usize, usize)>,
}

pub(super) fn shard_arg(s: &str) -> Result<(usize, usize), String> {
    model::workspace::fleet::parse_shard(s)
}

/// The workspace root: the nearest directory at or above `start` (the first path given, else
/// the current directory) that has a `salt-analyzer.yaml`; else `start` itself.
pub(crate) fn find_root(start: Option<&Path>) -> PathBuf {
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    let start = match start {
        Some(p) => {
            let p = if p.is_absolute() { p.to_path_buf() } else { cwd.join(p) };
            if p.is_dir() {
                p
            } else {
                p.parent().map(Path::to_path_buf).unwrap_or(cwd.clone())
            }
        }
        None => cwd,
    };
    let mut dir = Some(start.as_path());
    while let Some(d) = dir {
        if d.join(model::workspace::WORKSPACE_FILE).is_file() {
            return d.to_path_buf();
        }
        dir = d.parent();
    }
    start
}

pub(super) fn load_workspace(common: &Common) -> Result<Workspace, ExitCode> {
    load_workspace_at(common, None)
}

/// What the commands read: the disk, with the gitfs remotes' trees mounted where the
/// workspace's saltenvs find them.
pub(super) static DISK: std::sync::LazyLock<MountedFs<RealFs>> = std::sync::LazyLock::new(|| MountedFs::new(RealFs));

pub(super) fn disk() -> &'static MountedFs<RealFs> {
    &DISK
}

/// [`load_workspace_served`], with the remotes that are not served as warnings on stderr.
pub(super) fn load_workspace_at(common: &Common, start: Option<&Path>) -> Result<Workspace, ExitCode> {
    let (ws, problems) = load_workspace_served(common, start)?;
    for p in problems {
        errln!("salt-analyzer: warning[gitfs-remote]: {}", p.message);
    }
    Ok(ws)
}

/// The workspace with its adapters: the SQL databases, and the gitfs remotes mounted into
/// [`disk`]. The remotes that cannot be served come back (the rest are).
pub(super) fn load_workspace_served(common: &Common, start: Option<&Path>) -> Result<(Workspace, Vec<salt_gitfs::serve::Problem>), ExitCode> {
    let root = find_root(start);
    // Paths are relative to the directory of salt-analyzer.yaml, else to the current one.
    let base = if root.join(model::workspace::WORKSPACE_FILE).is_file() { root.clone() } else { std::env::current_dir().unwrap_or_else(|_| root.clone()) };
    let _ = PATH_STYLE.set((base, common.absolute_paths));
    let mut ws = Workspace::load(&RealFs, &root, common.config_dir.as_deref()).map_err(|e| {
        errln!("salt-analyzer: error: {e}");
        ExitCode::from(2)
    })?;
    if let Some(found) = &ws.discovery {
        errln!("salt-analyzer: {}", found.summary(&ws.root));
    }
    choose_salt_version(&mut ws, common.salt_version);
    if common.quick.given() {
        let q = &common.quick;
        model::workspace::minion::add_command_line_minion(&RealFs, &mut ws, common.minion.as_deref(), q.grains.as_deref(), q.pillar.as_deref()).map_err(
            |e| {
                errln!("salt-analyzer: error: {e}");
                ExitCode::from(2)
            },
        )?;
    }
    // SQL ext_pillar entries read their databases, read-only.
    ws.sql = Some(model::workspace::sql::Databases(std::sync::Arc::new(salt_extpillar::Databases)));
    // gitfs remotes are read from local copies and mounted, never fetched.
    let served = salt_gitfs::serve::serve_gitfs(&mut ws);
    disk().set_mounts(served.mounts);
    Ok((ws, served.problems))
}
