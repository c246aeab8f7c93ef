//! The command-line interface (its contract is docs/cli.md): parse, call the model, print text
//! or JSON. Exit codes: 0 clean, 1 errors found, 2 the tool could not run.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use clap::{Parser, Subcommand, ValueEnum};
use model::check::highstate::{minion_prefix, MinionDiagnostic};
use model::check::CheckContext;
use model::diagnostic::{Code, SaltError, Severity};
use model::pipeline::{Compiled, Request, Scope, Who};
use model::workspace::roots::FileRoots;
use model::workspace::vfs::{FileTable, RealFs, Vfs};
use model::workspace::Workspace;
use salt_gitfs::MountedFs;
use serde_json::json;

use crate::out::{errln, out, outln};

#[derive(Parser, Debug)]
#[command(name = "salt-analyzer", version, about = "Static analysis and a language server for SaltStack state trees")]
pub struct Args {
    #[command(subcommand)]
    pub command: Option<Command>,
}

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

/// Which of `check`'s findings are reported: by code, and less a baseline's.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct CheckRules {
    /// Report only these codes (comma-separated: `--select missing-include,duplicate-id`).
    #[arg(long, value_delimiter = ',', value_name = "CODES")]
    pub select: Vec<String>,
    /// Do not report these codes (comma-separated).
    #[arg(long, value_delimiter = ',', value_name = "CODES")]
    pub ignore: Vec<String>,
    /// Leave out the findings FILE holds (a baseline `--write-baseline` wrote): only new
    /// findings are reported, and fail.
    #[arg(long, value_name = "FILE")]
    pub baseline: Option<PathBuf>,
    /// Write the findings to FILE as a baseline (matched later by code, file and content, not
    /// line) and exit 0.
    #[arg(long, value_name = "FILE", conflicts_with = "baseline")]
    pub write_baseline: Option<PathBuf>,
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
    fn with_format(self, format: Format) -> Common {
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
fn with_quick_minion(mut common: Common) -> Result<Common, ExitCode> {
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

fn shard_arg(s: &str) -> Result<(usize, usize), String> {
    model::workspace::fleet::parse_shard(s)
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Run the language server on stdio (the default with no command).
    Lsp,
    /// Report diagnostics for a state tree; exit 1 when there is any error.
    Check {
        /// Files or directories to report on (default: every file of the workspace).
        paths: Vec<PathBuf>,
        /// Output format: text, JSON, GitHub Actions workflow commands (annotations on the
        /// pull request), or GitLab Code Quality JSON.
        #[arg(long, value_enum, default_value_t = crate::check_formats::CheckFormat::Text)]
        format: crate::check_formats::CheckFormat,
        #[command(flatten)]
        rules: CheckRules,
        #[command(flatten)]
        args: Unformatted,
    },
    /// Print the compiled top for a minion, as `state.show_top` does.
    Top {
        /// Say, for every section and target, whether it was used or matched and why.
        #[arg(long)]
        explain: bool,
        /// Restrict to one environment, like Salt's `saltenv`.
        #[arg(long)]
        saltenv: Option<String>,
        #[command(flatten)]
        common: Common,
    },
    /// Render one file as Salt's state system renders it for the minion (its renderer pipe,
    /// `jinja|yaml` by default): the template's output, or with --format json the data, as
    /// `slsutil.renderer` prints it.
    Render {
        /// The file to render.
        file: PathBuf,
        #[command(flatten)]
        common: Common,
    },
    /// Print a formula's layered configuration for the minion, as saltext-formula's
    /// `salt["map.data"](TPLDIR)` computes it: the layers tried (which `parameters/` files
    /// loaded, with which strategy), then the values, each with the layer that set it.
    Mapdata {
        /// The formula's directory under the file roots (`tpldir`; its first part is `tplroot`).
        tpldir: String,
        #[command(flatten)]
        common: Common,
    },
    /// Print the minion's pillar as `salt-call --local pillar.items unmask=True` does: computed
    /// from `pillar_roots` (the pillar top, each matched SLS rendered and merged), with the
    /// profile's own `pillar`/`pillar_file` over it.
    Pillar {
        /// Say, for every value, which pillar SLS (and line) set it and what it overrode.
        #[arg(long)]
        explain: bool,
        #[command(flatten)]
        common: Common,
    },
    /// Print the ordered low chunks: the minion's highstate as `state.show_lowstate` does, or
    /// with --sls the named SLS as `state.show_low_sls` does.
    Lowstate {
        /// Comma-separated SLS names to compile.
        #[arg(long, value_delimiter = ',')]
        sls: Vec<String>,
        /// The environment to compile them in (default base).
        #[arg(long)]
        saltenv: Option<String>,
        #[command(flatten)]
        common: Common,
    },
    /// List the fleet's minions (`--fleet PATH`, else the workspace's `fleet:`) with where each
    /// came from; with --format json, each id with the grains and cached pillar read for it.
    Fleet {
        #[command(flatten)]
        common: Common,
    },
    /// Print the order `state.apply` would run the states in (Salt's `__run_num__` order), each
    /// with what it waits for; with --format dot the requisite graph for Graphviz.
    Plan {
        /// Comma-separated SLS names, as `state.apply A,B` (default: the highstate).
        #[arg(long, value_delimiter = ',')]
        sls: Vec<String>,
        /// The environment (default base).
        #[arg(long)]
        saltenv: Option<String>,
        /// Output format.
        #[arg(long, value_enum, default_value_t = PlanFormat::Text)]
        format: PlanFormat,
        #[command(flatten)]
        args: Unformatted,
    },
    /// List the diagnostic codes: each with its severity and what it means (docs/cli.md's table).
    Rules {
        /// Output format.
        #[arg(long, value_enum, default_value_t = Format::Text)]
        format: Format,
    },
    /// Compare every minion's highstate between two git revisions (default: `HEAD` and the work
    /// tree): states added, removed, changed and moved, managed file contents, pillar keys and
    /// compile errors, minions with the same change grouped. Exit 1 when a minion that compiled
    /// before fails after (with --exit-code also when anything changed), 2 when it cannot run.
    Diff(crate::diff::DiffArgs),
}

#[derive(Clone, Copy, Debug, ValueEnum, PartialEq, Eq)]
pub enum PlanFormat {
    Text,
    Json,
    Dot,
}

pub fn run(args: Args) -> ExitCode {
    match args.command {
        None | Some(Command::Lsp) => salt_analyzer::lsp::run_stdio(),
        Some(Command::Check { paths, format, rules, args }) => {
            let json = if format == crate::check_formats::CheckFormat::Json { Format::Json } else { Format::Text };
            with(args.with_format(json), |c| check(&paths, c, format, &rules))
        }
        Some(Command::Lowstate { sls, saltenv, common }) => with(common, |c| lowstate(&sls, saltenv.as_deref(), c)),
        Some(Command::Top { explain, saltenv, common }) => with(common, |c| top(explain, saltenv.as_deref(), c)),
        Some(Command::Render { file, common }) => with(common, |c| render(&file, c)),
        Some(Command::Mapdata { tpldir, common }) => with(common, |c| mapdata(&tpldir, c)),
        Some(Command::Pillar { explain, common }) => with(common, |c| pillar(explain, c)),
        Some(Command::Fleet { common }) => with(common, fleet_list),
        Some(Command::Plan { sls, saltenv, format, args }) => {
            let format_of = if format == PlanFormat::Json { Format::Json } else { Format::Text };
            with(args.with_format(format_of), |c| plan(&sls, saltenv.as_deref(), c, format))
        }
        Some(Command::Diff(args)) => crate::diff::run(&args),
        Some(Command::Rules { format }) => rules(format),
    }
}

/// Runs a command with its options, the minion `--id`/`--grains`/`--pillar` describe named.
fn with(common: Common, command: impl FnOnce(&Common) -> ExitCode) -> ExitCode {
    match with_quick_minion(common) {
        Ok(common) => command(&common),
        Err(code) => code,
    }
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

fn load_workspace(common: &Common) -> Result<Workspace, ExitCode> {
    load_workspace_at(common, None)
}

/// What the commands read: the disk, with the gitfs remotes' trees mounted where the
/// workspace's saltenvs find them.
static DISK: std::sync::LazyLock<MountedFs<RealFs>> = std::sync::LazyLock::new(|| MountedFs::new(RealFs));

fn disk() -> &'static MountedFs<RealFs> {
    &DISK
}

/// [`load_workspace_served`], with the remotes that are not served as warnings on stderr.
fn load_workspace_at(common: &Common, start: Option<&Path>) -> Result<Workspace, ExitCode> {
    let (ws, problems) = load_workspace_served(common, start)?;
    for p in problems {
        errln!("salt-analyzer: warning[gitfs-remote]: {}", p.message);
    }
    Ok(ws)
}

/// The workspace with its adapters: the SQL databases, and the gitfs remotes mounted into
/// [`disk`]. The remotes that cannot be served come back (the rest are).
fn load_workspace_served(common: &Common, start: Option<&Path>) -> Result<(Workspace, Vec<salt_gitfs::serve::Problem>), ExitCode> {
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

/// An error as JSON entries: one, or for a cycle one per member (each at its own place). `line`
/// is 1-based, as Salt's messages count; `range` is 0-based with UTF-16 columns, as in `check`.
fn error_json(e: &SaltError, files: &FileTable) -> Vec<serde_json::Value> {
    let at = |loc: &Option<model::value::Loc>| match loc {
        Some(loc) => {
            let path = files.path(loc.file);
            (json!(rel(path)), json!(files.human(loc.file, loc.span.start).0), files.range_json(loc.file, &loc.span))
        }
        None => (serde_json::Value::Null, serde_json::Value::Null, serde_json::Value::Null),
    };
    if e.code == model::diagnostic::Code::RequisiteCycle && !e.cycle_ids.is_empty() {
        return e
            .cycle_ids
            .iter()
            .map(|(id, loc)| {
                let (file, line, range) = at(loc);
                json!({"code": e.code.as_str(), "message": e.message, "file": file, "line": line, "range": range, "id": id})
            })
            .collect();
    }
    let (file, line, range) = at(&e.loc);
    vec![json!({"code": e.code.as_str(), "message": e.message, "file": file, "line": line, "range": range, "id": e.id})]
}

/// Compiles `scope` for the minion the options name, through the one pipeline; exit 2 when the
/// profile cannot be read.
fn compile(ws: &Workspace, common: &Common, saltenv: Option<&str>, scope: Scope) -> Result<Compiled, ExitCode> {
    let roots = Arc::new(FileRoots::scan(disk(), &ws.opts.served_roots()));
    let mut req = Request { minion: who_of(ws, common), saltenv: None, scope };
    req.saltenv = saltenv.map(str::to_string);
    let compiled = model::pipeline::compile(Arc::new(disk()), ws, &roots, &req);
    if let Err(e) = &compiled.minion {
        errln!("salt-analyzer: error: {e}");
        return Err(ExitCode::from(2));
    }
    Ok(compiled)
}

/// The minion `--minion` names: a profile, else a minion of the fleet (`--fleet PATH` or the
/// workspace's `fleet:`) with that id; no `--minion`: the default one.
pub(crate) fn who_of(ws: &Workspace, common: &Common) -> Who {
    let Some(name) = &common.minion else { return Who::Default };
    if ws.profiles.contains_key(name) {
        return Who::Profile(name.clone());
    }
    if let Ok(paths) = fleet_paths(ws, common) {
        let fleet = model::workspace::fleet::read(&RealFs, &paths);
        if let Some(m) = fleet.minions.into_iter().find(|m| &m.id == name) {
            return Who::Fleet(m);
        }
    }
    Who::Profile(name.clone())
}

/// The fleet sources: `--fleet PATH`, else (`--fleet` alone, or `--minion` looking for a
/// fleet minion) the workspace's `fleet:`.
fn fleet_paths(ws: &Workspace, common: &Common) -> Result<Vec<PathBuf>, String> {
    match &common.fleet.fleet {
        Some(Some(p)) => Ok(vec![std::env::current_dir().unwrap_or_default().join(p)]),
        _ if !ws.fleet.is_empty() => Ok(ws.fleet.clone()),
        _ => Err("no fleet: give `--fleet PATH`, or `fleet:` in salt-analyzer.yaml".into()),
    }
}

/// The fleet's minions as the pipeline takes them (a profile with the same id wins), with
/// the shard `--shard` asks for, and what could not be read.
pub(crate) fn fleet_who(ws: &Workspace, common: &Common) -> Result<(Vec<Who>, model::workspace::fleet::Fleet), ExitCode> {
    let paths = fleet_paths(ws, common).map_err(|e| {
        errln!("salt-analyzer: error: {e}");
        ExitCode::from(2)
    })?;
    let mut fleet = model::workspace::fleet::read(&RealFs, &paths);
    if let Some((k, n)) = common.fleet.shard {
        fleet.shard(k, n);
    }
    let who = fleet.minions.iter().map(|m| if ws.profiles.contains_key(&m.id) { Who::Profile(m.id.clone()) } else { Who::Fleet(m.clone()) }).collect();
    Ok((who, fleet))
}

/// The workspace and its fleet ([`fleet_who`]), each part that could not be read said on
/// stderr (stdout stays the command's answer).
fn load_fleet(common: &Common) -> Result<(Workspace, Vec<Who>, model::workspace::fleet::Fleet), ExitCode> {
    let ws = load_workspace(common)?;
    let (who, fleet) = fleet_who(&ws, common)?;
    for p in &fleet.problems {
        errln!("salt-analyzer: error: {p}");
    }
    Ok((ws, who, fleet))
}

/// One minion's answer in a fleet command, made on the thread that compiled it (the compile
/// itself is dropped there).
#[derive(Default)]
struct Answer {
    id: String,
    /// What the one-minion command prints with `--format json`.
    json: serde_json::Value,
    /// What it prints as text.
    text: String,
    /// `(saltenv, sls)` the minion gets, for the matrix of `top` and `lowstate`.
    sls: Vec<(String, String)>,
    /// Errors as text, printed once for every minion that has them.
    errors: Vec<String>,
    failed: bool,
}

/// Runs a command for every minion of the fleet, compiles in parallel, answers printed in the
/// fleet's order as they come: JSON is one object mapping each id to what the command prints
/// for that minion; text is the matrix of which minions get which SLS (`matrix`), else each
/// minion's text under its id.
fn fleet_run(
    common: &Common,
    scope: impl Fn(&Workspace) -> Scope,
    saltenv: Option<&str>,
    matrix: bool,
    answer: impl Fn(&Compiled) -> Answer + Sync,
) -> ExitCode {
    let (ws, who, fleet) = match load_fleet(common) {
        Ok(f) => f,
        Err(code) => return code,
    };
    let scope = scope(&ws);
    let roots = Arc::new(FileRoots::scan(disk(), &ws.opts.served_roots()));
    let (fs, memo): (Arc<dyn Vfs>, model::pipeline::Memo) = (Arc::new(disk()), model::pipeline::Memo::sharing());
    let work = |w: &Who| {
        let req = Request { minion: w.clone(), saltenv: saltenv.map(str::to_string), scope: scope.clone() };
        let compiled = model::pipeline::compile_with(fs.clone(), &ws, &roots, &req, &memo);
        match &compiled.minion {
            Ok(m) => Answer { id: m.id.clone(), ..answer(&compiled) },
            Err(e) => {
                Answer { id: who_id(w), json: json!({"errors": [e.to_string()]}), errors: vec![format!("error: {e}")], failed: true, ..Answer::default() }
            }
        }
    };
    let mut failed = !fleet.problems.is_empty();
    let mut matrix_rows: indexmap::IndexMap<(String, String), Vec<String>> = indexmap::IndexMap::new();
    let mut errors: indexmap::IndexMap<String, Vec<String>> = indexmap::IndexMap::new();
    let mut nothing = Vec::new();
    let json = common.format == Format::Json;
    // Written as the answers come; a closed pipe (`| head`) ends the run with exit 0.
    if json {
        out!("{{");
    }
    model::pipeline::each_in_parallel(&who, model::pipeline::parallelism(), work, |i, a| {
        failed |= a.failed;
        if json {
            let value = serde_json::to_string_pretty(&a.json).unwrap_or_default().replace('\n', "\n  ");
            out!("{}\n  {}: {value}", if i == 0 { "" } else { "," }, json!(a.id));
            return;
        }
        for e in a.errors {
            errors.entry(e).or_default().push(a.id.clone());
        }
        if !matrix {
            outln!("== minion `{}` ==\n{}", a.id, a.text);
        } else if a.sls.is_empty() && !a.failed {
            nothing.push(a.id);
        } else {
            for k in a.sls {
                matrix_rows.entry(k).or_default().push(a.id.clone());
            }
        }
    });
    if json {
        outln!("{}}}", if who.is_empty() { "" } else { "\n" });
    } else {
        if matrix {
            out!("{}", matrix_text(&matrix_rows, &nothing, who.len()));
        }
        for (e, minions) in &errors {
            outln!("{}:\n{e}", few(minions));
        }
    }
    sharing_stats(who.len(), &memo);
    if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

/// For tests and benchmarks (`SALT_ANALYZER_FLEET_STATS=1`, on stderr): how many distinct
/// compiles a run's minions shared.
fn sharing_stats(minions: usize, memo: &model::pipeline::Memo) {
    if std::env::var_os("SALT_ANALYZER_FLEET_STATS").is_some_and(|v| v == "1") {
        errln!("fleet stats: {minions} minions, {} distinct compiles kept for sharing", memo.shared_compiles());
    }
}

/// The id a minion request is for, before it is compiled.
fn who_id(w: &Who) -> String {
    match w {
        Who::Profile(id) => id.clone(),
        Who::Fleet(m) => m.id.clone(),
        Who::Default | Who::Config => String::new(),
    }
}

/// `web01, web02, web03 and 297 more`: a few names, then a count.
fn few(minions: &[String]) -> String {
    const NAMED: usize = 3;
    if minions.len() <= NAMED + 1 {
        minions.join(", ")
    } else {
        format!("{} and {} more", minions[..NAMED].join(", "), minions.len() - NAMED)
    }
}

/// Which minions get which SLS in which saltenv: per saltenv, the SLS that the same minions
/// get on one line (a few named, then a count), with how many minions get them and which.
fn matrix_text(rows: &indexmap::IndexMap<(String, String), Vec<String>>, nothing: &[String], total: usize) -> String {
    let mut envs: indexmap::IndexMap<&str, indexmap::IndexMap<&[String], Vec<&str>>> = indexmap::IndexMap::new();
    for ((env, sls), minions) in rows {
        envs.entry(env.as_str()).or_default().entry(minions.as_slice()).or_default().push(sls.as_str());
    }
    let name = |sls: &[&str]| if sls.len() <= 4 { sls.join(", ") } else { format!("{} and {} more SLS", sls[..3].join(", "), sls.len() - 3) };
    let width = envs.values().flat_map(|g| g.values()).map(|sls| name(sls).chars().count()).max().unwrap_or(0);
    let mut out = String::new();
    for (env, groups) in &envs {
        out.push_str(&format!("{env}:\n"));
        for (minions, sls) in groups {
            let all = if minions.len() == total { " (all)" } else { "" };
            out.push_str(&format!("  {:width$}  {:>5} of {total}{all}  {}\n", name(sls), minions.len(), few(minions)));
        }
    }
    if !nothing.is_empty() {
        out.push_str(&format!("no SLS: {:>5} of {total}  {}\n", nothing.len(), few(nothing)));
    }
    out
}

/// An error as text, as the one-minion commands print it.
fn error_text(e: &SaltError, files: &FileTable) -> String {
    let severity = e.severity().as_str();
    match &e.loc {
        Some(loc) => {
            let (line, col) = files.human(loc.file, loc.span.start);
            format!("{severity}[{}]: {}\n  --> {}:{line}:{col}", e.code.as_str(), e.message, rel(files.path(loc.file)))
        }
        None => format!("{severity}[{}]: {}", e.code.as_str(), e.message),
    }
}

/// `salt-analyzer fleet`: what was read of the fleet.
fn fleet_list(common: &Common) -> ExitCode {
    let (_, _, fleet) = match load_fleet(common) {
        Ok(f) => f,
        Err(code) => return code,
    };
    if common.format == Format::Json {
        let all: serde_json::Map<String, serde_json::Value> =
            fleet.minions.iter().map(|m| (m.id.clone(), json!({"grains": m.grains, "pillar": m.pillar, "source": rel(&m.source)}))).collect();
        outln!("{}", serde_json::to_string_pretty(&all).unwrap_or_default());
    } else {
        for m in &fleet.minions {
            let os = m.grains.get("os").and_then(|v| v.as_str()).unwrap_or("?");
            let pillar = if m.pillar.is_some() { ", cached pillar" } else { "" };
            outln!("{}  os {os}{pillar}  ({})", m.id, rel(&m.source));
        }
        outln!("{} minion(s), {} unreadable", fleet.minions.len(), fleet.problems.len());
    }
    if fleet.problems.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

/// The workspace of the current directory, then [`compile`] of `scope` in it.
fn load_and_compile(common: &Common, saltenv: Option<&str>, scope: Scope) -> Result<Compiled, ExitCode> {
    compile(&load_workspace(common)?, common, saltenv, scope)
}

/// The minion's highstate, or with `sls` those SLS in `saltenv` (default: the options', else
/// base).
fn compile_low(sls: &[String], saltenv: Option<&str>, common: &Common) -> Result<Compiled, ExitCode> {
    let ws = load_workspace(common)?;
    let env = if sls.is_empty() { saltenv } else { None };
    compile(&ws, common, env, low_scope(&ws, sls, saltenv))
}

/// The scope of `lowstate` and `plan`: the highstate, or the SLS `sls` in `saltenv` (default:
/// the options', else base).
fn low_scope(ws: &Workspace, sls: &[String], saltenv: Option<&str>) -> Scope {
    if sls.is_empty() {
        Scope::Highstate
    } else {
        let env = saltenv.map(str::to_string).or(ws.opts.saltenv.clone()).unwrap_or_else(|| "base".into());
        Scope::Sls { saltenv: env, names: sls.to_vec() }
    }
}

/// What `lowstate` reports as errors: Salt refuses to compile states over a pillar with
/// `_errors`, else the low state's.
/// The errors `lowstate` answers with: the pillar's, else `state.show_lowstate`'s (which
/// applies extend, `_in` and exclude) for the highstate, or `state.show_low_sls`'s (which
/// applies none of them) for named SLS.
fn low_errors<'a>(compiled: &'a Compiled, low: &'a model::state::lowstate::LowState, sls: bool) -> Vec<&'a SaltError> {
    let pillar_errors = compiled.pillar.as_ref().map(|p| p.salt_errors()).unwrap_or_default();
    if !pillar_errors.is_empty() {
        pillar_errors
    } else if sls {
        low.show_low_sls_errors()
    } else {
        low.errors()
    }
}

/// What `state.sls` of named SLS would stop on while `state.show_low_sls` shows its chunks:
/// said on stderr, and the exit code is 1, so stdout stays Salt's own answer.
fn apply_stops<'a>(compiled: &'a Compiled, low: &'a model::state::lowstate::LowState, sls: bool) -> Vec<&'a SaltError> {
    let pillar_ok = compiled.pillar.as_ref().is_none_or(|p| p.salt_errors().is_empty());
    if sls && pillar_ok {
        low.apply_only_errors()
    } else {
        Vec::new()
    }
}

/// What `lowstate --format json` prints: the chunks, or the errors.
fn low_json(low: &model::state::lowstate::LowState, errors: &[&SaltError], files: &FileTable) -> serde_json::Value {
    if errors.is_empty() {
        low.chunks_json()
    } else {
        json!({"errors": errors.iter().flat_map(|e| error_json(e, files)).collect::<Vec<_>>()})
    }
}

fn lowstate(sls: &[String], saltenv: Option<&str>, common: &Common) -> ExitCode {
    if common.fleet.fleet.is_some() {
        let env = if sls.is_empty() { saltenv } else { None };
        return fleet_run(
            common,
            |ws| low_scope(ws, sls, saltenv),
            env,
            true,
            |compiled| {
                let (Some(low), files) = (&compiled.low, &compiled.files) else { return Answer { failed: true, ..Answer::default() } };
                let mut errors = low_errors(compiled, low, !sls.is_empty());
                let stops = apply_stops(compiled, low, !sls.is_empty());
                let json = low_json(low, &errors, files);
                errors.extend(stops);
                let mut seen = std::collections::HashSet::new();
                let sls = low.chunks.iter().flatten().map(|c| (c.get_str("__env__"), c.get_str("__sls__"))).filter(|k| seen.insert(k.clone())).collect();
                let texts = errors.iter().map(|e| error_text(e, files)).collect();
                Answer { json, sls, errors: texts, failed: !errors.is_empty(), ..Answer::default() }
            },
        );
    }
    let compiled = match compile_low(sls, saltenv, common) {
        Ok(c) => c,
        Err(code) => return code,
    };
    let (Some(low), files) = (&compiled.low, &compiled.files) else { return ExitCode::from(2) };
    let errors = low_errors(&compiled, low, !sls.is_empty());
    let stops = apply_stops(&compiled, low, !sls.is_empty());
    if common.format == Format::Json {
        outln!("{}", serde_json::to_string_pretty(&low_json(low, &errors, files)).unwrap_or_default());
        if !stops.is_empty() {
            let apply: Vec<_> = stops.iter().flat_map(|e| error_json(e, files)).collect();
            errln!("{}", serde_json::to_string_pretty(&json!({ "apply_errors": apply })).unwrap_or_default());
        }
    } else if errors.is_empty() {
        for c in low.chunks.iter().flatten() {
            outln!(
                "{:>10}  {}.{}  {} ({}:{})",
                c.get_str("order"),
                c.get_str("state"),
                c.get_str("fun"),
                c.get_str("__id__"),
                c.get_str("__env__"),
                c.get_str("__sls__")
            );
        }
    } else {
        for e in &errors {
            print_error_text(e, files);
        }
    }
    if !stops.is_empty() && common.format != Format::Json {
        errln!("state.sls would stop before running a state (state.show_low_sls applies no extend, _in or exclude):");
        for e in &stops {
            errln!("{}", error_text(e, files));
        }
    }
    let code = if errors.is_empty() && stops.is_empty() { ExitCode::SUCCESS } else { ExitCode::from(1) };
    drop((errors, stops));
    leave_to_exit(compiled);
    code
}

/// A command's whole result, kept until the process ends instead of being freed piece by
/// piece: the kernel takes the heap back at once (on a 1,000-file highstate the drop was 5% of
/// `lowstate`'s time). Only for values that own nothing but memory.
fn leave_to_exit<T>(value: T) {
    std::mem::forget(value);
}

/// What `plan --format json` prints.
fn plan_json(plan: &model::state::run::Plan) -> serde_json::Value {
    let out: Vec<_> = plan
        .states
        .iter()
        .map(|s| {
            let after: Vec<String> = s.after.iter().map(|(t, k)| if *k == "prereq" { format!("{t}_|-__prereq_test__") } else { t.clone() }).collect();
            let mut entry = json!({"tag": s.tag, "id": s.id, "sls": s.sls, "run_num": s.run_num, "after": after});
            entry["step"] = json!(s.step);
            if let (Some(n), Some(step)) = (s.test_run_num, s.test_step) {
                entry["test_run_num"] = json!(n);
                entry["test_step"] = json!(step);
            }
            if s.parallel {
                entry["parallel"] = json!(true);
            }
            if !s.may_wait.is_empty() {
                entry["may_wait"] = json!(s.may_wait);
            }
            if s.test_step.is_some() {
                let after: Vec<String> = s.test_after.iter().map(|(t, k)| if *k == "prereq" { format!("{t}_|-__prereq_test__") } else { t.clone() }).collect();
                entry["test_after"] = json!(after);
            }
            if !s.test_may_wait.is_empty() {
                entry["test_may_wait"] = json!(s.test_may_wait);
            }
            entry
        })
        .chain(plan.listeners.iter().map(|l| {
            let mut entry = json!({
                "tag": l.tag, "id": l.id, "sls": l.sls, "run_num": l.run_num, "after": [], "listener": true,
                "triggers": l.triggers.iter().map(|(step, tag)| json!({"step": step, "tag": tag})).collect::<Vec<_>>(),
            });
            if let Some(of) = &l.of {
                entry["of"] = json!(of);
            }
            if let Some(step) = l.always {
                entry["always"] = json!(step);
            }
            if let Some(comment) = &l.comment {
                entry["comment"] = json!(comment);
            }
            if l.lost_if_recorded_at_test {
                entry["lost_if_recorded_at_test"] = json!(true);
            }
            entry
        }))
        .collect();
    json!(out)
}

fn plan(sls: &[String], saltenv: Option<&str>, common: &Common, format: PlanFormat) -> ExitCode {
    if common.fleet.fleet.is_some() {
        if format == PlanFormat::Dot {
            errln!("salt-analyzer: error: --format dot draws one minion's plan; give --minion ID");
            return ExitCode::from(2);
        }
        let env = if sls.is_empty() { saltenv } else { None };
        return fleet_run(
            common,
            |ws| low_scope(ws, sls, saltenv),
            env,
            false,
            |compiled| {
                let (Some(low), files) = (&compiled.low, &compiled.files) else { return Answer { failed: true, ..Answer::default() } };
                match model::state::run::plan(low) {
                    Ok(plan) => Answer { json: plan_json(&plan), text: plan_text(&plan), ..Answer::default() },
                    Err(errors) => Answer {
                        json: json!({"errors": errors.iter().flat_map(|e| error_json(e, files)).collect::<Vec<_>>()}),
                        errors: errors.iter().map(|e| error_text(e, files)).collect(),
                        failed: true,
                        ..Answer::default()
                    },
                }
            },
        );
    }
    let compiled = match compile_low(sls, saltenv, common) {
        Ok(c) => c,
        Err(code) => return code,
    };
    let (Some(low), files) = (&compiled.low, &compiled.files) else { return ExitCode::from(2) };
    let plan = match model::state::run::plan(low) {
        Ok(plan) => plan,
        Err(errors) => {
            if format == PlanFormat::Json {
                let out = json!({"errors": errors.iter().flat_map(|e| error_json(e, files)).collect::<Vec<_>>()});
                outln!("{}", serde_json::to_string_pretty(&out).unwrap_or_default());
            } else {
                for e in &errors {
                    print_error_text(e, files);
                }
            }
            return ExitCode::from(1);
        }
    };
    match format {
        PlanFormat::Json => outln!("{}", serde_json::to_string_pretty(&plan_json(&plan)).unwrap_or_default()),
        PlanFormat::Dot => outln!("{}", plan.dot),
        PlanFormat::Text => out!("{}", plan_text(&plan)),
    }
    if let Some(crash) = &plan.listen_crash {
        errln!("salt-analyzer: warning: {crash}");
    }
    ExitCode::SUCCESS
}

/// The run as a numbered list, each state with why it runs there.
fn plan_text(plan: &model::state::run::Plan) -> String {
    let by_tag: std::collections::HashMap<&str, &model::state::run::Planned> = plan.states.iter().map(|s| (s.tag.as_str(), s)).collect();
    let width = (plan.states.len() + plan.listeners.len()).to_string().len();
    let mut out = String::new();
    for (i, s) in plan.states.iter().enumerate() {
        let name = if s.name == s.id { String::new() } else { format!(" ({})", s.name) };
        out.push_str(&format!("{:>width$}. {}.{} {}{name}  [{}]\n", i + 1, s.state, s.fun, s.id, s.sls));
        let pad = " ".repeat(width + 2);
        if let Some(n) = s.test_run_num {
            let by: Vec<String> = s
                .before
                .iter()
                .filter(|(_, k)| *k == "prereq")
                .map(|(t, _)| format!("`{}`", by_tag.get(t.as_str()).map_or(t.as_str(), |p| p.id.as_str())))
                .collect();
            out.push_str(&format!(
                "{pad}tested first for the prereq of {}; recorded there instead (as run {}) if that test run is not run (a requisite failed, no onchanges)\n",
                by.join(", "),
                n + 1
            ));
        }
        let ids = |tags: &[String]| -> String {
            tags.iter().map(|t| format!("`{}`", by_tag.get(t.as_str()).map_or(t.as_str(), |p| p.id.as_str()))).collect::<Vec<_>>().join(", ")
        };
        if !s.test_may_wait.is_empty() {
            out.push_str(&format!(
                "{pad}parallel: its test run is put off while {} still runs; if that is past this place, Salt does not run it at all\n",
                ids(&s.test_may_wait)
            ));
        }
        if !s.may_wait.is_empty() {
            out.push_str(&format!("{pad}parallel: put off while {} still runs, so it may run later\n", ids(&s.may_wait)));
        } else if s.parallel {
            out.push_str(&format!("{pad}parallel: started here in a process of its own\n"));
        }
        if s.after.is_empty() {
            out.push_str(&format!("{pad}by order {}\n", s.order));
        } else {
            let after: Vec<String> = s
                .after
                .iter()
                .map(|(t, k)| {
                    let id = by_tag.get(t.as_str()).map_or(t.as_str(), |p| p.id.as_str());
                    if *k == "prereq" {
                        format!("the test run of `{id}` (prereq)")
                    } else {
                        format!("`{id}` ({k})")
                    }
                })
                .collect();
            out.push_str(&format!("{pad}after {}\n", after.join(", ")));
        }
    }
    for (i, l) in plan.listeners.iter().enumerate() {
        let pad = " ".repeat(width + 2);
        let n = plan.states.len() + i + 1;
        let name = if l.name == l.id { String::new() } else { format!(" ({})", l.name) };
        out.push_str(&format!("{n:>width$}. {}.{} {}{name}  [{}]\n", l.state, l.fun, l.id, l.sls));
        let on: Vec<String> = {
            let mut ids: Vec<String> = Vec::new();
            for (_, t) in &l.triggers {
                let id = format!("`{}`", by_tag.get(t.as_str()).map_or(t.as_str(), |p| p.id.as_str()));
                if !ids.contains(&id) {
                    ids.push(id);
                }
            }
            ids
        };
        match (&l.comment, l.always) {
            (Some(c), Some(_)) => out.push_str(&format!("{pad}after every state: {c}\n")),
            (Some(c), None) => out.push_str(&format!("{pad}after every state, if {} reports changes: {c}\n", on.join(" or "))),
            (None, _) => {
                out.push_str(&format!("{pad}listen: after every state, if {} reports changes\n", on.join(" or ")));
                if l.lost_if_recorded_at_test {
                    let of = l.of.as_deref().unwrap_or("");
                    let id = by_tag.get(of).map_or(of, |p| p.id.as_str());
                    out.push_str(&format!("{pad}not when `{id}` is recorded at its prereq test run (Salt files this run with the test runs)\n"));
                }
            }
        }
    }
    out
}

fn top(explain: bool, saltenv: Option<&str>, common: &Common) -> ExitCode {
    if common.fleet.fleet.is_some() {
        if explain {
            errln!("salt-analyzer: error: --explain explains one minion's top; give --minion ID");
            return ExitCode::from(2);
        }
        return fleet_run(
            common,
            |_| Scope::Top,
            saltenv,
            true,
            |compiled| {
                let (Some(r), files) = (&compiled.top, &compiled.files) else { return Answer { failed: true, ..Answer::default() } };
                Answer {
                    json: r.show_top_json(),
                    sls: r.matches.iter().flat_map(|(env, list)| list.iter().map(move |s| (env.clone(), s.clone()))).collect(),
                    errors: r.render_errors.iter().chain(&r.verify_errors).map(|e| error_text(e, files)).collect(),
                    failed: !r.verify_errors.is_empty(),
                    ..Answer::default()
                }
            },
        );
    }
    let compiled = match load_and_compile(common, saltenv, Scope::Top) {
        Ok(c) => c,
        Err(code) => return code,
    };
    let (Ok(minion), Some(result), files) = (&compiled.minion, &compiled.top, &compiled.files) else { return ExitCode::from(2) };
    // `state.show_top` refuses when the pillar has errors (`_get_pillar_errors`): Salt raises
    // "Pillar failed to render" with them.
    let pillar_errors = compiled.pillar.as_ref().map(|p| p.salt_errors()).unwrap_or_default();
    if !explain && !pillar_errors.is_empty() {
        match common.format {
            Format::Json => {
                let texts = compiled.pillar.as_ref().map(|p| p.salt_error_texts()).unwrap_or_default();
                let said: Vec<&str> = std::iter::once("Pillar failed to render").chain(texts).collect();
                outln!("{}", serde_json::to_string_pretty(&said).unwrap_or_default());
            }
            Format::Text => {
                outln!("state.show_top refuses: Pillar failed to render");
                for e in &pillar_errors {
                    print_error_text(e, files);
                }
            }
        }
        return ExitCode::from(1);
    }
    let failed = !result.verify_errors.is_empty();
    match (explain, common.format) {
        (true, Format::Json) => outln!("{}", serde_json::to_string_pretty(&result.explain_json(files)).unwrap_or_default()),
        (true, Format::Text) => out!("{}", result.explain_text(&minion.id, files, &|p| rel(p))),
        (false, Format::Json) => outln!("{}", serde_json::to_string_pretty(&result.show_top_json()).unwrap_or_default()),
        (false, Format::Text) => {
            for e in result.render_errors.iter().chain(&result.verify_errors) {
                print_error_text(e, files);
            }
            for (env, list) in &result.matches {
                outln!("{env}:");
                for s in list {
                    outln!("  - {s}");
                }
            }
        }
    }
    if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

fn render(file: &Path, common: &Common) -> ExitCode {
    let ws = match load_workspace_at(common, Some(file)) {
        Ok(ws) => ws,
        Err(code) => return code,
    };
    let path = if file.is_absolute() { file.to_path_buf() } else { std::env::current_dir().unwrap_or_default().join(file) };
    let compiled = match compile(&ws, common, None, Scope::Render { path: path.clone(), probe: None }) {
        Ok(c) => c,
        Err(code) => return code,
    };
    let (Some(r), files) = (&compiled.rendered, &compiled.files) else { return ExitCode::from(2) };
    for h in &r.hints {
        errln!("hint: {h}");
    }
    let failed = match common.format {
        Format::Json => match &r.data {
            Ok(v) => {
                outln!("{}", serde_json::to_string_pretty(&v.to_json()).unwrap_or_default());
                false
            }
            Err(e) => {
                outln!("{}", serde_json::to_string_pretty(&json!({"errors": error_json(e, files)})).unwrap_or_default());
                true
            }
        },
        Format::Text => match (&r.text, &r.data) {
            (Err(e), _) | (Ok(_), Err(e)) => {
                print_error_text(e, files);
                true
            }
            (Ok(Some(text)), Ok(_)) => {
                out!("{text}");
                false
            }
            (Ok(None), Ok(_)) => {
                // No template step: the YAML step read the file as it is.
                out!("{}", files.id(&path).map(|id| files.text(id)).unwrap_or_default());
                false
            }
        },
    };
    if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

fn mapdata(tpldir: &str, common: &Common) -> ExitCode {
    if common.fleet.fleet.is_some() {
        return fleet_run(
            common,
            |_| Scope::MapData { tpldir: tpldir.to_string() },
            None,
            false,
            |compiled| {
                let (Ok(minion), Some(data), files) = (&compiled.minion, &compiled.mapdata, &compiled.files) else {
                    return Answer { failed: true, ..Answer::default() };
                };
                Answer {
                    json: data.to_json(files, &|e| error_json(e, files)),
                    text: model::mapstack::report::text(data, files, tpldir, &minion.id, &rel),
                    failed: data.values.is_err(),
                    ..Answer::default()
                }
            },
        );
    }
    let compiled = match load_and_compile(common, None, Scope::MapData { tpldir: tpldir.to_string() }) {
        Ok(c) => c,
        Err(code) => return code,
    };
    let (Ok(minion), Some(data), files) = (&compiled.minion, &compiled.mapdata, &compiled.files) else { return ExitCode::from(2) };
    match common.format {
        Format::Json => outln!("{}", serde_json::to_string_pretty(&data.to_json(files, &|e| error_json(e, files))).unwrap_or_default()),
        Format::Text => out!("{}", model::mapstack::report::text(data, files, tpldir, &minion.id, &rel)),
    }
    if data.values.is_err() {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

/// The pillar as `pillar`'s text prints it, without notes.
fn pillar_lines(pillar: &serde_json::Value) -> String {
    let mut lines = Vec::new();
    model::mapstack::report::value_lines(pillar, 1, &mut Vec::new(), &mut lines);
    lines.into_iter().map(|(l, _)| l + "\n").collect()
}

fn pillar(explain: bool, common: &Common) -> ExitCode {
    if common.fleet.fleet.is_some() {
        if explain {
            errln!("salt-analyzer: error: --explain explains one minion's pillar; give --minion ID");
            return ExitCode::from(2);
        }
        return fleet_run(
            common,
            |_| Scope::Pillar,
            None,
            false,
            |compiled| {
                let (Ok(minion), Some(computed), files) = (&compiled.minion, &compiled.pillar, &compiled.files) else {
                    return Answer { failed: true, ..Answer::default() };
                };
                Answer {
                    json: minion.pillar.clone(),
                    text: pillar_lines(&minion.pillar),
                    errors: computed.errors.iter().map(|e| error_text(&e.diag, files)).collect(),
                    failed: computed.errors.iter().any(|e| e.salt.is_some()),
                    ..Answer::default()
                }
            },
        );
    }
    let compiled = match load_and_compile(common, None, Scope::Pillar) {
        Ok(c) => c,
        Err(code) => return code,
    };
    let (Ok(minion), Some(computed), files) = (&compiled.minion, &compiled.pillar, &compiled.files) else { return ExitCode::from(2) };
    let layer_json = |i: usize| {
        let l = &computed.layers[i];
        json!({"env": l.env, "sls": l.sls, "file": l.path.as_ref().map(|p| rel(p)), "included_by": l.included_by})
    };
    let describe = |o: &model::mapstack::origin::Origin| computed.describe(files, o, &rel);
    // Salt raised instead of answering: no pillar, its error, exit 1.
    if let Some(raised) = &computed.raised {
        match common.format {
            Format::Json => outln!("{}", serde_json::to_string_pretty(&json!({"errors": [raised]})).unwrap_or_default()),
            Format::Text => computed.errors.iter().for_each(|e| print_error_text(&e.diag, files)),
        }
        return ExitCode::from(1);
    }
    match (explain, common.format) {
        (false, Format::Json) => outln!("{}", serde_json::to_string_pretty(&minion.pillar).unwrap_or_default()),
        (true, Format::Json) => {
            let origins: Vec<serde_json::Value> = computed
                .origins
                .leaves()
                .iter()
                .map(|(path, o)| {
                    let line = o.at.as_ref().map(|at| files.human(at.file, at.span.start).0);
                    json!({"path": path, "layer": o.layer, "line": line, "overrode": o.overrode})
                })
                .collect();
            let errors: Vec<serde_json::Value> = computed.errors.iter().flat_map(|e| error_json(&e.diag, files)).collect();
            let layers: Vec<serde_json::Value> = (0..computed.layers.len()).map(layer_json).collect();
            let out = json!({"pillar": minion.pillar, "layers": layers, "origins": origins, "errors": errors});
            outln!("{}", serde_json::to_string_pretty(&out).unwrap_or_default());
        }
        (_, Format::Text) => {
            outln!("Pillar of minion `{}`:", minion.id);
            let mut lines = Vec::new();
            model::mapstack::report::value_lines(&minion.pillar, 1, &mut Vec::new(), &mut lines);
            let width = lines.iter().map(|(l, _)| l.chars().count()).max().unwrap_or(0).min(60);
            for (line, path) in lines {
                let overridden = path.as_ref().is_some_and(|p| minion.literal_pillar.as_ref().is_some_and(|l| p.iter().try_fold(l, |v, k| v.get(k)).is_some()));
                let note = match &path {
                    _ if !explain => None,
                    Some(_) if overridden => Some(format!("# {}", minion.source)),
                    Some(p) => computed.origins.at_path(&p.iter().map(String::as_str).collect::<Vec<_>>()).map(|o| format!("# {}", describe(&o.origin))),
                    None => None,
                };
                match note {
                    Some(n) => outln!("{line:width$}  {n}"),
                    None => outln!("{line}"),
                }
            }
            for e in &computed.errors {
                print_error_text(&e.diag, files);
            }
        }
    }
    if computed.errors.iter().any(|e| e.salt.is_some()) {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

fn print_error_text(e: &SaltError, files: &FileTable) {
    outln!("{}", error_text(e, files));
}

/// How every command prints a path, in text and JSON alike: relative to the workspace root
/// (the directory of `salt-analyzer.yaml`, else the current directory; set when the workspace
/// is loaded), or absolute with `--absolute-paths`.
static PATH_STYLE: std::sync::OnceLock<(PathBuf, bool)> = std::sync::OnceLock::new();

pub(crate) fn rel(p: &Path) -> String {
    match PATH_STYLE.get() {
        Some((_, true)) => std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf()).display().to_string(),
        Some((root, false)) => p.strip_prefix(root).unwrap_or(p).display().to_string(),
        None => {
            let cwd = std::env::current_dir().unwrap_or_default();
            p.strip_prefix(&cwd).unwrap_or(p).display().to_string()
        }
    }
}

pub fn check(paths: &[PathBuf], common: &Common, format: crate::check_formats::CheckFormat, rules: &CheckRules) -> ExitCode {
    // Codes named on the command line must be codes.
    if let Some(bad) = rules.select.iter().chain(&rules.ignore).find(|c| !Code::ALL.iter().any(|k| k.as_str() == c.as_str())) {
        let all: Vec<&str> = Code::ALL.iter().map(|c| c.as_str()).collect();
        errln!("salt-analyzer: error: `{bad}` is no code (codes: {})", all.join(", "));
        return ExitCode::from(2);
    }
    let mut baseline = match &rules.baseline {
        Some(path) => match std::fs::read_to_string(path).map_err(|e| e.to_string()).and_then(|t| model::check::baseline::Baseline::parse(&t)) {
            Ok(b) => Some(b),
            Err(e) => {
                errln!("salt-analyzer: error: {}: {e}", path.display());
                return ExitCode::from(2);
            }
        },
        None => None,
    };
    let (mut ws, problems) = match load_workspace_served(common, paths.first().map(PathBuf::as_path)) {
        Ok(ws) => ws,
        Err(code) => return code,
    };
    // Codes `--select` names are reported even when they are off by default.
    ws.rules.enable(Code::ALL.iter().copied().filter(|c| rules.select.iter().any(|s| s == c.as_str())));
    let mut ctx = CheckContext::new(disk(), &ws);
    if common.fleet.fleet.is_some() {
        // Every fleet minion's highstate: plain files are parsed once for all of them.
        ctx.memo = ctx.memo.with_sharing();
    }
    let mut result = model::check::check_with(disk(), &ws, &ctx);
    // A remote with no local copy is one finding; the other remotes are analysed.
    result.diagnostics.extend(salt_gitfs::serve::diagnostics(&ws, &problems));
    // The highstates: with --fleet every minion of the fleet, else the named profile, else
    // every profile and the minion of `-c DIR`. A part of the fleet that cannot be read is a
    // finding at its file.
    let mut unreadable = Vec::new();
    let who: Vec<Who> = match (&common.minion, common.fleet.fleet.is_some()) {
        (_, true) => match fleet_who(&ws, common) {
            Ok((who, fleet)) => {
                unreadable = fleet.diagnostics(&RealFs);
                who
            }
            Err(code) => return code,
        },
        (Some(_), false) => vec![who_of(&ws, common)],
        (None, false) => ws.profiles.keys().map(|p| Who::Profile(p.clone())).chain(common.config_dir.as_ref().map(|_| Who::Config)).collect(),
    };
    let fs: Arc<dyn Vfs> = Arc::new(disk());
    let highstate = model::check::highstate::check_minions(&fs, &ws, &ctx, &who, &mut result.diagnostics);
    sharing_stats(who.len(), &ctx.memo);
    let highstate = match highstate {
        Ok(found) => found,
        Err(e) => {
            errln!("salt-analyzer: error: {e}");
            return ExitCode::from(2);
        }
    };
    let mut all: Vec<MinionDiagnostic> =
        result.diagnostics.iter().chain(&unreadable).map(|d| MinionDiagnostic { diagnostic: d.clone(), minions: Vec::new(), alone: None }).collect();
    all.extend(highstate);
    all.sort_by(|a, b| (&a.diagnostic.file, a.diagnostic.span.start, a.diagnostic.code).cmp(&(&b.diagnostic.file, b.diagnostic.span.start, b.diagnostic.code)));
    // Positions are computed from the texts the checks read; a highstate may point into a
    // file the per-file checks did not read.
    for m in &all {
        for f in std::iter::once(&m.diagnostic.file).chain(m.diagnostic.related.iter().map(|r| &r.file)) {
            if result.files.id(f).is_none() {
                if let Ok(text) = disk().read(f) {
                    result.files.add(f.clone(), text.into());
                }
            }
        }
    }
    // `# salt-analyzer: disable=CODE` directives, in every file the checks read.
    let scanned: Vec<PathBuf> = result.files.paths().map(Path::to_path_buf).collect();
    let scanned: Vec<&Path> = scanned.iter().map(PathBuf::as_path).collect();
    let (mut all, unused) = model::check::suppress::apply(all, |m| &m.diagnostic, |p| result.files.shared_text(p), &scanned);
    all.extend(unused.into_iter().map(|d| MinionDiagnostic { diagnostic: d, minions: Vec::new(), alone: None }));
    // `rules:` in salt-analyzer.yaml: codes left out or weighed otherwise, per path.
    all.retain_mut(|m| match ws.rules.judge_at(m.diagnostic.code, &m.diagnostic.file, &ws.root, m.diagnostic.severity) {
        Some(severity) => {
            m.diagnostic.severity = severity;
            true
        }
        None => false,
    });
    all.sort_by(|a, b| (&a.diagnostic.file, a.diagnostic.span.start, a.diagnostic.code).cmp(&(&b.diagnostic.file, b.diagnostic.span.start, b.diagnostic.code)));
    let wanted: Vec<PathBuf> = paths.iter().map(|p| std::fs::canonicalize(p).unwrap_or_else(|_| p.clone())).collect();
    let selected: Vec<&MinionDiagnostic> = all
        .iter()
        .filter(|m| {
            wanted.is_empty() || {
                let f = std::fs::canonicalize(&m.diagnostic.file).unwrap_or_else(|_| m.diagnostic.file.clone());
                wanted.iter().any(|w| f.starts_with(w))
            }
        })
        .collect();
    // --select, --ignore, then the baseline.
    let wanted_code = |c: Code| (rules.select.is_empty() || rules.select.iter().any(|s| s == c.as_str())) && !rules.ignore.iter().any(|s| s == c.as_str());
    let mut selected: Vec<&MinionDiagnostic> = selected.into_iter().filter(|m| wanted_code(m.diagnostic.code)).collect();
    let line_text = |d: &model::diagnostic::Diagnostic| -> String {
        result.files.id(&d.file).map_or_else(String::new, |id| {
            let text = result.files.text(id);
            let at = d.span.start.min(text.len());
            let start = text[..at].rfind('\n').map_or(0, |i| i + 1);
            text[start..].lines().next().unwrap_or_default().to_string()
        })
    };
    if let Some(path) = &rules.write_baseline {
        let kept: Vec<(String, String, &MinionDiagnostic)> = selected.iter().map(|m| (rel(&m.diagnostic.file), line_text(&m.diagnostic), *m)).collect();
        let entries: Vec<model::check::baseline::Entry> = kept
            .iter()
            .map(|(file, line, m)| model::check::baseline::Entry { code: m.diagnostic.code.as_str(), file, line_text: line, message: &m.diagnostic.message })
            .collect();
        if let Err(e) = std::fs::write(path, model::check::baseline::write(&entries)) {
            errln!("salt-analyzer: error: cannot write {}: {e}", path.display());
            return ExitCode::from(2);
        }
        errln!("salt-analyzer: wrote {} finding(s) to the baseline {}", entries.len(), path.display());
        return ExitCode::SUCCESS;
    }
    if let Some(b) = baseline.as_mut() {
        let before = selected.len();
        selected.retain(|m| {
            let (file, line) = (rel(&m.diagnostic.file), line_text(&m.diagnostic));
            !b.absorbs(&model::check::baseline::Entry { code: m.diagnostic.code.as_str(), file: &file, line_text: &line, message: &m.diagnostic.message })
        });
        let fixed = b.unmatched();
        let fixed =
            if fixed > 0 { format!("; {fixed} baseline entr(ies) match nothing now (fixed: --write-baseline again to drop them)") } else { String::new() };
        errln!("salt-analyzer: {} finding(s) left out as in the baseline{fixed}", before - selected.len());
    }
    let errors = selected.iter().filter(|m| m.diagnostic.severity == Severity::Error).count();
    if let Some(ci) = format.ci() {
        let found: Vec<crate::check_formats::Found> = selected
            .iter()
            .map(|m| {
                let d = &m.diagnostic;
                let ((line, col), (end_line, end_col)) =
                    (text_position(&d.file, d.span.start, &result.files), text_position(&d.file, d.span.end, &result.files));
                let prefix = if m.minions.is_empty() { String::new() } else { minion_prefix(&m.minions, m.alone.as_deref()) };
                crate::check_formats::Found {
                    file: &d.file,
                    line,
                    col,
                    end_line,
                    end_col,
                    severity: d.severity,
                    code: d.code.as_str(),
                    message: format!("{prefix}{}", d.message),
                }
            })
            .collect();
        out!("{}", ci.print(&found));
    } else if common.format == Format::Json {
        let list: Vec<serde_json::Value> = selected.iter().map(|m| diagnostic_json(m, &result.files)).collect();
        outln!("{}", serde_json::to_string_pretty(&json!({"diagnostics": list})).unwrap_or_default());
    } else {
        for m in &selected {
            let d = &m.diagnostic;
            let (line, col) = text_position(&d.file, d.span.start, &result.files);
            let prefix = if m.minions.is_empty() { String::new() } else { minion_prefix(&m.minions, m.alone.as_deref()) };
            outln!("{}[{}]: {prefix}{}\n  --> {}:{line}:{col}", d.severity.as_str(), d.code.as_str(), d.message, rel(&d.file));
            for r in &d.related {
                let (line, col) = text_position(&r.file, r.span.start, &result.files);
                outln!("  note: {} ({}:{line}:{col})", r.message, rel(&r.file));
            }
            outln!();
        }
        let warnings = selected.iter().filter(|m| m.diagnostic.severity == Severity::Warning).count();
        let hints = selected.len() - errors - warnings;
        let hints = if hints > 0 { format!(", {hints} hint(s)") } else { String::new() };
        // Which Salt the answers are for (a minion's own `saltversioninfo` grain goes over a
        // release that nothing pinned).
        let grains = if matches!(ws.opts.version_source, model::version::VersionSource::CommandLine | model::version::VersionSource::WorkspaceFile) {
            ""
        } else {
            ", or a minion's own saltversioninfo grain"
        };
        outln!("{errors} error(s), {warnings} warning(s){hints}, for Salt {} ({}{grains})", ws.opts.version, ws.opts.version_source);
    }
    if errors > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

/// `rules`: every code, its severity and what docs/cli.md's table says of it.
fn rules(format: Format) -> ExitCode {
    let rows: Vec<(&str, &str, String)> =
        Code::ALL.iter().map(|c| (c.as_str(), c.severity().as_str(), salt_analyzer::codes_doc::what(c.as_str()).unwrap_or_default())).collect();
    match format {
        Format::Json => {
            let list: Vec<serde_json::Value> = Code::ALL
                .iter()
                .zip(&rows)
                .map(|(c, (code, severity, what))| {
                    json!({"code": code, "severity": severity, "summary": what, "category": c.category(), "default": if c.on_by_default() { "on" } else { "off" }, "salt_lint": c.salt_lint()})
                })
                .collect();
            outln!("{}", serde_json::to_string_pretty(&list).unwrap_or_default());
        }
        Format::Text => {
            let width = rows.iter().map(|(c, _, _)| c.len()).max().unwrap_or(0);
            for (code, severity, what) in &rows {
                outln!("{code:width$}  {severity:7}  {what}");
            }
        }
    }
    ExitCode::SUCCESS
}

/// 1-based line and character column: every text position.
fn text_position(file: &Path, offset: usize, files: &FileTable) -> (usize, usize) {
    files.id(file).map_or((1, 1), |id| files.human(id, offset))
}

/// 0-based lines and UTF-16 columns, as LSP counts them: every JSON position (an empty range at
/// the start for a file the table does not hold).
fn range_json(file: &Path, span: &std::ops::Range<usize>, files: &FileTable) -> serde_json::Value {
    match files.id(file) {
        Some(id) => files.range_json(id, span),
        None => json!({"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}}),
    }
}

/// A diagnostic as JSON; `minion` lists the minions whose highstate has it (absent for the
/// per-file checks), `applied_alone` the SLS name when it was found applying that file alone.
fn diagnostic_json(m: &MinionDiagnostic, files: &FileTable) -> serde_json::Value {
    let d = &m.diagnostic;
    let mut v = json!({
        "file": rel(&d.file),
        "range": range_json(&d.file, &d.span, files),
        "severity": d.severity.as_str(),
        "code": d.code.as_str(),
        "message": d.message,
        "related": d.related.iter().map(|r| json!({"file": rel(&r.file), "range": range_json(&r.file, &r.span, files), "message": r.message})).collect::<Vec<_>>(),
    });
    if !m.minions.is_empty() {
        v["minion"] = json!(m.minions);
    }
    if let Some(sls) = &m.alone {
        v["applied_alone"] = json!(sls);
    }
    v
}
