//! Positions: converts between byte offsets (used everywhere inside) and (line, column) pairs with UTF-8, UTF-16 or character columns (used at the edges).
//!
//! Every line and column the project shows goes through here, in one of two
//! conventions: people read [`LineIndex::human`] (1-based line, 1-based column
//! counted in characters, printed `path:LINE:COL`), and JSON and the language
//! server carry [`WideLineCol`] (0-based line, 0-based column in a
//! [`PositionEncoding`]: UTF-16 in JSON, as LSP counts by default).
//!
//! Lines end at `\n`. A `\r\n` pair is one line break: the `\r` belongs to the
//! break, not to the line's content, so columns clamp before it. A lone `\r`
//! is ordinary content. Offsets inside a multi-byte character (or between the
//! `\r` and `\n` of a break) round down to its start.

use std::ops::Range;

/// How the column of a [`WideLineCol`] is counted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PositionEncoding {
    /// Columns count UTF-8 bytes.
    Utf8,
    /// Columns count UTF-16 code units (the LSP default).
    Utf16,
    /// Columns count Unicode scalar values, that is characters: what people
    /// see in an editor, and LSP's `utf-32`.
    Utf32,
}

impl PositionEncoding {
    /// How many units of this encoding a non-ASCII character takes.
    fn units(self, w: &WideChar) -> usize {
        match self {
            PositionEncoding::Utf8 => w.len8,
            PositionEncoding::Utf16 => w.len16,
            PositionEncoding::Utf32 => 1,
        }
    }
}

/// A zero-based line and a zero-based column counted in UTF-8 bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct LineCol {
    pub line: u32,
    /// Column in UTF-8 bytes from the start of the line.
    pub col: u32,
}

/// A zero-based line and a zero-based column in some [`PositionEncoding`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct WideLineCol {
    pub line: u32,
    /// Column in the units of the encoding it was made for.
    pub col: u32,
}

/// The line structure of one text, built once in O(n) and queried in O(log n)
/// (plus the number of non-ASCII characters on the line being converted).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LineIndex {
    len: usize,
    /// One entry per line, in order.
    lines: Vec<Line>,
}

impl LineIndex {
    /// Indexes `text`.
    pub fn new(text: &str) -> LineIndex {
        let mut lines = Vec::new();
        let mut start = 0;
        let mut wide = Vec::new();
        for (offset, ch) in text.char_indices() {
            if ch == '\n' {
                let has_cr = offset > start && text.as_bytes().get(offset - 1) == Some(&b'\r');
                let content_end = if has_cr { offset - 1 } else { offset };
                lines.push(Line { start, content_end, wide: std::mem::take(&mut wide) });
                start = offset + 1;
            } else if !ch.is_ascii() {
                wide.push(WideChar { col: offset - start, len8: ch.len_utf8(), len16: ch.len_utf16() });
            }
        }
        lines.push(Line { start, content_end: text.len(), wide });
        LineIndex { len: text.len(), lines }
    }

    /// The length of the indexed text in bytes.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the indexed text is empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The number of lines; a text ending in a line break has an empty last line.
    pub fn line_count(&self) -> usize {
        self.lines.len()
    }

    /// The line and byte column of `offset`. Offsets past the end clamp to the
    /// end; offsets inside a character or a `\r\n` break round down.
    pub fn line_col(&self, offset: usize) -> LineCol {
        let offset = offset.min(self.len);
        // The line is the last one starting at or before `offset`.
        let idx = self.lines.partition_point(|l| l.start <= offset).saturating_sub(1);
        let Some(line) = self.lines.get(idx) else {
            return LineCol { line: 0, col: 0 };
        };
        let col = line.floor_col(offset - line.start);
        LineCol { line: to_u32(idx), col: to_u32(col) }
    }

