//! An open document split into top-level blocks (one per state declaration, roughly), each
//! an incremental [`syntax::document::Document`], so a keystroke reparses one small block
//! instead of the whole file.
//!
//! A tree-sitter reparse of one 5,000-line YAML tree costs milliseconds (the YAML scanner's
//! state limits subtree reuse), and masking Jinja is linear in the text. In an SLS file each
//! top-level key starts an independent mapping entry, so syntax is checked per block: a new
//! block starts at a line beginning with a plain key at column 0 (`name:`), unless the
//! previous block ends inside an unterminated Jinja block, which then continues. Splitting
//! is decided left to right from the text alone, so an edited document always has the blocks
//! a fresh split of its text has (checked by the tests below). A text over the file size
//! limit (`model::workspace::vfs::MAX_FILE_BYTES`) is kept but not split or parsed.

use std::ops::Range;
use std::sync::Arc;

use model::workspace::vfs::MAX_FILE_BYTES;
use syntax::document::{Document, SyntaxError, YamlTree};

/// One block: where it starts, its document, and its syntax errors (block-relative).
struct Block {
    start: usize,
    doc: Document,
    errors: Vec<SyntaxError>,
    /// The block's tree as snapshots keep it, made again only when the block changes (a
    /// keystroke hands every snapshot all the blocks' trees).
    tree: Arc<YamlTree>,
}

impl Block {
    fn new(start: usize, text: &str) -> Block {
        let doc = Document::new(text);
        let errors = doc.syntax_errors();
        let tree = Arc::new(doc.yaml_tree());
        Block { start, doc, errors, tree }
    }
}

/// The whole text and its blocks.
pub(crate) struct BlockDocument {
    text: String,
    blocks: Vec<Block>,
}

impl BlockDocument {
    pub(crate) fn new(text: &str) -> BlockDocument {
        BlockDocument { text: text.to_string(), blocks: blocks_of(text) }
    }

    pub(crate) fn text(&self) -> &str {
        &self.text
    }

    /// Replaces a byte range (`None`: everything), clamped to the text and rounded down to
    /// character boundaries like [`Document::apply_change`].
    pub(crate) fn apply_change(&mut self, range: Option<Range<usize>>, new_text: &str) {
        let len = self.text.len();
        let range = range.unwrap_or(0..len);
        let start = floor(&self.text, range.start.min(len));
        let end = floor(&self.text, range.end.clamp(range.start.min(len), len)).max(start);
        self.text.replace_range(start..end, new_text);
        if len > MAX_FILE_BYTES || self.text.len() > MAX_FILE_BYTES {
            self.blocks = blocks_of(&self.text);
            return;
        }
        let delta = new_text.len() as isize - (end - start) as isize;
        let new_end = start + new_text.len();

        // The block holding the edit's start, and the one before it (whose boundary line the
        // edit may have merged into it).
        let first = self.blocks.partition_point(|b| b.start <= start).saturating_sub(1);
        let from_idx = first.saturating_sub(1);
        let from = self.blocks.get(from_idx).map_or(0, |b| b.start);
        // Old blocks starting after the edit, in new coordinates.
        let later: Vec<usize> = self.blocks.iter().filter(|b| b.start > end).map(|b| (b.start as isize + delta) as usize).collect();

        // Split again from `from` until a new boundary meets an old one past the edit.
        let mut ranges: Vec<Range<usize>> = Vec::new();
        let mut at = from;
        let mut resume: Option<usize> = None;
        loop {
            let next = next_boundary(&self.text, at);
            ranges.push(at..next);
            if next >= self.text.len() {
                break;
            }
            if next > new_end && later.binary_search(&next).is_ok() {
                resume = Some(next);
                break;
            }
            at = next;
        }
        // The old blocks from `from_idx` up to the one that starts at `resume` are replaced.
        let old_tail = match resume {
            Some(r) => self.blocks.iter().position(|b| b.start > end && (b.start as isize + delta) as usize == r).unwrap_or(self.blocks.len()),
            None => self.blocks.len(),
        };
        let replaced: Vec<Block> = self.blocks.drain(from_idx..old_tail).collect();
        let mut fresh: Vec<Block> = Vec::with_capacity(ranges.len());
        let mut reuse = replaced.into_iter().peekable();
        for r in ranges {
            // Reuse a block whose text did not change (those before the edit keep their
            // offsets; the edited one is changed incrementally when it kept its bounds).
            let mut made = None;
            while let Some(old) = reuse.peek() {
                let old_len = old.doc.rope().len_bytes();
                let old_start = old.start;
                let old_end = old_start + old_len;
                let mapped_end = if old_end >= end { (old_end as isize + delta) as usize } else { old_end };
                if old_start < r.start {
                    reuse.next();
                    continue;
                }
                if old_start == r.start && old_end <= start && old_end == r.end {
                    made = reuse.next();
                } else if old_start == r.start && old_start <= start && old_end >= end && mapped_end == r.end {
                    if let Some(mut b) = reuse.next() {
                        b.doc.apply_change(Some(start - old_start..end - old_start), new_text);
                        b.errors = b.doc.syntax_errors();
                        b.tree = Arc::new(b.doc.yaml_tree());
                        made = Some(b);
                    }
                }
                break;
            }
            fresh.push(made.unwrap_or_else(|| Block::new(r.start, &self.text[r.clone()])));
        }
        let tail_start = from_idx + fresh.len();
        self.blocks.splice(from_idx..from_idx, fresh);
        for b in &mut self.blocks[tail_start..] {
            b.start = (b.start as isize + delta) as usize;
        }
    }

