//! Hover on a state function and on its arguments: the signature and defaults from the
//! catalog (Salt's, plus the workspace's `_states`), and the documentation, which is Salt's
//! and not ours to ship: the edge asks the user's Salt once (`sys.state_doc`) and hands the
//! answer in as [`StateDocs`]; until then (or without Salt) the hover says where the docs
//! would come from. A custom module's docstring is read from its source.

use std::borrow::Cow;

use model::check::summary::StateFunction;
use model::state::calls::unknown_function_name;
use model::state::catalog::{workspace_catalog, Catalog, Function, Saltexts};

use crate::inputs::docs::DocsStatus;
use crate::snapshot::Snapshot;

/// The paragraph of a Salt docstring that documents `arg`: Salt writes arguments as a
/// definition list, the name (optionally `name : default`) on a line of its own and the
/// text indented under it.
pub(crate) fn arg_doc(doc: &str, arg: &str) -> Option<String> {
    let lines: Vec<&str> = doc.lines().collect();
    for (i, line) in lines.iter().enumerate() {
        let indent = line.len() - line.trim_start().len();
        let term = line.trim();
        let name = term.split(" : ").next().unwrap_or(term).trim_end_matches(':').trim();
        let name = name.trim_matches('`').trim_start_matches("**").trim_end_matches("**");
        if name != arg {
            continue;
        }
        let mut body = Vec::new();
        for next in &lines[i + 1..] {
            let ni = next.len() - next.trim_start().len();
            if next.trim().is_empty() {
                body.push("");
                continue;
            }
            if ni <= indent {
                break;
            }
            body.push(next.get(indent..).unwrap_or(next));
        }
        while body.last().is_some_and(|l| l.is_empty()) {
            body.pop();
        }
        if body.is_empty() {
            continue;
        }
        let strip = body.iter().filter(|l| !l.trim().is_empty()).map(|l| l.len() - l.trim_start().len()).min().unwrap_or(0);
        let text: Vec<&str> = body.iter().map(|l| l.get(strip..).unwrap_or("")).collect();
        return Some(text.join("\n"));
    }
    None
}

/// Whether `d` is an unknown-function or not-in-core finding about a function the user's own
/// Salt documents (one of the extensions it loads, which `saltexts:` may not list).
pub(crate) fn known_to_salt(snap: &Snapshot, d: &model::diagnostic::Diagnostic) -> bool {
    let DocsStatus::Ready(docs) = &*snap.state_docs else { return false };
    // The message may start with the minion it is about ("Applying `x` alone on minion ...: ").
    let name = d.message.lines().next().and_then(|l| unknown_function_name(l).or_else(|| l.split_once(": ").and_then(|(_, rest)| unknown_function_name(rest))));
    matches!(d.code, model::diagnostic::Code::UnknownFunction | model::diagnostic::Code::NotInCore) && name.is_some_and(|f| docs.docs.contains_key(f))
}

/// The workspace's catalog as this snapshot sees it (open `_states` buffers included).
pub(crate) fn catalog(snap: &Snapshot) -> Cow<'static, Catalog> {
    workspace_catalog(&snap.files, &snap.world().ctx.roots, &snap.world().ws.opts)
}

/// The docstring of `module.function`: the custom module's own, else Salt's when it answered.
pub(crate) fn doc_of<'a>(snap: &'a Snapshot, module: &str, f: &'a Function) -> Result<&'a str, String> {
    if let Some(d) = &f.doc {
        return Ok(d);
    }
    match &*snap.state_docs {
        DocsStatus::Ready(docs) => {
            docs.docs.get(&format!("{module}.{}", f.name)).map(String::as_str).ok_or_else(|| format!("Salt {} has no documentation for it.", docs.salt_version))
        }
        DocsStatus::Off(why) | DocsStatus::Loading(why) | DocsStatus::Failed(why) => Err(why.clone()),
    }
}

