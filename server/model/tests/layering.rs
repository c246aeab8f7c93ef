//! The model's folders depend on each other in one direction only (docs/ARCHITECTURE.md,
//! "server/model/src, by Salt concern"): a `crate::` path in a module may name only concerns
//! listed before its own.

use std::path::Path;

/// Each concern, after everything it may use.
const ORDER: &[&str] =
    &["py", "version", "requisites", "value", "diagnostic", "workspace", "render", "targeting", "mapstack", "pillar", "state", "pipeline", "check", "impact"];

fn sources(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for e in std::fs::read_dir(dir).expect("read src").flatten() {
        let p = e.path();
        if p.is_dir() {
            sources(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

#[test]
fn no_concern_uses_a_later_one() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&src, &mut files);
    let mut checked = 0;
    let mut wrong = Vec::new();
    for f in &files {
        let rel = f.strip_prefix(&src).unwrap().to_string_lossy().replace('\\', "/");
        let own = rel.split('/').next().unwrap().trim_end_matches(".rs");
        if own == "lib" {
            continue;
        }
        let rank = ORDER.iter().position(|c| *c == own).unwrap_or_else(|| panic!("{rel}: concern `{own}` is not in ORDER"));
        let text = std::fs::read_to_string(f).unwrap();
        for (n, line) in text.lines().enumerate() {
            if line.trim_start().starts_with("//") {
                continue;
            }
            for (i, _) in line.match_indices("crate::") {
                let name: String = line[i + 7..].chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
                let Some(used) = ORDER.iter().position(|c| *c == name) else { continue };
                checked += 1;
                if used > rank {
                    wrong.push(format!("{rel}:{}: `{own}` uses the later `{name}`", n + 1));
                }
            }
        }
    }
    assert!(checked > 100, "only {checked} crate:: paths found: is the source tree where it was?");
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