    /// The YAML tree of every block, with the offset where the block starts.
    pub(crate) fn yaml_trees(&self) -> Vec<(usize, Arc<YamlTree>)> {
        self.blocks.iter().map(|b| (b.start, b.tree.clone())).collect()
    }

    /// The syntax errors of every block, in document offsets.
    pub(crate) fn syntax_errors(&self) -> Vec<SyntaxError> {
        let mut out = Vec::new();
        for b in &self.blocks {
            out.extend(b.errors.iter().map(|e| SyntaxError { range: e.range.start + b.start..e.range.end + b.start, message: e.message.clone() }));
        }
        out
    }

    #[cfg(test)]
    fn block_starts(&self) -> Vec<usize> {
        self.blocks.iter().map(|b| b.start).collect()
    }
}

/// The blocks of a whole text; none for a text over the file size limit, which is kept but
/// never parsed (the analysis reports it as too large to read).
fn blocks_of(text: &str) -> Vec<Block> {
    if text.len() > MAX_FILE_BYTES {
        return Vec::new();
    }
    split(text, 0, text.len()).into_iter().map(|r| Block::new(r.start, &text[r])).collect()
}

fn floor(text: &str, mut at: usize) -> usize {
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

/// The blocks of `text[from..to]` (with `from` a block start).
fn split(text: &str, from: usize, to: usize) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut at = from;
    while at < to {
        let next = next_boundary(text, at).min(to);
        out.push(at..next);
        at = next;
    }
    if out.is_empty() {
        out.push(from..from);
    }
    out
}

/// Where the block starting at `from` ends: the start of the next line that begins a
/// top-level key, when the block before it closes every Jinja block it opens; else the end.
fn next_boundary(text: &str, from: usize) -> usize {
    let bytes = text.as_bytes();
    let mut line = match text[from..].find('\n') {
        Some(p) => from + p + 1,
        None => return text.len(),
    };
    while line < bytes.len() {
        if starts_key(&text[line..]) && !ends_in_jinja(&text[from..line]) {
            return line;
        }
        line = match text[line..].find('\n') {
            Some(p) => line + p + 1,
            None => return text.len(),
        };
    }
    text.len()
}

/// Whether a line begins a plain top-level mapping key: a key character at column 0 and a
/// `: ` (or a final `:`) later on the line.
fn starts_key(rest: &str) -> bool {
    let line = rest.split('\n').next().unwrap_or("").trim_end_matches('\r');
    let Some(first) = line.bytes().next() else { return false };
    if b" \t#-{}[],%|>&*!?:@`'\"".contains(&first) {
        return false;
    }
    line.ends_with(':') || line.contains(": ")
}

