//! Pillar in the editor, for the selected minion: hover on a `pillar.get('a:b')` (or
//! `salt['pillar.get']`, `pillar['a']['b']`) in a template, on an `I@a:b` target, and on an
//! entry of a pillar top file: the value and where it came from (the pillar file and line, or
//! the ext_pillar entries, and what it overrode), from the pipeline's pillar (`Scope::Pillar`,
//! the same `salt-analyzer pillar --explain` prints). Passwords never reach a hover: only
//! pillar values and file places are shown.

use std::path::Path;

use model::pipeline::{Compiled, Scope};

use crate::snapshot::Snapshot;
use crate::types::HoverResult;

pub(crate) fn hover(snap: &Snapshot, path: &Path, offset: usize) -> Option<HoverResult> {
    let text = snap.text(path)?;
    if let Some((range, keys)) = template_key(&text, offset) {
        let (compiled, minion) = compute(snap)?;
        return Some(HoverResult { range, markdown: value_markdown(snap, &compiled, &minion, &keys) });
    }
    if let Some((range, mut keys)) = target_key(&text, offset) {
        let (compiled, minion) = compute(snap)?;
        // `I@key:value`: the value part is what the matcher compares, not a key.
        if let Ok(m) = &compiled.minion {
            while keys.len() > 1 && keys.iter().try_fold(&m.pillar, |v, k| v.get(k)).is_none() {
                keys.pop();
            }
        }
        return Some(HoverResult { range, markdown: value_markdown(snap, &compiled, &minion, &keys) });
    }
    top_entry(snap, path, &text, offset)
}

/// The pillar of the selected minion, through the one pipeline (pillars cached by what they
/// read, until the refresh command).
fn compute(snap: &Snapshot) -> Option<(Compiled, String)> {
    let compiled = snap.compile(Scope::Pillar);
    let id = compiled.minion.as_ref().ok()?.id.clone();
    Some((compiled, id))
}

fn value_markdown(snap: &Snapshot, compiled: &Compiled, minion: &str, keys: &[String]) -> String {
    let shown = keys.join(":");
    let Ok(m) = &compiled.minion else { return String::new() };
    let Some(value) = keys.iter().try_fold(&m.pillar, |v, k| v.get(k)) else {
        return format!("**pillar** `{shown}` for minion `{minion}`: **not set** (`pillar.get` gives its default)\n");
    };
    let text = serde_json::to_string_pretty(value).unwrap_or_default();
    let lines: Vec<&str> = text.lines().collect();
    let text = if lines.len() > 30 { format!("{}\n...", lines[..30].join("\n")) } else { text };
    let mut out = format!("**pillar** `{shown}` for minion `{minion}`\n\n```json\n{text}\n```\n");
    let literal = m.literal_pillar.as_ref().is_some_and(|l| keys.iter().try_fold(l, |v, k| v.get(k)).is_some());
    if literal {
        out.push_str(&format!("\nSet by the profile's own pillar ({})\n", m.source));
    } else if let Some(p) = &compiled.pillar {
        if let Some(o) = p.origins.at_path(&keys.iter().map(String::as_str).collect::<Vec<_>>()) {
            out.push_str(&format!("\nSet by {}\n", p.describe(&compiled.files, &o.origin, &|f: &Path| snap.world().rel(f))));
        }
    }
    out
}

