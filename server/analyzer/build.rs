//! Builds the rule pages into the binary: `docs/rules/CODE.md`, every one there, as the list
//! `codes_doc::PAGES` includes (`include_str!` of each page, so editing a page rebuilds, and a
//! page added or removed regenerates the list).

use std::path::Path;

fn main() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/rules");
    println!("cargo:rerun-if-changed={}", dir.display());
    let mut pages: Vec<(String, String)> = std::fs::read_dir(&dir)
        .map(|entries| {
            entries
                .flatten()
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|x| x == "md") && p.file_name().is_some_and(|n| n != "README.md"))
                .filter_map(|p| Some((p.file_stem()?.to_str()?.to_string(), p.canonicalize().ok()?.to_str()?.to_string())))
                .collect()
        })
        .unwrap_or_default();
    pages.sort();
    let mut out = String::from("/// Every rule page, `docs/rules/CODE.md`: the code and the page.\npub const PAGES: &[(&str, &str)] = &[\n");
    for (code, path) in &pages {
        out.push_str(&format!("    ({code:?}, include_str!({path:?})),\n"));
    }
    out.push_str("];\n");
    let target = Path::new(&std::env::var("OUT_DIR").expect("OUT_DIR")).join("rule_pages.rs");
    std::fs::write(target, out).expect("write rule_pages.rs");
}
