//! What a highstate's `file.managed` states would write: each state's `source: salt://...`
//! found in the file roots of its environment and, where `template: jinja` says so, rendered
//! for the minion as `file.get_managed` renders it (`salt/states/file.py` `managed`,
//! `salt/modules/file.py` `get_managed`, `salt/utils/templates.py` `render_jinja_tmpl`). Never
//! executed, never written: the text is only compared (`impact`).

use std::path::PathBuf;

use crate::render::context::JinjaSetup;
use crate::render::jinja;
use crate::state::chunk::Chunk;
use crate::state::chunk::LowChunk;
use crate::value::{Val, V};
use crate::workspace::reads;
use crate::workspace::roots::FileRoots;
use crate::workspace::vfs::Vfs;

/// One managed file's source and the text it would have on the minion.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ManagedFile {
    /// The state's tag (`file_|-id_|-name_|-managed`).
    pub tag: String,
    /// The `salt://` URL the content comes from.
    pub source: String,
    /// Where that source is in the file roots.
    pub path: Option<PathBuf>,
    /// The content, or why there is none (no such file, a template that fails, an engine
    /// other than Jinja).
    pub content: Result<String, String>,
}

/// The managed files of `chunks` (ordered low chunks), read and rendered through `fs`, so
/// that what they read is among the compile's reads.
pub fn managed_files(fs: &dyn Vfs, roots: &FileRoots, chunks: &[Chunk], setup: &JinjaSetup) -> Vec<ManagedFile> {
    chunks.iter().filter(|c| c.str("state") == "file" && c.str("fun") == "managed").filter_map(|c| managed(fs, roots, c, setup)).collect()
}

fn managed(fs: &dyn Vfs, roots: &FileRoots, chunk: &Chunk, setup: &JinjaSetup) -> Option<ManagedFile> {
    // `source` may be one URL or a list tried in order (the first that exists wins; a list of
    // one-key dicts carries source hashes). Only `salt://` sources are the tree's own.
    let candidates: Vec<String> = match &chunk.get("source")?.v {
        V::Str(s) => vec![s.to_string()],
        V::List(items) => items
            .iter()
            .filter_map(|i| match &i.v {
                V::Str(s) => Some(s.to_string()),
                V::Dict(d) => d.0.first().map(|(k, _)| k.py_str()),
                _ => None,
            })
            .collect(),
        _ => return None,
    };
    let env = chunk.str("__env__").into_owned();
    let salt: Vec<(String, String, String)> = candidates
        .iter()
        .filter_map(|url| {
            let rest = url.strip_prefix("salt://")?;
            // `salt://path?saltenv=dev` names its own environment.
            let (rel, query) = rest.split_once('?').unwrap_or((rest, ""));
            let env = query.split('&').find_map(|kv| kv.strip_prefix("saltenv=")).unwrap_or(&env);
            Some((url.clone(), rel.trim_start_matches('/').to_string(), env.to_string()))
        })
        .collect();
    let (url, rel, env) = salt.iter().find(|(_, rel, env)| reads::find_file(fs, roots, env, rel).is_some()).or(salt.first())?.clone();
    let tag = chunk.tag();
    let Some(path) = reads::find_file(fs, roots, &env, &rel) else {
        return Some(ManagedFile { tag, source: url.clone(), path: None, content: Err(format!("Source file {url} not found in saltenv '{env}'")) });
    };
    let text = match fs.read(&path) {
        Ok(t) => t,
        Err(e) => return Some(ManagedFile { tag, source: url, path: Some(path), content: Err(format!("cannot read: {e}")) }),
    };
    let content = match chunk.get("template").map(Val::py_str).as_deref() {
        None | Some("") | Some("None") => Ok(text),
        Some("jinja") => {
            let mut ctx = setup.context(&env, &chunk.str("__sls__"), &rel, &path);
            ctx.extra = template_vars(chunk, &url, &env);
            jinja::render(&text, &ctx).map(|r| r.text).map_err(|f| f.message)
        }
        Some(other) => Err(format!("the `{other}` template engine is not analysed")),
    };
    Some(ManagedFile { tag, source: url, path: Some(path), content })
}

/// The variables `file.get_managed` passes a template besides the minion's: `defaults`
/// updated by `context` (`context_dict`), then the state's own arguments it names.
fn template_vars(chunk: &Chunk, source: &str, env: &str) -> Vec<(String, serde_json::Value)> {
    let mut vars: Vec<(String, serde_json::Value)> = Vec::new();
    for key in ["defaults", "context"] {
        if let Some(serde_json::Value::Object(m)) = chunk.get(key).map(Val::to_json) {
            for (k, v) in m {
                vars.retain(|(name, _)| *name != k);
                vars.push((k, v));
            }
        }
    }
    for key in ["name", "user", "group", "mode", "attrs"] {
        vars.push((key.to_string(), chunk.get(key).map_or(serde_json::Value::Null, Val::to_json)));
    }
    vars.push(("source".into(), source.into()));
    vars.push(("saltenv".into(), env.into()));
    vars
}
