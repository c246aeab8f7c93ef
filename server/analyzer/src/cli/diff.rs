//! `salt-analyzer diff`: every minion's highstate compiled at two sides of a change (a git ref,
//! by default `HEAD`, and the work tree or another ref), compared by `model::impact`, grouped and
//! printed. The sides are file systems: the repository's tree at a ref mounted over the disk at
//! the work tree's own path (`salt-gitfs`), so every root inside the repository, relative or
//! absolute, is read at that ref and every root outside it from the disk.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use model::impact::{self, report};
use model::pipeline::Who;
use model::workspace::roots::FileRoots;
use model::workspace::vfs::{RealFs, Vfs};
use model::workspace::Workspace;
use serde_json::json;

use crate::out::{errln, out};

/// How the report is printed.
#[derive(Clone, Copy, Debug, clap::ValueEnum, PartialEq, Eq)]
pub enum DiffFormat {
    Text,
    Json,
    Markdown,
}

/// The least serious new finding `--fail-on-new-findings` fails on.
#[derive(Clone, Copy, Debug, clap::ValueEnum, PartialEq, Eq)]
pub enum FailOn {
    Error,
    Warning,
    Hint,
}

impl FailOn {
    fn severity(self) -> model::diagnostic::Severity {
        use model::diagnostic::Severity;
        match self {
            FailOn::Error => Severity::Error,
            FailOn::Warning => Severity::Warning,
            FailOn::Hint => Severity::Hint,
        }
    }
}

/// The options of `diff`.
#[derive(clap::Args, Debug, Clone)]
pub struct DiffArgs {
    /// The side before the change: a git revision (default `HEAD`); `A..B` is from A to B and
    /// `A...B` from the merge base of A and B to B, as `git diff` reads them (then no `--to`).
    #[arg(long)]
    pub from: Option<String>,
    /// The side after the change: a git revision (default: the work tree, uncommitted changes
    /// included).
    #[arg(long)]
    pub to: Option<String>,
    /// A Salt configuration directory, read as `salt-call -c DIR` reads it (at each side, when
    /// it is inside the repository).
    #[arg(short = 'c', long = "config-dir", value_name = "DIR")]
    pub config_dir: Option<PathBuf>,
    /// Only these minions (repeatable; default: every profile, else the configuration's minion).
    #[arg(long = "minion", value_name = "ID")]
    pub minions: Vec<String>,
    /// Show the values of changed pillar keys (hidden by default: pillar holds secrets).
    #[arg(long)]
    pub show_pillar: bool,
    /// Exit 1 when anything changed, as `git diff --exit-code` does.
    #[arg(long)]
    pub exit_code: bool,
    /// Exit 1 when the change introduces a `check` finding of this severity or a more serious
    /// one for any minion (`error`, `warning` or `hint`).
    #[arg(long, value_name = "SEVERITY", value_enum)]
    pub fail_on_new_findings: Option<FailOn>,
    #[arg(long, value_enum, default_value_t = DiffFormat::Text)]
    pub format: DiffFormat,
    /// The fleet's minions too: a master cachedir, `grains.items` JSON or a directory of
    /// `<id>.json` files; without PATH (or without the flag), the workspace's `fleet:`.
    #[arg(long, value_name = "PATH", num_args = 0..=1)]
    pub fleet: Option<Option<PathBuf>>,
    /// Only shard K of N of the minions (profiles and fleet alike, by a stable hash of the id),
    /// for a CI matrix.
    #[arg(long, value_name = "K/N", value_parser = model::workspace::fleet::parse_shard)]
    pub shard: Option<(usize, usize)>,
    /// The Salt release both sides answer for (3006, 3007 or 3008, as `check --salt-version`);
    /// with --to-salt-version, the before side's.
    #[arg(long, value_name = "VERSION", value_parser = super::options::salt_version_arg)]
    pub salt_version: Option<model::version::SaltVersion>,
    /// The Salt release of the after side: what upgrading Salt changes. Without --from and
    /// --to, both sides are the work tree (the same states, two releases); with them, this
    /// change on the new release.
    #[arg(long, value_name = "VERSION", value_parser = super::options::salt_version_arg)]
    pub to_salt_version: Option<model::version::SaltVersion>,
}

