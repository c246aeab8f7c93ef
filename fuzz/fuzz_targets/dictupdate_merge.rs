//! Salt's dict-merge rules (`salt/utils/dictupdate.py`): every strategy on any two JSON
//! values, with and without `merge_lists`; never a panic, and `update` of a value with
//! itself (recursive, lists not merged) changes nothing.
#![no_main]

use libfuzzer_sys::fuzz_target;
use model::py::dictupdate;
use serde_json::Value;

fuzz_target!(|data: &[u8]| {
    let mut parts = data.splitn(2, |&b| b == 0);
    let (Some(a), Some(b)) = (parts.next(), parts.next()) else { return };
    let (Ok(a), Ok(b)) = (serde_json::from_slice::<Value>(a), serde_json::from_slice::<Value>(b)) else { return };
    for strategy in ["smart", "recurse", "aggregate", "list", "overwrite", "none", "unknown"] {
        for merge_lists in [false, true] {
            let mut dest = a.clone();
            let _ = dictupdate::merge(&mut dest, &b, strategy, "yaml", merge_lists);
            let _ = dictupdate::merge_all([&a, &b, &a], strategy, "jinja", merge_lists);
        }
    }
    let mut same = a.clone();
    if dictupdate::update(&mut same, &a, true, false, false).is_ok() && a.is_object() {
        assert_eq!(same, a);
    }
});
