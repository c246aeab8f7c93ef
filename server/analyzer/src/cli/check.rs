//! `check`: every file's diagnostics and every minion's highstate findings, filtered by the
//! rules and a baseline, printed in the formats of `check_formats`.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use model::check::highstate::{minion_prefix, MinionDiagnostic};
use model::check::CheckContext;
use model::diagnostic::{Code, Severity};
use model::pipeline::Who;
use model::workspace::vfs::{FileTable, RealFs, Vfs};
use model::workspace::Workspace;
use serde_json::json;

use super::minions::{fleet_who, sharing_stats, who_of};
use super::options::{disk, load_workspace_served, Common, Format};
use super::output::{range_json, rel, text_position};
use crate::out::{errln, out, outln};

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

/// `check PATHS`: the findings under `paths` (default: all), less `--select`/`--ignore` and the
/// baseline's, printed in `format`; exit 1 when an error is left.
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
    let (ws, files, all) = match findings(paths, common, rules) {
        Ok(found) => found,
        Err(code) => return code,
    };
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
    // A deprecated state once: the compile's finding, when it is reported, says it better.
    let shown: Vec<&model::diagnostic::Diagnostic> = selected.iter().map(|m| &m.diagnostic).collect();
    let said_better: Vec<bool> = selected.iter().map(|m| model::check::style::said_better(&m.diagnostic, &shown)).collect();
    let mut said = said_better.into_iter();
    selected.retain(|_| !said.next().unwrap_or(false));
    if let Some(path) = &rules.write_baseline {
        return write_baseline(path, &selected, &files);
    }
    if let Some(b) = baseline.as_mut() {
        let before = selected.len();
        selected.retain(|m| {
            let (file, line) = (rel(&m.diagnostic.file), line_text(&files, &m.diagnostic));
            !b.absorbs(&model::check::baseline::Entry { code: m.diagnostic.code.as_str(), file: &file, line_text: &line, message: &m.diagnostic.message })
        });
        let fixed = b.unmatched();
        let fixed =
            if fixed > 0 { format!("; {fixed} baseline entr(ies) match nothing now (fixed: --write-baseline again to drop them)") } else { String::new() };
        errln!("salt-analyzer: {} finding(s) left out as in the baseline{fixed}", before - selected.len());
    }
    let errors = selected.iter().filter(|m| m.diagnostic.severity == Severity::Error).count();
    print(&selected, &files, &ws, format, common.format, errors);
    if errors > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

/// Every finding of the workspace, suppressions and `rules:` applied, sorted by place: the
/// per-file checks, the unreadable parts of the fleet, and the highstates (with --fleet every
/// minion of the fleet, else the named profile, else every profile and the minion of `-c DIR`),
/// with the texts their positions are in.
fn findings(paths: &[PathBuf], common: &Common, rules: &CheckRules) -> Result<(Workspace, FileTable, Vec<MinionDiagnostic>), ExitCode> {
    let (mut ws, problems) = load_workspace_served(common, paths.first().map(PathBuf::as_path))?;
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
            Err(code) => return Err(code),
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
            return Err(ExitCode::from(2));
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
    Ok((ws, result.files, all))
}

/// The text of the line a finding starts on (a baseline matches findings by it).
fn line_text(files: &FileTable, d: &model::diagnostic::Diagnostic) -> String {
    files.id(&d.file).map_or_else(String::new, |id| {
        let text = files.text(id);
        let at = d.span.start.min(text.len());
        let start = text[..at].rfind('\n').map_or(0, |i| i + 1);
        text[start..].lines().next().unwrap_or_default().to_string()
    })
}

/// `--write-baseline`: the findings `selected` written to `path`.
fn write_baseline(path: &Path, selected: &[&MinionDiagnostic], files: &FileTable) -> ExitCode {
    let kept: Vec<(String, String, &MinionDiagnostic)> = selected.iter().map(|m| (rel(&m.diagnostic.file), line_text(files, &m.diagnostic), *m)).collect();
    let entries: Vec<model::check::baseline::Entry> = kept
        .iter()
        .map(|(file, line, m)| model::check::baseline::Entry { code: m.diagnostic.code.as_str(), file, line_text: line, message: &m.diagnostic.message })
        .collect();
    if let Err(e) = std::fs::write(path, model::check::baseline::write(&entries)) {
        errln!("salt-analyzer: error: cannot write {}: {e}", path.display());
        return ExitCode::from(2);
    }
    errln!("salt-analyzer: wrote {} finding(s) to the baseline {}", entries.len(), path.display());
    ExitCode::SUCCESS
}

/// The findings in `format` (`json`: the text or JSON that format stands for), with the
/// count of each severity after the text.
fn print(selected: &[&MinionDiagnostic], files: &FileTable, ws: &Workspace, format: crate::check_formats::CheckFormat, json: Format, errors: usize) {
    if let Some(ci) = format.ci() {
        let found: Vec<crate::check_formats::Found> = selected
            .iter()
            .map(|m| {
                let d = &m.diagnostic;
                let place = |file, span| ci_place(file, span, files);
                let prefix = if m.minions.is_empty() { String::new() } else { minion_prefix(&m.minions, m.alone.as_deref()) };
                crate::check_formats::Found {
                    at: place(&d.file, &d.span),
                    severity: d.severity,
                    code: d.code,
                    message: format!("{prefix}{}", d.message),
                    related: d.related.iter().map(|r| (place(&r.file, &r.span), r.message.clone())).collect(),
                }
            })
            .collect();
        out!("{}", ci.print(&found));
    } else if json == Format::Json {
        let list: Vec<serde_json::Value> = selected.iter().map(|m| diagnostic_json(m, files)).collect();
        outln!("{}", serde_json::to_string_pretty(&json!({"diagnostics": list})).unwrap_or_default());
    } else {
        for m in selected {
            let d = &m.diagnostic;
            let (line, col) = text_position(&d.file, d.span.start, files);
            let prefix = if m.minions.is_empty() { String::new() } else { minion_prefix(&m.minions, m.alone.as_deref()) };
            outln!("{}[{}]: {prefix}{}\n  --> {}:{line}:{col}", d.severity.as_str(), d.code.as_str(), d.message, rel(&d.file));
            for r in &d.related {
                let (line, col) = text_position(&r.file, r.span.start, files);
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
}

/// A diagnostic as JSON; `minion` lists the minions whose highstate has it (absent for the
/// per-file checks), `applied_alone` the SLS name when it was found applying that file alone.
pub(super) fn diagnostic_json(m: &MinionDiagnostic, files: &FileTable) -> serde_json::Value {
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

/// Where `span` of `file` is, as the CI formats print it.
fn ci_place<'p>(file: &'p Path, span: &std::ops::Range<usize>, files: &FileTable) -> crate::check_formats::Place<'p> {
    let ((line, col), (end_line, end_col)) = (text_position(file, span.start, files), text_position(file, span.end, files));
    crate::check_formats::Place { file, line, col, end_line, end_col }
}