/// The revisions the sides are read at, and their names in the report.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Revisions {
    /// The before side's revision (a commit id for `A...B`).
    from: String,
    /// How the report names it (`merge base of A and B (0123456789ab)` for `A...B`).
    from_label: String,
    /// The after side's revision; `None`: the work tree.
    to: Option<String>,
}

/// `--from` and `--to` read as `git diff` reads its revisions: `A..B` is `A` to `B`, `A...B`
/// the merge base of `A` and `B` to `B`, an empty end `HEAD`; a range names both sides, so
/// `--to` with it is refused.
fn revisions(repo: &salt_gitfs::Repo, from: &str, to: Option<&str>) -> Result<Revisions, String> {
    let (range, three) = match (from.split_once("..."), from.split_once("..")) {
        (Some(r), _) => (Some(r), true),
        (None, Some(r)) => (Some(r), false),
        (None, None) => (None, false),
    };
    let Some((a, b)) = range else {
        return Ok(Revisions { from: from.to_string(), from_label: from.to_string(), to: to.map(str::to_string) });
    };
    if let Some(to) = to {
        return Err(format!("`--from {from}` already names the side after the change; drop `--to {to}`, or give `--from A --to B`"));
    }
    let or_head = |r: &str| if r.is_empty() { "HEAD".to_string() } else { r.to_string() };
    let (a, b) = (or_head(a), or_head(b));
    if !three {
        return Ok(Revisions { from: a.clone(), from_label: a, to: Some(b) });
    }
    let base = repo.merge_base(&a, &b).map_err(|e| format!("cannot read `{from}`: {e}"))?;
    let label = format!("merge base of {a} and {b} ({})", &base[..12.min(base.len())]);
    Ok(Revisions { from: base, from_label: label, to: Some(b) })
}

fn fail(message: impl std::fmt::Display) -> ExitCode {
    errln!("salt-analyzer: error: {message}");
    ExitCode::from(2)
}

/// The file system of revision `rev` of `repo`: its tree at the work tree's path, the disk
/// elsewhere.
fn at_revision(repo: &salt_gitfs::Repo, work_dir: &Path, rev: &str) -> Result<Arc<dyn Vfs>, String> {
    let tree = repo.tree(rev).map_err(|e| format!("cannot read revision `{rev}`: {e}"))?;
    Ok(Arc::new(salt_gitfs::MountedFs::with_mounts(RealFs, vec![salt_gitfs::Mount::new(work_dir, tree)])))
}

fn setup(fs: Arc<dyn Vfs>, root: &Path, args: &DiffArgs, label: &str, version: Option<model::version::SaltVersion>) -> Result<impact::Tree, String> {
    let mut ws = Workspace::load(&*fs, root, args.config_dir.as_deref()).map_err(|e| format!("at {label}: {e}"))?;
    super::options::choose_salt_version(&mut ws, version);
    ws.sql = Some(model::workspace::sql::Databases(Arc::new(salt_extpillar::Databases)));
    // The side's gitfs remotes (as its master configuration names them) mounted over it.
    let served = salt_gitfs::serve::serve_gitfs(&mut ws);
    for p in &served.problems {
        errln!("salt-analyzer: warning[gitfs-remote]: at {label}: {}", p.message);
    }
    let fs: Arc<dyn Vfs> = Arc::new(salt_gitfs::MountedFs::with_mounts(fs, served.mounts));
    let roots = Arc::new(FileRoots::scan(&*fs, &ws.opts.served_roots()));
    Ok(impact::Tree::new(fs, ws, roots))
}

