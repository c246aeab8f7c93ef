//! Document links: `salt://` URLs (to the file the file roots serve for it: `source:`,
//! `template` files, `sources:` lists, any string that is such a URL), include items and
//! top-file entries (to the SLS file they load), and the paths of a template's
//! `{% import %}`, `{% from ... import %}`, `{% include %}` and `{% import_yaml %}` (and
//! `import_json`, `import_text`), found as Salt's loader finds them. A link is given only
//! where the file exists: a missing one is a diagnostic, not a link.

use std::path::Path;

use crate::inputs::summaries::FileSummary;
use crate::resolve::{file_env, include_target, resolve_sls, template_refs, url_target};
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

/// The paths of `import`, `from`, `include` and `import_*` statements that name a literal
/// file the roots serve.
fn template_links(snap: &Snapshot, path: &Path, text: &str, env: &str) -> Vec<DocumentLink> {
    let mut out = Vec::new();
    for t in template_refs(snap, path, text) {
        if let Some(p) = snap.world().ctx.roots.find_file(env, &t.rel) {
            out.push(DocumentLink { range: t.inner, target: LinkTarget::File(p), tooltip: format!("salt://{}", t.rel) });
        }
    }
    out
}

#[cfg(test)]
mod tests;
