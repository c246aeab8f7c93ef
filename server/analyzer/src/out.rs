//! The CLI's one way to print. Output is gathered in one buffer and written in large pieces
//! (a line at a time only to a terminal), so a command printing 4,000 lines makes a few
//! `write` calls, not 4,000; [`flush`] writes what is left before the process ends, and
//! stderr flushes stdout first so the two stay in order on a terminal. Output cut short (a
//! pager quits, `| head` has read enough) is not an error: the process ends quietly with exit
//! 0, as Unix tools do, instead of Rust's "failed printing to stdout" panic. Rust ignores
//! SIGPIPE, so the closed pipe shows up here as `BrokenPipe`. Only the CLI prints through
//! this; the language server never prints to stdout, and its transport sees a closed pipe as
//! the client leaving.

use std::io::{IsTerminal, Write};
use std::sync::{LazyLock, Mutex};

/// What is written at once to a pipe or a file.
const CHUNK: usize = 64 * 1024;

struct Pending {
    buf: Vec<u8>,
    /// Stdout is a terminal: every print is written at once, as a person reads it.
    tty: bool,
}

static PENDING: LazyLock<Mutex<Pending>> = LazyLock::new(|| Mutex::new(Pending { buf: Vec::with_capacity(CHUNK), tty: std::io::stdout().is_terminal() }));

/// Writes `args` to stdout (buffered, see the module). A closed pipe ends the process with
/// exit 0; any other write error (a full disk) with exit 2 and one line on stderr.
pub fn stdout(args: std::fmt::Arguments<'_>) {
    let mut p = PENDING.lock().unwrap_or_else(|e| e.into_inner());
    // Writing into a Vec fails only when a Display impl does; that text is dropped, as
    // `print!` would panic on it.
    let _ = p.buf.write_fmt(args);
    if p.tty || p.buf.len() >= CHUNK {
        write_out(&mut p);
    }
}

/// Writes what stdout still holds. Called when a command ends, and before stderr is written.
pub fn flush() {
    let mut p = PENDING.lock().unwrap_or_else(|e| e.into_inner());
    write_out(&mut p);
}

fn write_out(p: &mut Pending) {
    if p.buf.is_empty() {
        return;
    }
    let mut out = std::io::stdout().lock();
    let result = out.write_all(&p.buf).and_then(|()| out.flush());
    p.buf.clear();
    if let Err(e) = result {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            std::process::exit(0);
        }
        let _ = writeln!(std::io::stderr().lock(), "salt-analyzer: error: cannot write the output: {e}");
        std::process::exit(2);
    }
}

/// Writes `args` to stderr, after what stdout holds; a message nobody can read any more is
/// dropped.
pub fn stderr(args: std::fmt::Arguments<'_>) {
    flush();
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
