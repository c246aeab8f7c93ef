//! `rules`: every diagnostic code, its severity and what docs/cli.md says of it; or one code's
//! page (docs/rules/CODE.md), through `codes_doc`.

use std::process::ExitCode;

use super::options::Format;
use crate::out::{errln, out};

/// `rules`: every code, its severity and what docs/cli.md's table says of it; or one code's page.
pub(super) fn rules(code: Option<&str>, format: Format) -> ExitCode {
    match salt_analyzer::codes_doc::rules_output(code, format == Format::Json) {
        Ok(text) => {
            out!("{text}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            errln!("salt-analyzer: error: {e}");
            ExitCode::from(2)
        }
    }
}
