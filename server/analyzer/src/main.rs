//! The `salt-analyzer` binary: argument parsing and dispatch to the CLI commands or the
//! language server. No feature logic lives here.

mod cli;

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let args = cli::Args::parse();
    cli::run(args)
}
