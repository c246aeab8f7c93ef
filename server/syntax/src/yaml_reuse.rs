//! Loading a large SLS file by its top-level blocks, reusing the parse of every block whose
//! text did not change since an earlier load: a keystroke re-parses one block, not the file.
//!
//! A block is a top-level mapping entry: from a line that starts in column 0 (not a comment)
//! to the next such line. The result must equal [`yaml::load`]'s on the whole text, so the
//! fast path is taken only when splitting cannot change the meaning, and anything unusual
//! falls back to the whole-text load: a document marker or directive, a tab in column 0, a
//! byte-order mark, a block that fails to load alone (an alias to an anchor of another block,
//! a flow collection or quoted scalar continued in column 0, a syntax error), a block that is
//! not a one-key mapping, and a key repeated across blocks (the whole-text load words that
//! error).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use crate::yaml::{self, canonical_key, Node, Value, YamlError};

/// Files smaller than this are loaded whole: they parse in well under a millisecond.
const MIN_LEN: usize = 8 * 1024;
/// The cache is emptied when the blocks it holds exceed this many bytes of text.
const MAX_CACHED_BYTES: usize = 64 * 1024 * 1024;

/// The cache's hasher: its keys are block texts, hashed on every keystroke.
type Fast = foldhash::fast::RandomState;

#[derive(Default)]
struct Cache {
    /// Block text -> its load, spans relative to the block's start.
    blocks: HashMap<Arc<str>, Arc<Node>, Fast>,
    bytes: usize,
}

static CACHE: Mutex<Option<Cache>> = Mutex::new(None);

/// A load that may share its parts with the block cache.
#[derive(Debug)]
pub enum Loaded {
    /// The whole text's node.
    Whole(Node),
    /// A top-level mapping made of cached blocks: each is a one-pair mapping whose spans are
    /// relative to the block, paired with the block's offset in the text. Consumers that copy
    /// the tree anyway (into their own values) add the offset as they go, instead of this
    /// module copying it once more to shift it.
    Blocks { blocks: Vec<(Arc<Node>, usize)>, span: std::ops::Range<usize> },
}

impl Loaded {
    /// The node [`yaml::load`] gives for the same text.
    pub fn to_node(&self) -> Node {
        match self {
            Loaded::Whole(node) => node.clone(),
            Loaded::Blocks { span, .. } => {
                Node { value: Value::Map(self.block_pairs().map(|(k, v, at)| (shifted(k, at), shifted(v, at))).collect()), span: span.clone() }
            }
        }
    }

    /// The top-level pairs of a block load, each with its block's offset (none for a whole load).
    pub fn block_pairs(&self) -> impl Iterator<Item = (&Node, &Node, usize)> {
        let blocks = match self {
            Loaded::Blocks { blocks, .. } => &blocks[..],
            Loaded::Whole(_) => &[],
        };
        blocks.iter().filter_map(|(node, at)| match &node.value {
            Value::Map(pairs) => pairs.first().map(|(k, v)| (k, v, *at)),
            _ => None,
        })
    }
}

/// [`yaml::load`], reusing the parse of unchanged top-level blocks of large files.
pub fn load(text: &str) -> Result<Node, YamlError> {
    match load_shared(text)? {
        Loaded::Whole(node) => Ok(node),
        blocks => Ok(blocks.to_node()),
    }
}

/// [`load`] without the final copy: the blocks as the cache holds them.
pub fn load_shared(text: &str) -> Result<Loaded, YamlError> {
    if text.len() < MIN_LEN {
        return yaml::load(text).map(Loaded::Whole);
    }
    match load_blocks(text) {
        Some(loaded) => Ok(loaded),
        None => yaml::load(text).map(Loaded::Whole),
    }
}

/// The byte offsets of the lines that start a top-level entry (a line whose first byte is
/// not a space, a comment or a line break), or `None` when splitting the text there could
/// change its meaning (see the module docs).
pub fn key_line_starts(text: &str) -> Option<Vec<usize>> {
    if text.starts_with('\u{feff}') {
        return None;
    }
    let mut starts = Vec::new();
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        match line_kind(line) {
            LineKind::Inside => {}
            LineKind::Key => starts.push(offset),
            LineKind::Unsplittable => return None,
        }
        offset += line.len();
    }
    Some(starts)
}

/// What a line (from its start) means to block splitting.
#[derive(Debug, PartialEq, Eq)]
pub enum LineKind {
    /// Indented, blank or a comment: part of the block above.
    Inside,
    /// Starts a top-level entry.
    Key,
    /// An anchor, tag, alias, flow or block indicator, a tab or a document marker in column 0:
    /// something splitting would change.
    Unsplittable,
}

