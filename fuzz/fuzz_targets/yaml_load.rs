//! The spanned YAML loader (PyYAML rules) on any text: never a panic, spans inside the text.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        if let Ok(node) = syntax::yaml::load(text) {
            assert!(node.span.end <= text.len());
        }
    }
});