/// The minions to compare: those asked for (profiles, else fleet minions), else every profile
/// of either side and every minion of the fleet (`--fleet`, or the workspace's `fleet:`).
fn minions(args: &DiffArgs, before: &Workspace, after: &Workspace) -> Result<Vec<Who>, ExitCode> {
    let common = |minion: Option<String>| super::options::Common {
        args: super::options::Unformatted {
            config_dir: args.config_dir.clone(),
            minion,
            fleet: super::options::FleetArgs { fleet: args.fleet.clone(), shard: args.shard },
            quick: Default::default(),
            absolute_paths: false,
            salt_version: None,
        },
        format: super::options::Format::Text,
    };
    if !args.minions.is_empty() {
        return Ok(args.minions.iter().map(|m| super::minions::who_of(after, &common(Some(m.clone())))).collect());
    }
    let mut ids: Vec<String> = after.profiles.keys().cloned().collect();
    ids.extend(before.profiles.keys().filter(|k| !after.profiles.contains_key(*k)).cloned());
    // A shard of a CI matrix takes its share of the profiles too (the fleet is sharded as it
    // is read).
    if let Some((k, n)) = args.shard {
        ids.retain(|id| model::workspace::fleet::in_shard(id, k, n));
    }
    let mut who: Vec<Who> = ids.into_iter().map(Who::Profile).collect();
    if args.fleet.is_some() || !after.fleet.is_empty() {
        let (fleet_who, fleet) = super::minions::fleet_who(after, &common(None))?;
        for p in &fleet.problems {
            errln!("salt-analyzer: error: {p}");
        }
        // A fleet minion with a profile's id is that profile (already listed).
        who.extend(fleet_who.into_iter().filter(|w| matches!(w, Who::Fleet(_))));
    }
    if who.is_empty() {
        who.push(Who::Default);
    }
    Ok(who)
}

/// `path` as seen from `base` (both absolute and lexical): `../shared`, `salt/base`.
fn relative_to(path: &Path, base: &Path) -> PathBuf {
    let common = path.components().zip(base.components()).take_while(|(a, b)| a == b).count();
    let mut out: PathBuf = base.components().skip(common).map(|_| std::path::Component::ParentDir).collect();
    out.extend(path.components().skip(common));
    if out.as_os_str().is_empty() {
        out.push(".");
    }
    out
}

/// Roots of either side that lie outside the repository: read from the disk on both sides.
/// One note a directory, however many sides, environments and kinds of root list it, named
/// relative to the repository's root.
fn outside_notes(work_dir: &Path, sides: [&Workspace; 2]) -> Vec<String> {
    // Directory -> (kinds, environments), in the order first seen.
    let mut found: indexmap::IndexMap<PathBuf, (Vec<&str>, Vec<String>)> = indexmap::IndexMap::new();
    for ws in sides {
        for (kind, roots) in [("file", &ws.opts.file_roots), ("pillar", &ws.opts.pillar_roots)] {
            for (env, list) in roots {
                for r in list {
                    // Lexically, as the mounts see it: `WORK/../shared` is outside.
                    let abs = salt_gitfs::lexical(&std::path::absolute(r).unwrap_or_else(|_| r.clone()));
                    if abs.starts_with(work_dir) {
                        continue;
                    }
                    let (kinds, envs) = found.entry(abs).or_default();
                    if !kinds.contains(&kind) {
                        kinds.push(kind);
                    }
                    if !envs.contains(env) {
                        envs.push(env.clone());
                    }
                }
            }
        }
    }
    found
        .iter()
        .map(|(dir, (kinds, envs))| {
            format!(
                "{} root {} ({}) is outside the repository: read from disk on both sides",
                kinds.join(" and "),
                relative_to(dir, work_dir).display(),
                envs.join(", ")
            )
        })
        .collect()
}

/// What the two sides are read from, and how the report names them.
struct Sides {
    work_dir: PathBuf,
    root: PathBuf,
    before_fs: Arc<dyn Vfs>,
    after_fs: Arc<dyn Vfs>,
    /// The before side's revision as JSON names it (a commit id for `A...B`).
    from_rev: String,
    from_label: String,
    to_label: String,
}

