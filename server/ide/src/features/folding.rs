//! Folding ranges: the YAML blocks (mapping pairs, sequence items and flow collections that
//! span lines, from the open document's incremental trees), the Jinja blocks (`{% if %}` to
//! `{% endif %}`, and `for`, `macro`, `call`, `block`, `filter`, `with`, `raw`, a block `set`),
//! multi-line `{# ... #}` comments and runs of `#` comment lines. One fold per first line:
//! the largest.

use std::path::Path;

use syntax::jinja::JinjaKind;

use crate::snapshot::Snapshot;
use crate::types::*;

pub(crate) fn folding_ranges(snap: &Snapshot, path: &Path) -> Vec<Fold> {
    if snap.too_large(path) {
        return Vec::new();
    }
    let (Some(text), Some(li)) = (snap.text(path), snap.line_index(path)) else { return Vec::new() };
    let masked = syntax::jinja::mask(&text);
    let mut folds: Vec<Fold> = Vec::new();
    // A node may end with the blank lines (and masked Jinja) after it: fold to its last text.
    let trim = |r: std::ops::Range<usize>| r.start..r.start + masked.text.get(r.clone()).map_or(0, |t| t.trim_end().len());
    for (start, tree) in snap.yaml_trees(path).iter() {
        folds.extend(tree.multiline_nodes().into_iter().map(|r| Fold { range: trim(r.start + start..r.end + start), kind: FoldKind::Region }));
    }
    for (open, end) in masked.block_pairs(&text) {
        let opener = &masked.blocks[open];
        // To the end of the line before the end tag, so `{% endif %}` stays in sight.
        let stop = match end {
            Some(e) => syntax::line_index::line_start(&text, masked.blocks[e].range.start).saturating_sub(1),
            None => text.len(),
        };
        folds.push(Fold { range: opener.range.start..stop.max(opener.range.start), kind: FoldKind::Region });
    }
    for block in masked.blocks.iter().filter(|b| b.kind == JinjaKind::Comment) {
        folds.push(Fold { range: block.range.clone(), kind: FoldKind::Comment });
    }
    // Runs of comment lines (`#` first on the line, outside Jinja).
    let mut run: Option<std::ops::Range<usize>> = None;
    let mut at = 0;
    for line in masked.text.split_inclusive('\n') {
        let content = line.trim_start_matches([' ', '\t']);
        let end = at + line.trim_end_matches(['\n', '\r']).len();
        if content.starts_with('#') {
            let start = run.as_ref().map_or(at, |r| r.start);
            run = Some(start..end);
        } else if !content.trim().is_empty() || line.is_empty() {
            folds.extend(run.take().map(|range| Fold { range, kind: FoldKind::Comment }));
        }
        at += line.len();
    }
    folds.extend(run.map(|range| Fold { range, kind: FoldKind::Comment }));

    // One per first line (the largest), none on a single line; in order.
    let line = |o: usize| li.line_col(o).line;
    folds.retain(|f| line(f.range.start) < line(f.range.end));
    folds.sort_by_key(|f| (line(f.range.start), std::cmp::Reverse(line(f.range.end))));
    folds.dedup_by_key(|f| line(f.range.start));
    folds
}
