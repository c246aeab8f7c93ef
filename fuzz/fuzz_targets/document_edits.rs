//! The editor's document model under random edit sequences: after every edit its text equals
//! a reference rope's (no lost edit), and at the end its incremental syntax errors equal those
//! of a fresh parse of the same text.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ropey::Rope;

const SNIPPETS: &[&str] = &[
    "a",
    "ß",
    "💣",
    " ",
    "\n",
    "\r\n",
    ": ",
    "- ",
    "{{ x }}",
    "{% if a %}",
    "{% endif %}",
    "[",
    "]",
    "{",
    "}",
    "'",
    "\"",
    "#",
    "\t",
    "id:\n  test.nop: []\n",
    "&a",
    "*a",
];

fn floor(r: &Rope, byte: usize) -> usize {
    let byte = byte.min(r.len_bytes());
    r.char_to_byte(r.byte_to_char(byte))
}

fuzz_target!(|data: &[u8]| {
    let (start, edits) = data.split_at(data.len().min(1));
    let initial = SNIPPETS.iter().cycle().skip(start.first().copied().unwrap_or(0) as usize).take(12).copied().collect::<String>();
    let mut doc = syntax::document::Document::new(&initial);
    let mut reference = Rope::from_str(&initial);
    for e in edits.chunks_exact(4) {
        let len = reference.len_bytes();
        let a = floor(&reference, (e[0] as usize * len) / 255);
        let b = floor(&reference, (e[1] as usize * len) / 255).max(a);
        let text: String = (0..(e[3] % 4)).map(|i| SNIPPETS[(e[2] as usize + i as usize) % SNIPPETS.len()]).collect();
        let range = if e[3] >= 252 { None } else { Some(a..b) };
        doc.apply_change(range.clone(), &text);
        let (a, b) = match range {
            Some(r) => (reference.byte_to_char(r.start), reference.byte_to_char(r.end)),
            None => (0, reference.len_chars()),
        };
        reference.remove(a..b);
        reference.insert(a, &text);
        assert_eq!(doc.text(), reference.to_string());
    }
    let fresh = syntax::document::Document::new(&reference.to_string());
    assert_eq!(doc.syntax_errors(), fresh.syntax_errors());
});
