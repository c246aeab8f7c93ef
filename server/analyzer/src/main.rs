//! The `salt-analyzer` binary: argument parsing and dispatch to the CLI commands or the
//! language server. No feature logic lives here.

mod check_formats;
mod cli;
mod out;

use std::process::ExitCode;

use clap::Parser;

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    let args = cli::Args::parse();
    let code = cli::run(args);
    out::flush();
    code
}