/// The hover of a state function: signature, deprecation, where it is defined, its docs.
pub(crate) fn hover_function(snap: &Snapshot, f: &StateFunction) -> Option<String> {
    let function = f.function.as_deref()?;
    let catalog = catalog(snap);
    let full = format!("{}.{function}", f.module);
    if let (None, DocsStatus::Ready(docs)) = (catalog.function(&f.module, function), &*snap.state_docs) {
        if let Some(doc) = docs.docs.get(&full) {
            return Some(format!(
                "**{full}**\n\nFrom your Salt {} (an extension it loads: salt-analyzer does not know its signature)\n\n---\n\n```rst\n{}\n```\n",
                docs.salt_version,
                doc.trim_end()
            ));
        }
    }
    let Some(m) = catalog.module(&f.module) else {
        let mut out = format!("**{full}**\n\nNo state module `{}` in Salt {} or the workspace's `_states`.\n", f.module, catalog.release());
        if let Some(p) = Saltexts::builtin().packages().find(|p| p.module(&f.module).is_some()) {
            out.push_str(&format!(
                "\nThe Salt extension {} {} has it: list it under `saltexts:` in salt-analyzer.yaml if your minions have it installed.\n",
                p.name, p.version
            ));
        }
        return Some(out);
    };
    let Some(fun) = m.function(function) else {
        return Some(format!("**{}.{function}**\n\nState module `{}` has no function `{function}`.\n", f.module, f.module));
    };
    let mut out = format!("```python\n{}\n```\n", fun.signature(&m.name));
    match (&m.custom, &m.saltext) {
        (Some(file), _) => out.push_str(&format!("\nCustom state module `{}`\n", snap.world().rel(file))),
        (None, Some(package)) => {
            let version = Saltexts::builtin().package(package).map(|p| format!(" {}", p.version)).unwrap_or_default();
            out.push_str(&format!("\nSalt extension {package}{version} state function\n"));
        }
        (None, None) => out.push_str(&format!("\nSalt {} state function\n", catalog.release())),
    }
    if let Some(words) = &fun.deprecated {
        out.push_str(&format!("\n**Deprecated**: {words}\n"));
    }
    match doc_of(snap, &m.name, fun) {
        Ok(doc) => out.push_str(&format!("\n---\n\n```rst\n{}\n```\n", doc.trim_end())),
        Err(why) => out.push_str(&format!("\n_{why}_\n")),
    }
    Some(out)
}

/// Where a custom state module's function is defined (`def deployed(` in `_states/*.py`).
pub(crate) fn custom_definition(snap: &Snapshot, f: &StateFunction) -> Option<crate::types::NavTarget> {
    let catalog = catalog(snap);
    let m = catalog.module(&f.module)?;
    let file = m.custom.as_ref()?;
    let fun = m.function(f.function.as_deref()?)?;
    let span = fun.span.clone()?;
    Some(crate::types::NavTarget { path: file.clone(), full_range: span.clone(), focus_range: span, name: format!("{}.{}", m.name, fun.name) })
}

/// The hover of an argument given to a state function: required or its default, and its
/// paragraph of the function's docs.
pub(crate) fn hover_argument(snap: &Snapshot, f: &StateFunction, arg: &str) -> Option<String> {
    let function = f.function.as_deref()?;
    let catalog = catalog(snap);
    let fun = catalog.function(&f.module, function)?;
    let full = format!("{}.{function}", f.module);
    let mut out = format!("**{arg}** — argument of `{full}`\n\n");
    match fun.arg(arg) {
        Some(a) => match &a.default {
            None => out.push_str("Required.\n"),
            Some(d) => out.push_str(&format!("Default: `{d}`\n")),
        },
        None if model::requisites::is_internal_keyword(arg) => {
            out.push_str("A keyword of the state system (requisites, `onlyif`, `order`, ...), not passed to the function.\n");
            return Some(out);
        }
        None if fun.kwargs => out.push_str(&format!("Not in the signature: `{full}` takes it through `**kwargs`.\n")),
        None => out.push_str(&format!("`{full}` takes no such argument: Salt stops the whole run on it.\n")),
    }
    match doc_of(snap, &f.module, fun) {
        Ok(doc) => {
            if let Some(p) = arg_doc(doc, arg) {
                out.push_str(&format!("\n```rst\n{p}\n```\n"));
            }
        }
        Err(why) => out.push_str(&format!("\n_{why}_\n")),
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::arg_doc;

    #[test]
    fn argument_paragraphs_of_a_salt_docstring() {
        let doc = "Ensure the user is present\n\nname\n    The name of the user to manage\n\nuid\n    The user id.\n\n    Note:\n        Not on Windows.\n\nallow_uid_change : False\n    Set to ``True``.\n\n.. code-block:: yaml\n\n    name: x\n";
        assert_eq!(arg_doc(doc, "name").as_deref(), Some("The name of the user to manage"));
        assert_eq!(arg_doc(doc, "uid").as_deref(), Some("The user id.\n\nNote:\n    Not on Windows."));
        assert_eq!(arg_doc(doc, "allow_uid_change").as_deref(), Some("Set to ``True``."));
        assert_eq!(arg_doc(doc, "gid"), None);
    }
}
