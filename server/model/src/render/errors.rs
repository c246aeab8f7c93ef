//! How a render's failures are told: a renderer salt-analyzer never runs, a Jinja failure as a
//! render error at its line, and an error raised inside an imported template moved to that
//! template's line.

use crate::diagnostic::{Code, SaltError};
use crate::value::{FileId, Loc};

/// The hint for a file whose renderer salt-analyzer never runs.
pub(crate) fn never_run(renderer: &str, file: FileId) -> SaltError {
    SaltError::new(
        Code::NotAnalysed,
        format!("not analysed: salt-analyzer never runs the `{renderer}` renderer, so what this file declares is unknown to the checks"),
    )
    .at(Some(Loc { file, span: 0..0 }))
}

/// A Jinja failure of the file `text` as a render error at its line (unsure when the template
/// called a function salt-analyzer does not run before it failed).
pub(crate) fn jinja_error(e: crate::render::jinja::RenderFailure, text: &str, file: FileId) -> SaltError {
    // Inside an imported template, the line is that template's: the file's start until
    // [`place_in_template`] moves it there.
    let line = if e.template.is_some() { None } else { e.line };
    let start = line.and_then(|l| syntax::line_index::LineIndex::new(text).line_range(l.saturating_sub(1) as u32)).map_or(0, |r| r.start);
    let mut err = match (&e.reason, e.inert_calls.first()) {
        // A function the minion lacks: Salt's words, and why.
        (Some((code, reason)), _) => SaltError::new(*code, format!("{}\nReason: {reason}", e.message)),
        // "`salt['cmd.shell']` is not executed ..." names the function.
        (None, Some(call)) => {
            let name = call.split('`').nth(1).unwrap_or("a function");
            let note = format!(" (before this, the template called {name}, which salt-analyzer does not run: with its real answer it may render)");
            SaltError::new(Code::RenderUnsure, format!("{}{note}", e.message))
        }
        (None, None) => SaltError::new(Code::RenderError, e.message),
    }
    .at(Some(Loc { file, span: start..start }));
    err.in_template = e.template;
    err
}

/// Moves a render error raised inside an imported template to that template's line: the file
/// is found through the roots of `env` and added to `files`. Without the file the error stays.
pub fn place_in_template(
    e: &mut SaltError,
    fs: &dyn crate::workspace::vfs::Vfs,
    roots: &crate::workspace::roots::FileRoots,
    env: &str,
    files: &mut crate::workspace::vfs::FileTable,
) {
    let Some((rel, line)) = e.in_template.take() else { return };
    let Some(path) = crate::workspace::reads::find_file(fs, roots, env, &rel) else { return };
    let id = match files.id(&path) {
        Some(id) => id,
        None => match fs.read(&path) {
            Ok(text) => files.add(path, text.as_str().into()),
            Err(_) => return,
        },
    };
    let start = syntax::line_index::LineIndex::new(files.text(id)).line_range(line.saturating_sub(1) as u32).map_or(0, |r| r.start);
    e.loc = Some(Loc { file: id, span: start..start });
}