/// `pillar.get('a:b'`, `salt['pillar.get']("a:b"`, `salt.pillar.get('a:b'` or `pillar['a']['b']`
/// with the cursor in the key: its range and key path.
fn template_key(text: &str, offset: usize) -> Option<(std::ops::Range<usize>, Vec<String>)> {
    let masked = syntax::jinja::mask(text);
    let block = masked.block_at(offset)?;
    let (lo, hi) = (block.range.start, block.range.end);
    // The string literal under the cursor.
    let open = text[lo..offset].rfind(['\'', '"']).map(|i| lo + i)?;
    let quote = text[open..].chars().next()?;
    let close = open + 1 + text[open + 1..hi].find(quote)?;
    if offset > close {
        return None;
    }
    let key = &text[open + 1..close];
    let before = text[lo..open].trim_end();
    if before.ends_with("pillar.get(") || before.ends_with("'pillar.get'](") || before.ends_with("\"pillar.get\"](") {
        return Some((open + 1..close, key.split(':').map(str::to_string).collect()));
    }
    // `pillar['a']['b']`: walk the subscripts back to `pillar`.
    let after_sub = text[close + 1..hi].starts_with(']');
    if before.ends_with('[') && after_sub {
        let mut keys = vec![key.to_string()];
        let mut rest = before[..before.len() - 1].trim_end();
        while let Some(r) = rest.strip_suffix(']') {
            let q = r.chars().last()?;
            let inner = &r[..r.len() - 1];
            let start = inner.rfind(q)?;
            keys.insert(0, inner[start + 1..].to_string());
            rest = inner[..start].trim_end().strip_suffix('[')?.trim_end();
        }
        if rest.ends_with("pillar") && !rest.ends_with("_pillar") {
            return Some((open + 1..close, keys));
        }
    }
    None
}

/// An `I@a:b` (or `I@a:b:value`) target under the cursor: the longest key path the minion's
/// pillar has is shown, so the value part is tried as a key last.
fn target_key(text: &str, offset: usize) -> Option<(std::ops::Range<usize>, Vec<String>)> {
    let line_start = syntax::line_index::line_start(text, offset);
    let stop = |c: char| c.is_whitespace() || c == '\'' || c == '"' || c == '(' || c == ')';
    let start = text[line_start..offset].rfind(stop).map_or(line_start, |i| line_start + i + 1);
    let end = offset + text[offset..].find(stop).unwrap_or(text.len() - offset);
    let token = &text[start..end];
    let query = token.strip_prefix("I@")?;
    Some((start..end, query.split(':').map(str::to_string).collect()))
}

/// An SLS entry of a pillar top file (a top file under the pillar roots).
fn top_entry(snap: &Snapshot, path: &Path, text: &str, offset: usize) -> Option<HoverResult> {
    let world = snap.world();
    let in_pillar_roots = world.ws.opts.pillar_roots.values().flatten().any(|r| path.starts_with(r));
    if !in_pillar_roots || path.file_name().is_none_or(|n| n != "top.sls") {
        return None;
    }
    let line_start = syntax::line_index::line_start(text, offset);
    let line_end = text[offset..].find('\n').map_or(text.len(), |i| offset + i);
    let line = &text[line_start..line_end];
    let sls = line.trim_start().strip_prefix("- ")?.trim().trim_matches(['\'', '"']);
    if sls.is_empty() || sls.contains(':') {
        return None;
    }
    let (compiled, minion) = compute(snap)?;
    let p = compiled.pillar.as_ref()?;
    let range = line_start + (line.len() - line.trim_start().len()) + 2..line_end;
    let layers: Vec<usize> = (0..p.layers.len()).filter(|i| p.layers[*i].sls == sls && p.layers[*i].path.is_some()).collect();
    let mut out = format!("**pillar SLS** `{sls}` for minion `{minion}`\n");
    if layers.is_empty() {
        out.push_str("\nNot rendered for this minion (its target does not match it, or the SLS is missing).\n");
        return Some(HoverResult { range, markdown: out });
    }
    for i in &layers {
        if let Some(f) = &p.layers[*i].path {
            out.push_str(&format!("\nFile: `{}`\n", world.rel(f)));
        }
    }
    let set: Vec<String> = p.origins.leaves().into_iter().filter(|(_, o)| layers.contains(&o.layer)).map(|(keys, _)| format!("`{}`", keys.join(":"))).collect();
    if set.is_empty() {
        out.push_str("\nSets no value that survives in the minion's pillar.\n");
    } else {
        let more = if set.len() > 20 { format!(" and {} more", set.len() - 20) } else { String::new() };
        out.push_str(&format!("\nSets {}{more}\n", set.iter().take(20).cloned().collect::<Vec<_>>().join(", ")));
    }
    Some(HoverResult { range, markdown: out })
}

#[cfg(test)]
mod tests;
