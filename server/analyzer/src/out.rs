//! The CLI's one way to print. Output cut short (a pager quits, `| head` has read enough) is
//! not an error: the process ends quietly with exit 0, as Unix tools do, instead of Rust's
//! "failed printing to stdout" panic. Rust ignores SIGPIPE, so the closed pipe shows up here
//! as `BrokenPipe`. Only the CLI prints through this; the language server never prints to
//! stdout, and its transport sees a closed pipe as the client leaving.

use std::io::Write;

/// Writes `args` to stdout. A closed pipe ends the process with exit 0; any other write error
/// (a full disk) with exit 2 and one line on stderr.
pub fn stdout(args: std::fmt::Arguments<'_>) {
    let mut out = std::io::stdout().lock();
    if let Err(e) = out.write_fmt(args) {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            std::process::exit(0);
        }
        stderr(format_args!("salt-analyzer: error: cannot write the output: {e}\n"));
        std::process::exit(2);
    }
}

/// Writes `args` to stderr; a message nobody can read any more is dropped.
pub fn stderr(args: std::fmt::Arguments<'_>) {
    let _ = std::io::stderr().lock().write_fmt(args);
}

/// `print!` through [`stdout`].
macro_rules! out {
    ($($arg:tt)*) => { $crate::out::stdout(format_args!($($arg)*)) };
}

/// `println!` through [`stdout`].
macro_rules! outln {
    () => { $crate::out::stdout(format_args!("\n")) };
    ($($arg:tt)*) => { $crate::out::stdout(format_args!("{}\n", format_args!($($arg)*))) };
}

/// `eprintln!` through [`stderr`].
macro_rules! errln {
    ($($arg:tt)*) => { $crate::out::stderr(format_args!("{}\n", format_args!($($arg)*))) };
}

pub(crate) use {errln, out, outln};
