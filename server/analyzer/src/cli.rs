//! The command-line interface (DESIGN.md "Command line"): parse, call the model, print text
//! or JSON. Exit codes: 0 clean, 1 errors found, 2 the tool could not run.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};
use model::diagnostic::SaltError;
use model::diagnostic::{Diagnostic, Severity};
use model::render::jinja::JinjaSetup;
use model::state::highstate::Matches;
use model::workspace::roots::FileRoots;
use model::workspace::vfs::{FileTable, RealFs};
use model::workspace::Workspace;
use serde_json::json;

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

#[derive(clap::Args, Debug, Clone)]
pub struct Common {
    /// A Salt configuration directory, read as `salt-call -c DIR` reads it.
    #[arg(short = 'c', long = "config-dir", value_name = "DIR")]
    pub config_dir: Option<PathBuf>,
    /// A minion profile from `salt-analyzer.yaml`.
    #[arg(long)]
    pub minion: Option<String>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Run the language server on stdio (the default with no command).
    Lsp,
    /// Report diagnostics for a state tree; exit 1 when there is any error.
    Check {
        /// Files or directories to report on (default: every file of the workspace).
        paths: Vec<PathBuf>,
        #[command(flatten)]
        common: Common,
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
}

pub fn run(args: Args) -> ExitCode {
    match args.command {
        None | Some(Command::Lsp) => salt_analyzer::lsp::run_stdio(),
        Some(Command::Check { paths, common }) => crate::cli::check(&paths, &common),
        Some(Command::Lowstate { sls, saltenv, common }) => lowstate(&sls, saltenv.as_deref(), &common),
        Some(Command::Top { explain, saltenv, common }) => top(explain, saltenv.as_deref(), &common),
    }
}

/// The workspace root: the nearest directory at or above `start` (the first path given, else
/// the current directory) that has a `salt-analyzer.yaml`; else `start` itself.
fn find_root(start: Option<&Path>) -> PathBuf {
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

fn select_minion(ws: &Workspace, common: &Common) -> Result<model::workspace::minion::Minion, ExitCode> {
    model::workspace::minion::select(&RealFs, ws, common.minion.as_deref()).map_err(|e| {
        eprintln!("salt-analyzer: error: {e}");
        ExitCode::from(2)
    })
}

fn load_workspace(common: &Common) -> Result<Workspace, ExitCode> {
    load_workspace_at(common, None)
}

fn load_workspace_at(common: &Common, start: Option<&Path>) -> Result<Workspace, ExitCode> {
    let root = find_root(start);
    Workspace::load(&RealFs, &root, common.config_dir.as_deref()).map_err(|e| {
        eprintln!("salt-analyzer: error: {e}");
        ExitCode::from(2)
    })
}

/// An error as JSON entries: one, or for a cycle one per member (each at its own place).
fn error_json(e: &SaltError, files: &FileTable) -> Vec<serde_json::Value> {
    let at = |loc: &Option<model::value::Loc>| match loc {
        Some(loc) => (json!(files.path(loc.file).display().to_string()), json!(files.line_col(loc.file, loc.span.start).0)),
        None => (serde_json::Value::Null, serde_json::Value::Null),
    };
    if e.code == model::diagnostic::Code::RequisiteCycle && !e.cycle_ids.is_empty() {
        return e
            .cycle_ids
            .iter()
            .map(|(id, loc)| {
                let (file, line) = at(loc);
                json!({"code": e.code.as_str(), "message": e.message, "file": file, "line": line, "id": id})
            })
            .collect();
    }
    let (file, line) = at(&e.loc);
    vec![json!({"code": e.code.as_str(), "message": e.message, "file": file, "line": line, "id": e.id})]
}

fn lowstate(sls: &[String], saltenv: Option<&str>, common: &Common) -> ExitCode {
    let ws = match load_workspace(common) {
        Ok(ws) => ws,
        Err(code) => return code,
    };
    let roots = FileRoots::scan(&RealFs, &ws.opts.file_roots);
    let env = saltenv.map(str::to_string).or(ws.opts.saltenv.clone()).unwrap_or_else(|| "base".into());
    let mut files = FileTable::default();
    let minion = match select_minion(&ws, common) {
        Ok(m) => m,
        Err(code) => return code,
    };
    let jinja = JinjaSetup::on_disk(&minion, &ws.opts, &roots);
    let low = if sls.is_empty() {
        let mut opts = ws.opts.clone();
        if saltenv.is_some() {
            opts.saltenv = saltenv.map(str::to_string);
        }
        model::state::lowstate::compile_highstate(&RealFs, &opts, &roots, &mut files, &minion.context(), Some(&jinja)).0
    } else {
        let matches = Matches::from([(env, sls.to_vec())]);
        model::state::lowstate::compile(&RealFs, &ws.opts, &roots, &mut files, &matches, Some(&jinja))
    };
    let errors = low.errors();
    if common.format == Format::Json {
        let out = if errors.is_empty() { low.chunks_json() } else { json!({"errors": errors.iter().flat_map(|e| error_json(e, &files)).collect::<Vec<_>>()}) };
        println!("{}", serde_json::to_string_pretty(&out).unwrap_or_default());
    } else if errors.is_empty() {
        for c in low.chunks.iter().flatten() {
            println!(
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
            print_error_text(e, &files);
        }
    }
    if errors.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

fn top(explain: bool, saltenv: Option<&str>, common: &Common) -> ExitCode {
    let ws = match load_workspace(common) {
        Ok(ws) => ws,
        Err(code) => return code,
    };
    let minion = match select_minion(&ws, common) {
        Ok(m) => m,
        Err(code) => return code,
    };
    let mut opts = ws.opts.clone();
    if saltenv.is_some() {
        opts.saltenv = saltenv.map(str::to_string);
    }
    let roots = FileRoots::scan(&RealFs, &opts.file_roots);
    let mut files = FileTable::default();
    let jinja = JinjaSetup::on_disk(&minion, &opts, &roots);
    let result = model::targeting::top::compile_top(&RealFs, &opts, &roots, &mut files, &minion.context(), Some(&jinja));
    let failed = !result.verify_errors.is_empty();
    match (explain, common.format) {
        (true, Format::Json) => println!("{}", serde_json::to_string_pretty(&result.explain_json(&files)).unwrap_or_default()),
        (true, Format::Text) => print!("{}", result.explain_text(&minion.id, &files, &|p| rel(p))),
        (false, Format::Json) => println!("{}", serde_json::to_string_pretty(&result.show_top_json()).unwrap_or_default()),
        (false, Format::Text) => {
            for e in result.render_errors.iter().chain(&result.verify_errors) {
                print_error_text(e, &files);
            }
            for (env, list) in &result.matches {
                println!("{env}:");
                for s in list {
                    println!("  - {s}");
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

fn print_error_text(e: &SaltError, files: &FileTable) {
    match &e.loc {
        Some(loc) => {
            let (line, col) = files.line_col(loc.file, loc.span.start);
            println!("error[{}]: {}\n  --> {}:{}:{}", e.code.as_str(), e.message, rel(files.path(loc.file)), line, col + 1);
        }
        None => println!("error[{}]: {}", e.code.as_str(), e.message),
    }
}

fn rel(p: &Path) -> String {
    let cwd = std::env::current_dir().unwrap_or_default();
    p.strip_prefix(&cwd).unwrap_or(p).display().to_string()
}

pub fn check(paths: &[PathBuf], common: &Common) -> ExitCode {
    let ws = match load_workspace_at(common, paths.first().map(PathBuf::as_path)) {
        Ok(ws) => ws,
        Err(code) => return code,
    };
    let result = model::check::check_workspace(&RealFs, &ws);
    let wanted: Vec<PathBuf> = paths.iter().map(|p| std::fs::canonicalize(p).unwrap_or_else(|_| p.clone())).collect();
    let selected: Vec<&Diagnostic> = result
        .diagnostics
        .iter()
        .filter(|d| {
            wanted.is_empty() || {
                let f = std::fs::canonicalize(&d.file).unwrap_or_else(|_| d.file.clone());
                wanted.iter().any(|w| f.starts_with(w))
            }
        })
        .collect();
    let errors = selected.iter().filter(|d| d.severity == Severity::Error).count();
    if common.format == Format::Json {
        let list: Vec<serde_json::Value> = selected.iter().map(|d| diagnostic_json(d, &result.files)).collect();
        println!("{}", serde_json::to_string_pretty(&json!({"diagnostics": list})).unwrap_or_default());
    } else {
        for d in &selected {
            let (line, col) = text_position(&d.file, d.span.start, &result.files);
            println!("{}[{}]: {}\n  --> {}:{}:{}", d.severity.as_str(), d.code.as_str(), d.message, rel(&d.file), line + 1, col + 1);
            for r in &d.related {
                let (line, col) = text_position(&r.file, r.span.start, &result.files);
                println!("  note: {} ({}:{}:{})", r.message, rel(&r.file), line + 1, col + 1);
            }
            println!();
        }
        let warnings = selected.len() - errors;
        println!("{errors} error(s), {warnings} warning(s)");
    }
    if errors > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

/// 0-based line and UTF-16 column, as LSP counts them.
fn utf16_position(file: &Path, offset: usize, files: &FileTable) -> (u32, u32) {
    let Some(id) = files.id(file) else { return (0, 0) };
    let index = syntax::line_index::LineIndex::new(files.text(id));
    let lc = index.line_col(offset);
    let wide = index.to_wide(syntax::line_index::PositionEncoding::Utf16, lc);
    (wide.line, wide.col)
}

/// 0-based line and character (char) column, for humans.
fn text_position(file: &Path, offset: usize, files: &FileTable) -> (usize, usize) {
    let Some(id) = files.id(file) else { return (0, 0) };
    let text = files.text(id);
    let offset = offset.min(text.len());
    let before = &text[..offset];
    let line = before.matches('\n').count();
    let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count());
    (line, col)
}

fn range_json(file: &Path, span: &std::ops::Range<usize>, files: &FileTable) -> serde_json::Value {
    let (sl, sc) = utf16_position(file, span.start, files);
    let (el, ec) = utf16_position(file, span.end, files);
    json!({"start": {"line": sl, "character": sc}, "end": {"line": el, "character": ec}})
}

fn diagnostic_json(d: &Diagnostic, files: &FileTable) -> serde_json::Value {
    json!({
        "file": rel(&d.file),
        "range": range_json(&d.file, &d.span, files),
        "severity": d.severity.as_str(),
        "code": d.code.as_str(),
        "message": d.message,
        "related": d.related.iter().map(|r| json!({"file": rel(&r.file), "range": range_json(&r.file, &r.span, files), "message": r.message})).collect::<Vec<_>>(),
    })
}
