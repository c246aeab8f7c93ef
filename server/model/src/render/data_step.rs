//! The data step of a renderer pipe: Salt's `yaml` and `json` renderers on a template's output
//! (or a plain file's text), an error in rendered text placed at the file's line.

use crate::diagnostic::{Code, SaltError};
use crate::value::{FileId, Loc, Val, V};

/// Every place in `v` set to the start of `file` (values a template printed have no place of
/// their own in the file).
pub(crate) fn clear_spans(v: &mut Val, file: FileId) {
    v.locs_mut(&mut |at| *at = Some(Loc { file, span: 0..0 }));
}

/// [`crate::render::render_data`] with the data renderer chosen by the caller (`json`, else `yaml`).
pub(crate) fn render_data_as(json: bool, text: &str, rendered: Option<&str>, file: FileId) -> Result<Val, SaltError> {
    let input = rendered.unwrap_or(text);
    let result = if json { render_json(input, file) } else { render_yaml(input, file) };
    let Some(rendered) = rendered else { return result };
    result.map_err(|mut e| {
        if let Some(at) = e.loc.as_mut() {
            let line = syntax::line_index::LineIndex::new(rendered).line_col(at.span.start.min(rendered.len())).line;
            let snippet = rendered.lines().nth(line as usize).unwrap_or("").trim_end();
            e.message = format!("{} (in the rendered text, line {}: `{snippet}`)", e.message, line + 1);
            let index = syntax::line_index::LineIndex::new(text);
            let start = index.line_range(line).or_else(|| index.line_range(0)).map_or(0, |r| r.start);
            at.span = start..start;
        }
        e
    })
}

/// The JSON renderer (`salt/renderers/json.py`): the text after a `#!` line, `{}` when blank,
/// else `json.loads`.
pub fn render_json(text: &str, file: FileId) -> Result<Val, SaltError> {
    let body_at = if text.starts_with("#!") { text.find('\n').map_or(text.len(), |n| n + 1) } else { 0 };
    let body = &text[body_at..];
    let whole = Some(Loc { file, span: 0..0 });
    if body.trim().is_empty() {
        return Ok(Val { v: V::Dict(Default::default()), at: whole });
    }
    serde_json::from_str::<serde_json::Value>(body).map(|j| Val::from_json(&j, whole)).map_err(|e| {
        let offset = body_at + syntax::line_index::LineIndex::new(body).line_range(e.line().saturating_sub(1) as u32).map_or(0, |r| r.start);
        let line = syntax::line_index::line_number(text, offset);
        SaltError::new(Code::RenderError, format!("{e}; line {line}")).at(Some(Loc { file, span: offset..offset }))
    })
}

/// The YAML renderer (`salt/renderers/yaml.py`): [`load_yaml`], a falsy result `{}`.
pub fn render_yaml(text: &str, file: FileId) -> Result<Val, SaltError> {
    let v = load_yaml(text, file)?;
    if !v.truthy() {
        return Ok(Val { v: V::Dict(Default::default()), at: v.at });
    }
    Ok(v)
}

/// Salt's YAML loader (`salt.utils.yaml.safe_load`): the document as it is (`None` for an
/// empty one), or a `yaml-syntax` error at its line.
pub fn load_yaml(text: &str, file: FileId) -> Result<Val, SaltError> {
    match syntax::yaml_reuse::load_shared(text) {
        Ok(loaded) => Ok(Val::from_loaded(&loaded, file)),
        Err(e) => {
            let loc = Some(Loc { file, span: e.offset..e.offset });
            let line = syntax::line_index::line_number(text, e.offset);
            if let Some(rest) = e.message.split("found conflicting ID '").nth(1) {
                let id = rest.trim_end_matches('\'').to_string();
                return Err(SaltError::new(Code::DuplicateId, format!("{}; line {line}", e.message)).at(loc).id(id));
            }
            let problem = if e.message.contains("'\\t'") || e.message.contains("tabs disallowed") { "Illegal tab character".to_string() } else { e.message };
            Err(SaltError::new(Code::YamlSyntax, format!("{problem}; line {line}")).at(loc))
        }
    }
}
