//! Running the user's `salt-call` (never a Salt module: only `--version`, and the state
//! docs the editor asks for): a command with a timeout, finding it on the `PATH`, and which
//! Salt release it is.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use model::version::SaltVersion;
use wait_timeout::ChildExt;

/// How long `salt-call --version` may take.
pub const VERSION_TIMEOUT: Duration = Duration::from_secs(30);

/// The Salt release of the `salt-call` on the `PATH`: its line and the version it printed
/// (`salt-call 3006.9 (Sulfur)` gives `(V3006, "3006.9")`). `None` without one, or when it
/// is a release salt-analyzer does not support.
pub fn installed_version() -> Option<(SaltVersion, String)> {
    let program = on_path("salt-call")?;
    version_of(&program).ok().flatten()
}

/// What `program --version` says, read as a Salt release.
pub fn version_of(program: &Path) -> Result<Option<(SaltVersion, String)>, String> {
    let out = run(program, &["--version"], VERSION_TIMEOUT)?;
    let Some(v) = out.split_whitespace().nth(1) else { return Ok(None) };
    Ok(SaltVersion::parse(v).map(|line| (line, v.to_string())))
}

/// Runs `program args`, its stdout on success; a readable error on failure or timeout.
pub fn run(program: &Path, args: &[&str], timeout: Duration) -> Result<String, String> {
    let shown = format!("{} {}", program.display(), args.join(" "));
    let mut child = Command::new(program)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("cannot run `{shown}`: {e}"))?;
    let mut stdout = child.stdout.take().ok_or_else(|| format!("`{shown}`: no stdout"))?;
    let reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = stdout.read_to_string(&mut s);
        s
    });
    match child.wait_timeout(timeout) {
        Ok(Some(status)) => {
            let out = reader.join().unwrap_or_default();
            if status.success() {
                Ok(out)
            } else {
                Err(format!("`{shown}` failed ({status})"))
            }
        }
        Ok(None) => {
            let _ = child.kill();
            let _ = child.wait();
            Err(format!("`{shown}` took longer than {} s", timeout.as_secs()))
        }
        Err(e) => Err(format!("`{shown}`: {e}")),
    }
}

/// `name` in a directory of `PATH`.
pub fn on_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path).map(|d| d.join(name)).find(|p| p.is_file())
}