    /// The byte offset of a byte-column position. A column past the line's
    /// content clamps to its end; a column inside a character rounds down.
    /// `None` when the line does not exist.
    pub fn offset(&self, pos: LineCol) -> Option<usize> {
        let line = self.lines.get(usize::try_from(pos.line).ok()?)?;
        let col = usize::try_from(pos.col).unwrap_or(usize::MAX);
        Some(line.start + line.floor_col(col))
    }

    /// Converts a byte-column position to a column in `enc`. A column past the
    /// line's content clamps to its end; a line that does not exist is returned
    /// unchanged, since there is nothing to count.
    pub fn to_wide(&self, enc: PositionEncoding, pos: LineCol) -> WideLineCol {
        let Some(line) = usize::try_from(pos.line).ok().and_then(|l| self.lines.get(l)) else {
            return WideLineCol { line: pos.line, col: pos.col };
        };
        let col = line.floor_col(usize::try_from(pos.col).unwrap_or(usize::MAX));
        // Every character before the column takes its UTF-8 length in bytes and its
        // `enc` length in units; only the non-ASCII ones differ.
        let extra: usize = line.wide.iter().take_while(|w| w.col < col).map(|w| w.len8 - enc.units(w)).sum();
        WideLineCol { line: pos.line, col: to_u32(col - extra) }
    }

    /// Converts a column in `enc` back to a byte column position.
    pub fn to_utf8(&self, enc: PositionEncoding, pos: WideLineCol) -> Option<LineCol> {
        let line = self.lines.get(usize::try_from(pos.line).ok()?)?;
        let target = usize::try_from(pos.col).unwrap_or(usize::MAX);
        let col = match enc {
            PositionEncoding::Utf8 => line.floor_col(target),
            PositionEncoding::Utf16 | PositionEncoding::Utf32 => line.col_of_units(enc, target),
        };
        Some(LineCol { line: pos.line, col: to_u32(col) })
    }

    /// The byte offset of a position whose column is counted in `enc`. A column
    /// past the line's content clamps to its end; a column inside a character
    /// (such as the middle of a UTF-16 surrogate pair) rounds down to its start.
    /// `None` when the line does not exist.
    pub fn offset_of_wide(&self, enc: PositionEncoding, pos: WideLineCol) -> Option<usize> {
        self.offset(self.to_utf8(enc, pos)?)
    }

    /// The 1-based line and 1-based column, counted in characters, of `offset`:
    /// the position people read, `path:LINE:COL`.
    pub fn human(&self, offset: usize) -> (usize, usize) {
        let w = self.wide_line_col(PositionEncoding::Utf32, offset);
        (w.line as usize + 1, w.col as usize + 1)
    }

    /// The position of `offset` with its column counted in `enc`.
    pub fn wide_line_col(&self, enc: PositionEncoding, offset: usize) -> WideLineCol {
        self.to_wide(enc, self.line_col(offset))
    }

    /// The byte range of a line's content, without its `\n` or `\r\n` break.
    pub fn line_range(&self, line: u32) -> Option<Range<usize>> {
        let line = self.lines.get(usize::try_from(line).ok()?)?;
        Some(line.start..line.content_end)
    }
}

/// One line: where it starts, where its content ends, and its non-ASCII characters.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Line {
    start: usize,
    /// The offset just before the line break (`\n`, or `\r` of `\r\n`), or the end of the text.
    content_end: usize,
    /// Non-ASCII characters in order; empty for pure-ASCII lines, which are the common case.
    wide: Vec<WideChar>,
}

/// A non-ASCII character, located by its byte column within its line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct WideChar {
    col: usize,
    len8: usize,
    len16: usize,
}

impl Line {
    fn content_len(&self) -> usize {
        self.content_end - self.start
    }

    /// Clamps a byte column to the line's content and rounds it down to a character start.
    fn floor_col(&self, col: usize) -> usize {
        let col = col.min(self.content_len());
        let idx = self.wide.partition_point(|w| w.col <= col);
        match idx.checked_sub(1).and_then(|i| self.wide.get(i)) {
            Some(w) if col < w.col + w.len8 => w.col,
            _ => col,
        }
    }

