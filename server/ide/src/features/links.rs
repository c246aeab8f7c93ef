//! Document links: `salt://` URLs (to the file the file roots serve for it: `source:`,
//! `template` files, `sources:` lists, any string that is such a URL), include items and
//! top-file entries (to the SLS file they load), and the paths of a template's
//! `{% import %}`, `{% from ... import %}`, `{% include %}` and `{% import_yaml %}` (and
//! `import_json`, `import_text`), found as Salt's loader finds them. A link is given only
//! where the file exists: a missing one is a diagnostic, not a link.

use std::path::Path;

use model::workspace::roots::served_path;
use syntax::jinja::JinjaKind;
use syntax::jinja_lex::TokenKind;

use crate::db::summaries::FileSummary;
use crate::salt::resolve::{file_env, include_target, resolve_sls, url_target};
use crate::snapshot::Snapshot;
use crate::types::*;

pub(crate) fn document_links(snap: &Snapshot, path: &Path) -> Vec<DocumentLink> {
    if snap.too_large(path) {
        return Vec::new();
    }
    let Some(text) = snap.text(path) else { return Vec::new() };
    let env = file_env(snap, path);
    let mut out = Vec::new();
    let file = |range, target: std::path::PathBuf, tooltip: String| DocumentLink { range, target: LinkTarget::File(target), tooltip };
    match snap.summary(path).as_deref() {
        Some(FileSummary::Sls(s)) => {
            for u in &s.urls {
                if let Some(p) = url_target(snap, path, u) {
                    out.push(file(u.span.clone(), p, u.url.clone()));
                }
            }
            for i in &s.includes {
                let Some((ienv, name)) = include_target(snap, path, i) else { continue };
                if let Some(f) = resolve_sls(snap, &ienv, &name, &env).into_iter().next() {
                    out.push(file(i.span.clone(), f.path, format!("SLS {name} in {ienv}")));
                }
            }
            for r in s.requisites.iter().filter(|r| r.key == "sls") {
                if let Some(f) = resolve_sls(snap, &env, &r.value, &env).into_iter().next() {
                    out.push(file(r.span.clone(), f.path, format!("SLS {} in {env}", r.value)));
                }
            }
        }
        Some(FileSummary::Top(t)) => {
            for section in &t.envs {
                for target in &section.targets {
                    for sls in &target.sls {
                        if let Some(f) = resolve_sls(snap, &section.env, &sls.name, &section.env).into_iter().next() {
                            out.push(file(sls.span.clone(), f.path, format!("SLS {} in {}", sls.name, section.env)));
                        }
                    }
                }
            }
        }
        None => {}
    }
    out.extend(template_links(snap, path, &text, &env));
    out.sort_by_key(|l| l.range.start);
    out.dedup_by_key(|l| l.range.start);
    out
}

/// The paths of `import`, `from`, `include` and `import_*` statements that name a literal.
fn template_links(snap: &Snapshot, path: &Path, text: &str, env: &str) -> Vec<DocumentLink> {
    let masked = syntax::jinja::mask(text);
    // The directory a relative name starts from: the file's own, under its root.
    let tpldir = snap.world().locate(path).map(|(_, rel)| rel.rsplit_once('/').map(|(d, _)| d.to_string()).unwrap_or_default()).unwrap_or_default();
    let mut out = Vec::new();
    for block in masked.blocks.iter().filter(|b| b.kind == JinjaKind::Statement) {
        let Some(kw) = block.keyword.as_deref() else { continue };
        if !matches!(kw, "import" | "from" | "include" | "import_yaml" | "import_json" | "import_text") {
            continue;
        }
        let tokens = syntax::jinja_lex::tokens(text, block);
        // `{% from "x" import y %}`: the string right after the statement's word.
        let Some(lit) = tokens.get(2).filter(|t| t.kind == TokenKind::String) else { continue };
        let Some(written) = text.get(lit.range.clone()) else { continue };
        if written.len() < 2 {
            continue;
        }
        let name = &written[1..written.len() - 1];
        let inner = lit.range.start + 1..lit.range.end - 1;
        let Some(rel) = template_path(name, &tpldir) else { continue };
        if let Some(p) = snap.world().ctx.roots.find_file(env, &rel) {
            out.push(DocumentLink { range: inner, target: LinkTarget::File(p), tooltip: format!("salt://{rel}") });
        }
    }
    out
}

/// The file-roots path a template name loads (`SaltCacheLoader`): `./x` and `../x` relative
/// to the template's directory, anything else from the top of the roots; a URL is a
/// template nobody serves (`TemplateNotFound`).
fn template_path(name: &str, tpldir: &str) -> Option<String> {
    if name.contains("://") {
        return None;
    }
    if name.starts_with("./") || name.starts_with("../") {
        let joined = if tpldir.is_empty() { name.to_string() } else { format!("{tpldir}/{name}") };
        // A name that climbs out of the roots is refused.
        let rel = model::py::path::normpath(&joined);
        return (!rel.starts_with("..")).then_some(rel);
    }
    served_path(name)
}