/// How block splitting reads a line that starts at its first byte.
pub fn line_kind(line: &str) -> LineKind {
    match line.as_bytes().first().copied().unwrap_or(b'\n') {
        b' ' | b'\n' | b'\r' | b'#' => LineKind::Inside,
        // Only a plain or quoted key may start a block.
        b'\t' | b'%' | b'&' | b'*' | b'!' | b'?' | b':' | b'-' | b'[' | b']' | b'{' | b'}' | b'|' | b'>' | b'@' | b'`' | b',' => LineKind::Unsplittable,
        _ if line.starts_with("---") || line.starts_with("...") => LineKind::Unsplittable,
        _ => LineKind::Key,
    }
}

/// The byte offsets where top-level blocks start, or `None` when the text must be loaded whole.
fn block_starts(text: &str) -> Option<Vec<usize>> {
    let mut starts = key_line_starts(text)?;
    if starts.len() < 2 {
        return None;
    }
    // What precedes the first key (blank and comment lines) belongs to the first block.
    starts[0] = 0;
    Some(starts)
}

fn load_blocks(text: &str) -> Option<Loaded> {
    let starts = block_starts(text)?;
    let ranges: Vec<(usize, usize)> = starts.iter().enumerate().map(|(i, &s)| (s, starts.get(i + 1).copied().unwrap_or(text.len()))).collect();
    // Hits under one lock; misses parsed outside it, then stored.
    let mut parsed: Vec<Option<Arc<Node>>> = {
        let guard = CACHE.lock().ok()?;
        match guard.as_ref() {
            Some(cache) => ranges.iter().map(|&(s, e)| cache.blocks.get(&text[s..e]).cloned()).collect(),
            None => vec![None; ranges.len()],
        }
    };
    let mut fresh: Vec<(Arc<str>, Arc<Node>)> = Vec::new();
    for (slot, &(s, e)) in parsed.iter_mut().zip(&ranges) {
        if slot.is_some() {
            continue;
        }
        let block = &text[s..e];
        #[cfg(test)]
        tests::PARSED.with(|p| p.set(p.get() + 1));
        let node = Arc::new(yaml::load(block).ok()?);
        match &node.value {
            Value::Map(pairs) if pairs.len() == 1 => {}
            _ => return None,
        }
        fresh.push((Arc::from(block), node.clone()));
        *slot = Some(node);
    }
    if !fresh.is_empty() {
        if let Ok(mut guard) = CACHE.lock() {
            let cache = guard.get_or_insert_with(Cache::default);
            for (block, node) in fresh {
                cache.bytes += block.len();
                cache.blocks.insert(block, node);
            }
            if cache.bytes > MAX_CACHED_BYTES {
                *cache = Cache::default();
                #[cfg(test)]
                tests::CLEARED.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            }
        }
    }
    // Keys seen so far: string keys borrowed, others by their canonical form (a string never
    // equals a number or null in Python).
    let mut seen: std::collections::HashSet<&str, Fast> = std::collections::HashSet::with_capacity_and_hasher(ranges.len(), Fast::default());
    let mut seen_other: std::collections::HashSet<String> = std::collections::HashSet::new();
    let mut blocks = Vec::with_capacity(ranges.len());
    let mut span = 0..0;
    for (i, (node, &(s, _))) in parsed.iter().zip(&ranges).enumerate() {
        let node = node.as_ref()?;
        let Value::Map(block_pairs) = &node.value else { return None };
        let (k, _) = &block_pairs[0];
        // The key is the block's column-0 token (past the leading comments of the first).
        let key_line = if i == 0 { text[..k.span.start.min(text.len())].rfind('\n').map_or(0, |n| n + 1) } else { 0 };
        if (i > 0 && k.span.start != 0) || (i == 0 && key_line != k.span.start) || node.span.start != k.span.start {
            return None;
        }
        let fresh = match &k.value {
            Value::Str(key) => seen.insert(key.as_str()),
            other => seen_other.insert(canonical_key(other)),
        };
        if !fresh {
            return None;
        }
        if i == 0 {
            span.start = node.span.start + s;
        }
        span.end = node.span.end + s;
        blocks.push((node.clone(), s));
    }
    Some(Loaded::Blocks { blocks, span })
}