    /// The byte column of a column counted in `enc`, clamped and rounded down to a character start.
    fn col_of_units(&self, enc: PositionEncoding, target: usize) -> usize {
        // `extra` is how many more bytes than `enc` units the characters before `w` take.
        let mut extra = 0usize;
        for w in &self.wide {
            let units_at = w.col - extra;
            if target < units_at {
                break;
            }
            if target < units_at + enc.units(w) {
                return w.col;
            }
            extra += w.len8 - enc.units(w);
        }
        target.saturating_add(extra).min(self.content_len())
    }
}

/// Where `offset` is for a person reading the file: the 1-based line and the 1-based column
/// counted in characters, as the command line prints `path:LINE:COL`. One-shot, for cold
/// paths: it indexes the whole text and keeps nothing, so code converting many positions of one
/// text should keep a [`LineIndex`] instead.
pub fn human_position(text: &str, offset: usize) -> (usize, usize) {
    LineIndex::new(text).human(offset)
}

/// The 1-based line of `offset`, as Salt's messages (`; line N`) count lines: the line of
/// [`human_position`].
pub fn line_number(text: &str, offset: usize) -> usize {
    human_position(text, offset).0
}

/// Where the line holding `offset` starts: the byte just after the `\n` before `offset`, or 0.
pub fn line_start(text: &str, offset: usize) -> usize {
    text[..offset].rfind('\n').map_or(0, |i| i + 1)
}

/// The row and byte column of `offset` as tree-sitter counts them: rows count `\n` only (a
/// `\r` before it is part of the row) and columns count bytes from the row's start.
pub fn byte_point(text: &str, offset: usize) -> (usize, usize) {
    let before = &text.as_bytes()[..offset.min(text.len())];
    let row = before.iter().filter(|&&b| b == b'\n').count();
    let start = before.iter().rposition(|&b| b == b'\n').map_or(0, |p| p + 1);
    (row, before.len() - start)
}

