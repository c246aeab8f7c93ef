//! Mapstack results as text: the layers as a table, then the values, each leaf annotated
//! with the layer (file and line) that set it and the layers it overrode. Shared by
//! `salt-analyzer mapdata` and the editor's hovers.

use std::path::Path;

use serde_json::Value;

use super::mapdata::MapData;
use super::origin::Origin;
use crate::workspace::vfs::FileTable;

/// `salt-analyzer mapdata`'s text (and the editor's hover on a `map.jinja` import): the layers as a table, then the values, each leaf with its layer.
pub fn text(data: &MapData, files: &FileTable, tpldir: &str, minion: &str, rel: &dyn Fn(&Path) -> String) -> String {
    use std::fmt::Write;
    let mut out = format!("Layers of `{tpldir}` for minion `{minion}` ({} implementation):\n", data.implementation.as_str());
    let rows: Vec<[String; 6]> = data
        .layers
        .iter()
        .enumerate()
        .map(|(i, l)| {
            [
                i.to_string(),
                l.stage.as_str().to_string(),
                l.status.as_str().to_string(),
                l.source.clone(),
                l.path.clone().unwrap_or_else(|| "-".into()),
                match (&l.strategy, l.merge_lists) {
                    (Some(s), Some(m)) => format!("{s}{}", if m { " +merge_lists" } else { "" }),
                    _ => String::new(),
                },
            ]
        })
        .collect();
    let header = ["#", "stage", "status", "source", "path", "merged with"].map(String::from);
    let mut widths = [0usize; 6];
    for row in std::iter::once(&header).chain(&rows) {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    for row in std::iter::once(&header).chain(&rows) {
        let cells: Vec<String> = row.iter().zip(widths).map(|(c, w)| format!("{c:w$}")).collect();
        let _ = writeln!(out, "  {}", cells.join("  ").trim_end());
    }
    match &data.values {
        Err(e) => {
            let what = match data.implementation {
                super::mapdata::Implementation::Saltext => "\nmap.data fails:",
                super::mapdata::Implementation::Jinja | super::mapdata::Implementation::MapJinja => "\nThe map fails to render:",
                super::mapdata::Implementation::NoMap => "",
            };
            let _ = writeln!(out, "{what}");
            let at = e.loc.as_ref().map(|loc| {
                let (line, col) = files.human(loc.file, loc.span.start);
                format!("\n  --> {}:{line}:{col}", rel(files.path(loc.file)))
            });
            let _ = writeln!(out, "{}[{}]: {}{}", e.severity().as_str(), e.code.as_str(), e.message, at.unwrap_or_default());
        }
        Ok(values) => {
            let _ = writeln!(out, "\nValues:");
            let origins = data.origins.as_ref();
            let mut lines = Vec::new();
            value_lines(values, 1, &mut Vec::new(), &mut lines);
            let width = lines.iter().map(|(l, _)| l.chars().count()).max().unwrap_or(0).min(60);
            for (line, path) in lines {
                let note = path
                    .and_then(|p| origins.and_then(|o| o.at_path(&p.iter().map(String::as_str).collect::<Vec<_>>())))
                    .map(|o| format!("# {}", describe(data, files, &o.origin)));
                match note {
                    Some(n) => {
                        let _ = writeln!(out, "{line:width$}  {n}");
                    }
                    None => {
                        let _ = writeln!(out, "{line}");
                    }
                }
            }
        }
    }
    for n in &data.notes {
        let at = n.loc.as_ref().map(|loc| format!(" ({})", rel(files.path(loc.file)))).unwrap_or_default();
        let _ = writeln!(out, "note: {}{at}", n.message);
    }
    out
}

/// Where `o` was set: `#N path:line` of the layer's file (or its source for a lookup), and
/// the layers it overrode.
pub fn describe(data: &MapData, files: &FileTable, o: &Origin) -> String {
    let layer = &data.layers[o.layer];
    let place = match (&layer.path, &o.at) {
        (Some(p), Some(at)) => format!("{p}:{}", files.human(at.file, at.span.start).0),
        (Some(p), None) => p.clone(),
        (None, _) => layer.source.clone(),
    };
    let over =
        if o.overrode.is_empty() { String::new() } else { format!(", over {}", o.overrode.iter().map(|i| format!("#{i}")).collect::<Vec<_>>().join(", ")) };
    format!("#{} {place}{over}", o.layer)
}

/// A value as indented `key: value` lines, each leaf (a value that is not a dict with keys)
/// with its key path.
pub fn value_lines(v: &Value, depth: usize, path: &mut Vec<String>, out: &mut Vec<(String, Option<Vec<String>>)>) {
    let indent = "  ".repeat(depth);
    match v {
        Value::Object(m) if !m.is_empty() => {
            for (k, x) in m {
                path.push(k.clone());
                match x {
                    Value::Object(sub) if !sub.is_empty() => {
                        out.push((format!("{indent}{k}:"), None));
                        value_lines(x, depth + 1, path, out);
                    }
                    _ => out.push((format!("{indent}{k}: {x}"), Some(path.clone()))),
                }
                path.pop();
            }
        }
        other => out.push((format!("{indent}{other}"), Some(path.clone()))),
    }
}
