//! The command-line interface (its contract is docs/cli.md): parse, call the model, print text
//! or JSON. Exit codes: 0 clean, 1 errors found, 2 the tool could not run.
//!
//! One file per command (`check`, `top`, `render`, `mapdata`, `pillar`, `lowstate`, `fleet`,
//! `plan`, `rules`, `diff`), each a function of the parsed options; what they share is in
//! `options` (the options every command takes, loading the workspace, compiling for the minion
//! they name), `minions` (which minions: a profile, the fleet, and running a command for each
//! of a fleet's minions), `low` (the highstate or SLS `lowstate` and `plan` compile) and
//! `output` (paths, errors and positions as text and JSON). No command uses another
//! (`server/analyzer/tests/layering.rs`).

mod check;
mod diff;
mod fleet;
mod low;
mod lowstate;
mod mapdata;
mod minions;
mod options;
pub(crate) mod output;
mod pillar;
mod plan;
mod render;
mod rules;
mod top;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

use check::{check, CheckRules};
use fleet::fleet_list;
use lowstate::lowstate;
use mapdata::mapdata;
use options::{with_quick_minion, Common, Format, Unformatted};
use pillar::pillar;
use plan::{plan, PlanFormat};
use render::render;
use rules::rules;
use top::top;

#[derive(Parser, Debug)]
#[command(name = "salt-analyzer", version, about = "Static analysis and a language server for SaltStack state trees")]
pub struct Args {
    #[command(subcommand)]
    pub command: Option<Command>,
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
    /// List the diagnostic codes: each with its severity and what it means (docs/cli.md's table);
    /// with a CODE, that code's page (docs/rules/CODE.md).
    Rules {
        /// The code whose page to print (`missing-include`).
        code: Option<String>,
        /// Output format.
        #[arg(long, value_enum, default_value_t = Format::Text)]
        format: Format,
    },
    /// Compare every minion's highstate between two git revisions (default: `HEAD` and the work
    /// tree): states added, removed, changed and moved, managed file contents, pillar keys and
    /// compile errors, minions with the same change grouped. Exit 1 when a minion that compiled
    /// before fails after (with --exit-code also when anything changed), 2 when it cannot run.
    Diff(diff::DiffArgs),
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
        Some(Command::Diff(args)) => diff::run(&args),
        Some(Command::Rules { code, format }) => rules(code.as_deref(), format),
    }
}

/// Runs a command with its options, the minion `--id`/`--grains`/`--pillar` describe named.
fn with(common: Common, command: impl FnOnce(&Common) -> ExitCode) -> ExitCode {
    match with_quick_minion(common) {
        Ok(common) => command(&common),
        Err(code) => code,
    }
}