/// Converts a count to `u32`, saturating for texts over 4 GiB rather than wrapping.
fn to_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;
    use expect_test::expect;
    use PositionEncoding::{Utf16, Utf32, Utf8};

    const LINE: &str = "_A_ß_ℝ_💣_";

    fn lc(line: u32, col: u32) -> LineCol {
        LineCol { line, col }
    }

    fn wlc(line: u32, col: u32) -> WideLineCol {
        WideLineCol { line, col }
    }

    #[test]
    fn human_positions_count_characters() {
        let text = "a: 1\r\n_ß_ℝ_💣_x: 2\nlast";
        let x = text.find("x:").unwrap();
        assert_eq!(human_position(text, x), (2, 8));
        assert_eq!(human_position(text, 0), (1, 1));
        assert_eq!(human_position(text, text.len()), (3, 5));
        // Inside a character: its start.
        let bomb = text.find('💣').unwrap();
        assert_eq!(human_position(text, bomb + 2), (2, 6));
        assert_eq!(line_number(text, x), 2);
        assert_eq!(line_number(text, bomb + 1), 2);
        assert_eq!(line_number(text, text.len() + 3), 3);
        // The one-shot and a kept index agree everywhere, past the end included.
        let index = LineIndex::new(text);
        for offset in 0..=text.len() + 2 {
            assert_eq!(human_position(text, offset), index.human(offset), "offset {offset}");
        }
        // The `\r` of a break is not a column: the `\n` rounds down to it.
        assert_eq!(human_position(text, 5), (1, 5));
        // tree-sitter: bytes, `\r` part of the row.
        assert_eq!(byte_point(text, x), (1, 13));
        assert_eq!(byte_point(text, 4), (0, 4));
    }

    #[test]
    fn every_offset_of_the_non_ascii_line() {
        let text = format!("{LINE}\n{LINE}\r\n{LINE}");
        let index = LineIndex::new(&text);
        assert_eq!(index.len(), text.len());
        assert_eq!(index.line_count(), 3);
        let mut table = String::new();
        for offset in 0..=LINE.len() + 1 {
            let pos = index.line_col(offset);
            let w16 = index.to_wide(Utf16, pos);
            let w8 = index.to_wide(Utf8, pos);
            let w32 = index.to_wide(Utf32, pos);
            let (hl, hc) = index.human(offset);
            table.push_str(&format!("{offset:2} -> {}:{} utf16 {} utf8 {} utf32 {} human {hl}:{hc}\n", pos.line, pos.col, w16.col, w8.col, w32.col));
        }
        expect![[r#"
             0 -> 0:0 utf16 0 utf8 0 utf32 0 human 1:1
             1 -> 0:1 utf16 1 utf8 1 utf32 1 human 1:2
             2 -> 0:2 utf16 2 utf8 2 utf32 2 human 1:3
             3 -> 0:3 utf16 3 utf8 3 utf32 3 human 1:4
             4 -> 0:3 utf16 3 utf8 3 utf32 3 human 1:4
             5 -> 0:5 utf16 4 utf8 5 utf32 4 human 1:5
             6 -> 0:6 utf16 5 utf8 6 utf32 5 human 1:6
             7 -> 0:6 utf16 5 utf8 6 utf32 5 human 1:6
             8 -> 0:6 utf16 5 utf8 6 utf32 5 human 1:6
             9 -> 0:9 utf16 6 utf8 9 utf32 6 human 1:7
            10 -> 0:10 utf16 7 utf8 10 utf32 7 human 1:8
            11 -> 0:10 utf16 7 utf8 10 utf32 7 human 1:8
            12 -> 0:10 utf16 7 utf8 10 utf32 7 human 1:8
            13 -> 0:10 utf16 7 utf8 10 utf32 7 human 1:8
            14 -> 0:14 utf16 9 utf8 14 utf32 8 human 1:9
            15 -> 0:15 utf16 10 utf8 15 utf32 9 human 1:10
            16 -> 1:0 utf16 0 utf8 0 utf32 0 human 2:1
        "#]]
        .assert_eq(&table);

        // The same columns on every line, whatever the line break.
        for line in 0..3u32 {
            let start = index.line_range(line).map_or(usize::MAX, |r| r.start);
            assert_eq!(index.line_range(line), Some(start..start + LINE.len()));
            assert_eq!(index.line_col(start + 10), lc(line, 10));
            assert_eq!(index.to_wide(Utf16, lc(line, 14)), wlc(line, 9));
            assert_eq!(index.offset_of_wide(Utf16, wlc(line, 9)), Some(start + 14));
            assert_eq!(index.offset_of_wide(Utf16, wlc(line, 7)), Some(start + 10));
            // Column 8 is the middle of the surrogate pair of 💣: round down to its start.
            assert_eq!(index.offset_of_wide(Utf16, wlc(line, 8)), Some(start + 10));
            assert_eq!(index.offset_of_wide(Utf8, wlc(line, 12)), Some(start + 10));
            assert_eq!(index.offset_of_wide(Utf32, wlc(line, 7)), Some(start + 10));
            assert_eq!(index.offset_of_wide(Utf32, wlc(line, 8)), Some(start + 14));
            assert_eq!(index.offset_of_wide(Utf32, wlc(line, 10)), Some(start + 15));
            assert_eq!(index.human(start + 14), (line as usize + 1, 9));
            // Past the end of the line: clamp to the content end, before `\r\n`.
            assert_eq!(index.offset_of_wide(Utf16, wlc(line, 11)), Some(start + 15));
            assert_eq!(index.offset_of_wide(Utf16, wlc(line, u32::MAX)), Some(start + 15));
            assert_eq!(index.offset_of_wide(Utf8, wlc(line, 16)), Some(start + 15));
            assert_eq!(index.offset(lc(line, 100)), Some(start + 15));
            assert_eq!(index.to_wide(Utf16, lc(line, 100)), wlc(line, 10));
        }
        assert_eq!(index.offset_of_wide(Utf16, wlc(3, 0)), None);
        assert_eq!(index.offset(lc(u32::MAX, 0)), None);
        assert_eq!(index.line_range(3), None);
    }

    #[test]
    fn round_trips_on_every_char_boundary() {
        let text = format!("{LINE}\r\n\n{LINE}\n\r\r\n{LINE}");
        let index = LineIndex::new(&text);
        for (offset, _) in text.char_indices().chain([(text.len(), ' ')]) {
            let pos = index.line_col(offset);
            let is_lf_of_crlf = offset > 0 && text.as_bytes().get(offset) == Some(&b'\n') && text.as_bytes().get(offset - 1) == Some(&b'\r');
            let expected = if is_lf_of_crlf { offset - 1 } else { offset };
            assert_eq!(index.offset(pos), Some(expected), "offset {offset}");
            for enc in [Utf8, Utf16, Utf32] {
                let wide = index.to_wide(enc, pos);
                assert_eq!(index.offset_of_wide(enc, wide), Some(expected), "{enc:?} {offset}");
            }
        }
    }

    #[test]
    fn crlf_breaks() {
        let text = "a\r\nbc\r\n\r\nd";
        let index = LineIndex::new(text);
        assert_eq!(index.line_count(), 4);
        assert_eq!(index.line_range(0), Some(0..1));
        assert_eq!(index.line_range(1), Some(3..5));
        assert_eq!(index.line_range(2), Some(7..7));
        assert_eq!(index.line_range(3), Some(9..10));
        // The `\r` is the end of line 0's content, and the `\n` rounds down to it.
        assert_eq!(index.line_col(1), lc(0, 1));
        assert_eq!(index.line_col(2), lc(0, 1));
        assert_eq!(index.line_col(3), lc(1, 0));
        assert_eq!(index.offset(lc(0, 2)), Some(1));
        assert_eq!(index.offset_of_wide(Utf16, wlc(2, 5)), Some(7));
        // A lone `\r` is ordinary content.
        let index = LineIndex::new("a\rb\n");
        assert_eq!(index.line_count(), 2);
        assert_eq!(index.line_range(0), Some(0..3));
        assert_eq!(index.line_col(2), lc(0, 2));
    }

    #[test]
    fn empty_text_and_end_of_text() {
        let index = LineIndex::new("");
        assert!(index.is_empty());
        assert_eq!(index.line_count(), 1);
        assert_eq!(index.line_col(0), lc(0, 0));
        assert_eq!(index.line_col(usize::MAX), lc(0, 0));
        assert_eq!(index.offset(lc(0, 0)), Some(0));
        assert_eq!(index.offset(lc(0, 7)), Some(0));
        assert_eq!(index.offset(lc(1, 0)), None);
        assert_eq!(index.offset_of_wide(Utf16, wlc(0, 3)), Some(0));
        assert_eq!(index.line_range(0), Some(0..0));

        let text = "ab\nß";
        let index = LineIndex::new(text);
        assert_eq!(index.line_col(text.len()), lc(1, 2));
        assert_eq!(index.line_col(text.len() + 5), lc(1, 2));
        assert_eq!(index.wide_line_col(Utf16, text.len()), wlc(1, 1));
        assert_eq!(index.offset_of_wide(Utf16, wlc(1, 1)), Some(text.len()));

        let text = "ab\n";
        let index = LineIndex::new(text);
        assert_eq!(index.line_count(), 2);
        assert_eq!(index.line_col(3), lc(1, 0));
        assert_eq!(index.offset(lc(1, 0)), Some(3));
    }
}