/// Both sides the work tree, as it is on disk.
fn work_tree_sides(root: &Path) -> Sides {
    let root = std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
    let work_dir = salt_gitfs::Repo::discover(&root).ok().and_then(|r| r.work_dir().map(Path::to_path_buf)).unwrap_or_else(|| root.clone());
    let work_dir = std::fs::canonicalize(&work_dir).unwrap_or(work_dir);
    Sides {
        work_dir,
        root,
        before_fs: Arc::new(RealFs),
        after_fs: Arc::new(RealFs),
        from_rev: "work tree".into(),
        from_label: "work tree".into(),
        to_label: "work tree".into(),
    }
}

/// The sides `--from`/`--to` name (`HEAD` and the work tree by default).
fn revision_sides(root: &Path, args: &DiffArgs) -> Result<Sides, String> {
    let repo =
        salt_gitfs::Repo::discover(root).map_err(|e| format!("`diff` compares git revisions, and {} is not in a git repository: {e}", root.display()))?;
    let Some(work_dir) = repo.work_dir().map(Path::to_path_buf) else {
        return Err(format!("{} is a bare repository: `diff` needs a work tree", repo.git_dir().display()));
    };
    let work_dir = std::fs::canonicalize(&work_dir).unwrap_or(work_dir);
    let root = std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
    let revs = revisions(&repo, args.from.as_deref().unwrap_or("HEAD"), args.to.as_deref())?;
    let before_fs = at_revision(&repo, &work_dir, &revs.from)?;
    let after_fs: Arc<dyn Vfs> = match &revs.to {
        Some(rev) => at_revision(&repo, &work_dir, rev)?,
        None => Arc::new(RealFs),
    };
    let to_label = revs.to.clone().unwrap_or_else(|| "work tree".to_string());
    Ok(Sides { work_dir, root, before_fs, after_fs, from_rev: revs.from, from_label: revs.from_label, to_label })
}