/// A copy of `node` with every span moved `by` bytes on.
fn shifted(node: &Node, by: usize) -> Node {
    let value = match &node.value {
        Value::Seq(items) => Value::Seq(items.iter().map(|n| shifted(n, by)).collect()),
        Value::Map(pairs) => Value::Map(pairs.iter().map(|(k, v)| (shifted(k, by), shifted(v, by))).collect()),
        other => other.clone(),
    };
    Node { value, span: node.span.start + by..node.span.end + by }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// A large file made of `blocks`, padded past [`MIN_LEN`] with plain states.
    fn big(blocks: &[String]) -> String {
        let mut text: String = blocks.concat();
        let mut i = 0;
        while text.len() < MIN_LEN + 100 {
            text.push_str(&format!("pad_{i}:\n  pkg.installed:\n    - name: pad-{i}\n    - require:\n      - pkg: pad_{}\n", i.max(1) - 1));
            i += 1;
        }
        text
    }

    fn same_as_whole(text: &str) {
        assert_eq!(load(text), yaml::load(text), "for text:\n{text}");
    }

    #[test]
    fn equal_to_the_whole_text_load() {
        let cases: &[&[&str]] = &[
            &["# leading comment\n\nfirst:\n  cmd.run: [{name: 'echo ß'}]\n"],
            &["a: 1\n", "a: 2\n"],
            &["anchored: &x {k: v}\n", "user: *x\n"],
            &["list: [1,\n2]\n"],
            &["quoted: \"multi\nline\"\n"],
            &["- not a mapping\n"],
            &["'quoted id':\n  test.nop: []\n", "\"other\":\n  test.nop: []\n"],
            &["bad: [unclosed\n"],
            &["tabbed:\n\t- x\n"],
            &["---\n"],
            &["merge:\n  <<: {a: 1}\n  b: 2\n"],
            &["1: int key\n", "1.0: same key\n"],
            &["empty:\n"],
            &["crlf:\r\n  test.nop: []\r\n", "next:\r\n  test.nop: []\r\n"],
            &["💣 id:\n  file.managed:\n    - contents: |\n        ℝ text\n"],
        ];
        for blocks in cases {
            let text = big(&blocks.iter().map(|s| s.to_string()).collect::<Vec<_>>());
            same_as_whole(&text);
            // Again, now from the cache.
            same_as_whole(&text);
        }
    }

    // Blocks this thread parsed (the cache is shared by the tests' threads; the count is not).
    thread_local! { pub(super) static PARSED: std::cell::Cell<usize> = const { std::cell::Cell::new(0) }; }
    /// How many times the cache was emptied for holding too much.
    pub(super) static CLEARED: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

    fn parsed() -> usize {
        PARSED.with(|p| p.get())
    }

    #[test]
    fn an_edit_reparses_only_its_block() {
        let text = big(&[]);
        let blocks = text.matches("pad_").count() / 2;
        // Another test's thread may empty the shared cache in between: then try again.
        for _ in 0..5 {
            let cleared = CLEARED.load(std::sync::atomic::Ordering::Relaxed);
            same_as_whole(&text);
            let before = parsed();
            let edited = text.replacen("pad-3\n", "pad-3xy\n", 1);
            same_as_whole(&edited);
            let edit = parsed() - before;
            let back = edited.replacen("pad-3xy\n", "pad-3\n", 1);
            same_as_whole(&back);
            let undo = parsed() - before - edit;
            if CLEARED.load(std::sync::atomic::Ordering::Relaxed) != cleared {
                continue;
            }
            // The edited block alone is parsed; undoing it parses nothing; the file has many.
            assert!(blocks > 50, "{blocks}");
            assert_eq!((edit, undo), (1, 0));
            return;
        }
        panic!("the block cache was emptied during every try");
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(400))]
        /// Random edits of a large file: the block load always equals the whole load.
        #[test]
        fn random_edits_load_like_the_whole_text(edits in proptest::collection::vec((0usize..20_000, 0usize..4, "[a-z :\\-\\[\\]{}'\"#&*\n ]{0,6}"), 1..8)) {
            let mut text = big(&[]);
            for (at, del, ins) in edits {
                let mut at = at % (text.len() + 1);
                while !text.is_char_boundary(at) { at -= 1; }
                let mut end = (at + del).min(text.len());
                while !text.is_char_boundary(end) { end -= 1; }
                text.replace_range(at..end, &ins);
                let (ours, whole) = (load(&text), yaml::load(&text));
                if ours != whole {
                    let at = whole.as_ref().err().map_or(0, |e| e.offset);
                    let mut from = at.saturating_sub(120);
                    while !text.is_char_boundary(from) { from -= 1; }
                    let mut to = (at + 120).min(text.len());
                    while !text.is_char_boundary(to) { to -= 1; }
                    prop_assert!(false, "whole: {:?}\nours ok: {}\naround: {:?}", whole.as_ref().err(), ours.is_ok(), &text[from..to]);
                }
            }
        }
    }
}
