//! `_states/*.py` signature parsing (tree-sitter-python, never imported) on any text.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = syntax::python::parse_module(text);
    }
});