pub fn run(args: &DiffArgs) -> ExitCode {
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    let root = super::options::find_root(None);
    // The same tree on two Salt releases needs no revisions (nor a repository).
    let same_tree = args.to_salt_version.is_some() && args.from.is_none() && args.to.is_none();
    let sides = if same_tree { Ok(work_tree_sides(&root)) } else { revision_sides(&root, args) };
    let Sides { work_dir, root, before_fs, after_fs, from_rev, from_label, to_label } = match sides {
        Ok(s) => s,
        Err(e) => return fail(e),
    };
    let before = match setup(before_fs, &root, args, &from_label, args.salt_version) {
        Ok(s) => s,
        Err(e) => return fail(e),
    };
    let after = match setup(after_fs, &root, args, &to_label, args.to_salt_version.or(args.salt_version)) {
        Ok(s) => s,
        Err(e) => return fail(e),
    };
    // Each side says its release when the releases are the question.
    let json_to = to_label.clone();
    let (from_label, to_label) = match args.to_salt_version {
        Some(_) => (
            model::version::side_label(&from_label, before.ws.opts.version, &before.ws.opts.version_source),
            model::version::side_label(&to_label, after.ws.opts.version, &after.ws.opts.version_source),
        ),
        None => (from_label, to_label),
    };
    // Each side's release, in JSON, when two are compared.
    let releases = args.to_salt_version.map(|_| json!({"from": before.ws.opts.version.to_string(), "to": after.ws.opts.version.to_string()}));
    let who = match minions(args, &before.ws, &after.ws) {
        Ok(who) => who,
        Err(code) => return code,
    };
    // A `--minion` that is a profile at neither side and no fleet minion is a mistake, not an
    // unchanged minion.
    if let Some(m) = args
        .minions
        .iter()
        .zip(&who)
        .find_map(|(m, w)| (matches!(w, Who::Profile(_)) && !before.ws.profiles.contains_key(m) && !after.ws.profiles.contains_key(m)).then_some(m))
    {
        let known: Vec<&String> = after.ws.profiles.keys().chain(before.ws.profiles.keys().filter(|k| !after.ws.profiles.contains_key(*k))).collect();
        let known = known.iter().map(|k| k.as_str()).collect::<Vec<_>>().join(", ");
        return fail(format!("no minion profile or fleet minion `{m}` at either side (profiles: {known})"));
    }
    let rel = move |p: &Path| p.strip_prefix(&cwd).unwrap_or(p).display().to_string();
    let (diffs, compiled_again) = impact::compare_counted(&before, &after, &who, &rel);
    // For tests and benchmarks: how many minions the recorded reads let through uncompiled.
    if std::env::var_os("SALT_ANALYZER_DIFF_STATS").is_some_and(|v| v == "1") {
        errln!(
            "diff stats: {} minions, {compiled_again} compiled at both sides, {} skipped on unchanged reads; distinct compiles {} before, {} after",
            diffs.len(),
            diffs.len() - compiled_again,
            before.memo.shared_compiles(),
            after.memo.shared_compiles()
        );
    }
    let groups = impact::group(&diffs);
    let findings = impact::finding_groups(&diffs);
    let notes = outside_notes(&work_dir, [&before.ws, &after.ws]);
    let summary = report::Summary { from: &from_label, to: &to_label, minions: diffs.len(), notes: &notes, findings: &findings };
    let out = match args.format {
        DiffFormat::Text => report::text(&summary, &groups, args.show_pillar),
        DiffFormat::Markdown => report::markdown(&summary, &groups, args.show_pillar),
        DiffFormat::Json => {
            let minions: Vec<serde_json::Value> = diffs
                .iter()
                .map(|(name, d)| {
                    let mut m = serde_json::Map::new();
                    m.insert("minion".into(), json!(name));
                    m.extend(d.to_json(args.show_pillar));
                    let list = |f: &[impact::Finding]| json!(f.iter().map(impact::Finding::json).collect::<Vec<_>>());
                    m.insert("new_findings".into(), list(&d.new_findings));
                    m.insert("resolved_findings".into(), list(&d.resolved_findings));
                    serde_json::Value::Object(m)
                })
                .collect();
            let groups: Vec<serde_json::Value> = groups
                .iter()
                .map(|g| {
                    let mut m = serde_json::Map::new();
                    m.insert("minions".into(), json!(g.minions));
                    m.extend(g.diff.to_json(args.show_pillar));
                    serde_json::Value::Object(m)
                })
                .collect();
            let c = report::counts(&impact::group(&diffs), diffs.len());
            let mut doc = json!({
                "from": from_rev, "to": json_to, "notes": notes,
                "summary": {"changed": c.changed, "unchanged": c.unchanged, "now_failing": c.now_failing, "still_failing": c.still_failing},
                "minions": minions, "groups": groups,
                "findings": {"new": findings.new.iter().map(impact::FindingGroup::json).collect::<Vec<_>>(),
                             "resolved": findings.resolved.iter().map(impact::FindingGroup::json).collect::<Vec<_>>()},
            });
            if let Some(r) = &releases {
                doc["salt"] = r.clone();
            }
            serde_json::to_string_pretty(&doc).unwrap_or_default() + "\n"
        }
    };
    out!("{out}");
    // A minion that failed before the change and still fails is not the change's doing: it
    // does not fail the run (a CI job would block every pull request until someone fixes it),
    // and with `--exit-code` it counts only when its errors changed.
    let failing = diffs.iter().any(|(_, d)| d.now_failing());
    let changed = diffs.iter().any(|(_, d)| !d.is_empty());
    // New findings fail the run only when asked: before they were reported, a change that
    // brought one exited 0, and a CI job keyed on the exit code keeps its meaning.
    let new_finding = args.fail_on_new_findings.is_some_and(|at| findings.new.iter().any(|g| g.finding.severity <= at.severity()));
    if failing || (args.exit_code && changed) || new_finding {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}
