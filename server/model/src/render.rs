//! Rendering one SLS file to data: the `jinja|yaml` pipe. Plain files go straight to the YAML
//! loader; templated files need the Jinja layer (not rendered yet: an explicit render error,
//! never a guess).

use crate::errors::{Code, SaltError};
use crate::value::{FileId, Loc, Val, V};

/// Whether the text uses Jinja at all (Salt's default delimiters).
pub fn is_templated(text: &str) -> bool {
    text.contains("{%") || text.contains("{{") || text.contains("{#")
}

/// Render an SLS file's text. A falsy result is `{}`, as Salt's YAML renderer returns.
pub fn render_sls(text: &str, file: FileId) -> Result<Val, SaltError> {
    if is_templated(text) {
        return Err(SaltError::new(
            Code::RenderError,
            "this SLS file uses Jinja, which salt-analyzer does not render yet",
        )
        .at(Some(Loc { file, span: 0..0 })));
    }
    render_yaml(text, file)
}

/// The YAML renderer (`salt/renderers/yaml.py`).
pub fn render_yaml(text: &str, file: FileId) -> Result<Val, SaltError> {
    match syntax::yaml::load(text) {
        Ok(node) => {
            let v = Val::from_node(&node, file);
            if !v.truthy() {
                return Ok(Val { v: V::Dict(Default::default()), at: v.at });
            }
            Ok(v)
        }
        Err(e) => {
            let loc = Some(Loc { file, span: e.offset..e.offset });
            let line = text[..e.offset.min(text.len())].matches('\n').count() + 1;
            if let Some(rest) = e.message.split("found conflicting ID '").nth(1) {
                let id = rest.trim_end_matches('\'').to_string();
                return Err(SaltError::new(Code::DuplicateId, format!("{}; line {line}", e.message)).at(loc).id(id));
            }
            let problem = if e.message.contains("'\\t'") { "Illegal tab character".to_string() } else { e.message };
            Err(SaltError::new(Code::YamlSyntax, format!("{problem}; line {line}")).at(loc))
        }
    }
}
