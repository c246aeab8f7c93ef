//! The compound matcher's target-word parser (`G@`, `I@`, `P@`, `N@`, ...) on any word.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(word) = std::str::from_utf8(data) {
        for w in word.split_whitespace().take(64) {
            let _ = model::targeting::matchers::compound::parse_target(w);
        }
    }
});
