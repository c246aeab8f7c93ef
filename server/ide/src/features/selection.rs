//! Selection ranges: from the cursor outwards, the Jinja token, the inside of its block and
//! the block, the YAML nodes that enclose it (scalar, pair, item, mapping: from the open
//! document's trees), the Jinja blocks (`{% if %}` to `{% endif %}`) around it, and the whole
//! file; each range holds the one before it.

use std::ops::Range;
use std::path::Path;

use crate::snapshot::Snapshot;

/// For each offset, its ranges, innermost first.
pub(crate) fn selection_ranges(snap: &Snapshot, path: &Path, offsets: &[usize]) -> Vec<Vec<Range<usize>>> {
    let Some(text) = snap.text(path) else { return offsets.iter().map(|_| Vec::new()).collect() };
    if snap.too_large(path) {
        return offsets.iter().map(|&o| vec![o..o, 0..text.len()]).collect();
    }
    let masked = syntax::jinja::mask(&text);
    let pairs = masked.block_pairs(&text);
    let trees = snap.yaml_trees(path);
    offsets
        .iter()
        .map(|&offset| {
            let offset = offset.min(text.len());
            let mut candidates: Vec<Range<usize>> = Vec::new();
            candidates.push(0..text.len());
            let inside = |r: &Range<usize>| r.start <= offset && offset <= r.end;
            if let Some(block) = masked.block_at(offset).or_else(|| offset.checked_sub(1).and_then(|o| masked.block_at(o))) {
                let tokens = syntax::jinja_lex::tokens(&text, block);
                candidates.extend(tokens.iter().map(|t| t.range.clone()).filter(inside));
                // The inside: from the first token after the opening delimiter to the last before
                // the closing one.
                if tokens.len() > 2 {
                    candidates.push(tokens[1].range.start..tokens[tokens.len() - 2].range.end);
                }
                candidates.push(block.range.clone());
            }
            // The block holding the offset (at its end: the one before).
            let holder = trees.iter().rev().find(|(start, _)| *start <= offset);
            if let Some((start, tree)) = holder {
                // Without the blank lines (and masked Jinja) a node may end with.
                let trim = |r: Range<usize>| {
                    let kept = masked.text.get(r.clone()).map_or(0, |t| t.trim_end().len());
                    r.start..(r.start + kept).max(offset)
                };
                candidates.extend(tree.enclosing(offset - start).into_iter().map(|r| trim(r.start + start..r.end + start)));
            }
            for (open, end) in &pairs {
                let stop = end.map_or(text.len(), |e| masked.blocks[e].range.end);
                let whole = masked.blocks[*open].range.start..stop;
                if inside(&whole) {
                    candidates.push(whole);
                }
            }
            chain(candidates)
        })
        .collect()
}

/// The candidates that nest, smallest first: each kept range holds the last one kept.
fn chain(mut candidates: Vec<Range<usize>>) -> Vec<Range<usize>> {
    candidates.sort_by_key(|r| (r.end - r.start, r.start));
    let mut out: Vec<Range<usize>> = Vec::new();
    for r in candidates {
        match out.last() {
            Some(last) if !(r.start <= last.start && last.end <= r.end) || *last == r => {}
            _ => out.push(r),
        }
    }
    out
}
