//! `render`: one file rendered as Salt's state system renders it for the minion.

use std::path::Path;
use std::process::ExitCode;

use model::pipeline::Scope;
use serde_json::json;

use super::minions::compile;
use super::options::{load_workspace_at, Common, Format};
use super::output::{error_json, print_error_text};
use crate::out::{errln, out, outln};

pub(super) fn render(file: &Path, common: &Common) -> ExitCode {
    let ws = match load_workspace_at(common, Some(file)) {
        Ok(ws) => ws,
        Err(code) => return code,
    };
    let path = if file.is_absolute() { file.to_path_buf() } else { std::env::current_dir().unwrap_or_default().join(file) };
    let compiled = match compile(&ws, common, None, Scope::Render { path: path.clone(), probe: None }) {
        Ok(c) => c,
        Err(code) => return code,
    };
    let (Some(r), files) = (&compiled.rendered, &compiled.files) else { return ExitCode::from(2) };
    for h in &r.hints {
        errln!("hint: {h}");
    }
    let failed = match common.format {
        Format::Json => match &r.data {
            Ok(v) => {
                outln!("{}", serde_json::to_string_pretty(&v.to_json()).unwrap_or_default());
                false
            }
            Err(e) => {
                outln!("{}", serde_json::to_string_pretty(&json!({"errors": error_json(e, files)})).unwrap_or_default());
                true
            }
        },
        Format::Text => match (&r.text, &r.data) {
            (Err(e), _) | (Ok(_), Err(e)) => {
                print_error_text(e, files);
                true
            }
            (Ok(Some(text)), Ok(_)) => {
                out!("{text}");
                false
            }
            (Ok(None), Ok(_)) => {
                // No template step: the YAML step read the file as it is.
                out!("{}", files.id(&path).map(|id| files.text(id)).unwrap_or_default());
                false
            }
        },
    };
    if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}