/// Whether a block ends inside a Jinja block it opened (a statement, expression or comment
/// spanning the boundary), or inside an open `{% raw %}`.
fn ends_in_jinja(block: &str) -> bool {
    if !syntax::jinja::is_templated(block) {
        return false;
    }
    let masked = syntax::jinja::mask(block);
    masked.blocks.last().is_some_and(|b| {
        b.range.end >= block.len() && {
            let body = block[b.range.clone()].trim_end();
            let close = match b.kind {
                syntax::jinja::JinjaKind::Statement => "%}",
                syntax::jinja::JinjaKind::Expression => "}}",
                syntax::jinja::JinjaKind::Comment => "#}",
            };
            !body.ends_with(close) || body.len() < 4
        }
    }) || masked.blocks.iter().any(|b| b.keyword.as_deref() == Some("raw")) && !masked.blocks.iter().any(|b| b.keyword.as_deref() == Some("endraw"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fresh_equal(doc: &BlockDocument) {
        let fresh = BlockDocument::new(doc.text());
        assert_eq!(doc.block_starts(), fresh.block_starts(), "blocks of {:?}", doc.text());
        assert_eq!(doc.syntax_errors(), fresh.syntax_errors(), "errors of {:?}", doc.text());
        for b in &doc.blocks {
            assert_eq!(b.doc.text(), doc.text()[b.start..b.start + b.doc.rope().len_bytes()]);
        }
    }

    #[test]
    fn blocks_follow_top_level_keys_and_jinja() {
        let text = "# head\n{% set x = 1 %}\na:\n  test.nop: []\nb: test.nop\n{% if x %}\nc:\n  - x\n{% endif %}\n{#\nd: 1\n#}\ne: {{ x }}\n";
        let doc = BlockDocument::new(text);
        let starts: Vec<&str> = doc.block_starts().iter().map(|&s| text[s..].lines().next().unwrap_or("")).collect();
        assert_eq!(starts, ["# head", "a:", "b: test.nop", "c:", "e: {{ x }}"]);
    }

    #[test]
    fn edits_keep_the_blocks_of_a_fresh_split() {
        let base = "a:\n  test.nop: []\nb: test.nop\nc:\n  pkg.installed:\n    - name: ß\n";
        let edits: &[(Range<usize>, &str)] = &[
            (0..0, " "),         // `a:` is no longer a key: it joins nothing before it
            (0..1, ""),          // and back
            (17..17, "x"),       // inside `b`'s key
            (16..17, ""),        // delete the newline before `b`
            (15..15, "\n"),      // and put it back
            (3..3, "{# open\n"), // an unterminated comment swallows the rest
            (3..11, ""),
            (0..0, "z: [1,\n"), // a broken block before everything
            (0..7, ""),
            (5..40, ""), // a wide delete across blocks
        ];
        let mut doc = BlockDocument::new(base);
        let mut expected = base.to_string();
        for (r, t) in edits {
            let r = r.start.min(expected.len())..r.end.min(expected.len());
            doc.apply_change(Some(r.clone()), t);
            expected.replace_range(r, t);
            assert_eq!(doc.text(), expected);
            fresh_equal(&doc);
        }
        doc.apply_change(None, "new: text\nother: 1\n");
        fresh_equal(&doc);
    }

    #[test]
    fn random_edits_match_a_fresh_split() {
        // A small seeded generator: inserts and deletes of YAML and Jinja fragments.
        let mut state = 0x1234_5678_9abc_def0_u64;
        let mut next = move |n: usize| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % n.max(1) as u64) as usize
        };
        let pieces = ["a: 1\n", "\n", "  - x\n", "{% if a %}", "{% endif %}", "{#", "#}", "b:", " ", "ℝ", "[", "]", "{{ y }}", "k: v\r\n", "💣: ß\n"];
        let mut doc = BlockDocument::new("start: 1\n");
        let mut text = "start: 1\n".to_string();
        for _ in 0..800 {
            let at = floor(&text, next(text.len() + 1));
            if next(3) == 0 && !text.is_empty() {
                let end = floor(&text, (at + next(12)).min(text.len()));
                doc.apply_change(Some(at..end), "");
                text.replace_range(at..end, "");
            } else {
                let p = pieces[next(pieces.len())];
                doc.apply_change(Some(at..at), p);
                text.insert_str(at, p);
            }
            assert_eq!(doc.text(), text);
            fresh_equal(&doc);
        }
    }
}
