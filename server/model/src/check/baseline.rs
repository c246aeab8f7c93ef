//! A baseline: the findings a team has accepted on a legacy tree, written once
//! (`check --write-baseline FILE`) and subtracted afterwards (`check --baseline FILE`), so only
//! new findings fail. An entry is a finding's code, file and a fingerprint of its content (the
//! text of the line it is on and its message, numbers masked), never its line number: entries
//! survive lines moving above them, and each entry absorbs one finding.

use std::collections::HashMap;

use serde_json::{json, Value};
use sha2::{Digest, Sha256};

/// One finding as a baseline sees it.
pub struct Entry<'a> {
    pub code: &'a str,
    /// The file as the report prints it (relative to the workspace root).
    pub file: &'a str,
    /// The text of the line the finding is on.
    pub line_text: &'a str,
    pub message: &'a str,
}

impl Entry<'_> {
    /// What stays the same while the finding does: the code, the file, the line's text without
    /// its indentation, and the message, with every number masked (Salt's messages name lines).
    pub fn fingerprint(&self) -> String {
        let mask = |s: &str| s.split(|c: char| c.is_ascii_digit()).filter(|p| !p.is_empty()).collect::<Vec<_>>().join("#");
        digest(&format!("{}\0{}\0{}\0{}", self.code, self.file, self.line_text.trim(), mask(self.message)))
    }
}

/// A stable fingerprint of `key`: its SHA-256, in lowercase hex (baseline entries, and the CI
/// formats' finding fingerprints).
pub fn digest(key: &str) -> String {
    Sha256::digest(key.as_bytes()).iter().map(|b| format!("{b:02x}")).collect()
}

/// The baseline file's content for `entries`: `{"salt-analyzer-baseline": 1, "findings":
/// [{"code", "file", "fingerprint", "message"}]}` (the message for people reading it).
pub fn write(entries: &[Entry<'_>]) -> String {
    let list: Vec<Value> = entries.iter().map(|e| json!({"code": e.code, "file": e.file, "fingerprint": e.fingerprint(), "message": e.message})).collect();
    serde_json::to_string_pretty(&json!({"salt-analyzer-baseline": 1, "findings": list})).unwrap_or_default() + "\n"
}

/// A baseline read back: how many findings each (code, file, fingerprint) absorbs.
#[derive(Debug, Default)]
pub struct Baseline {
    left: HashMap<(String, String, String), usize>,
}

impl Baseline {
    /// Reads a baseline file's text.
    pub fn parse(text: &str) -> Result<Baseline, String> {
        let v: Value = serde_json::from_str(text).map_err(|e| format!("not JSON: {e}"))?;
        if v.get("salt-analyzer-baseline").and_then(Value::as_u64) != Some(1) {
            return Err("not a salt-analyzer baseline (written by `check --write-baseline`)".into());
        }
        let mut left: HashMap<(String, String, String), usize> = HashMap::new();
        for f in v.get("findings").and_then(Value::as_array).into_iter().flatten() {
            let s = |k: &str| f.get(k).and_then(Value::as_str).unwrap_or_default().to_string();
            *left.entry((s("code"), s("file"), s("fingerprint"))).or_default() += 1;
        }
        Ok(Baseline { left })
    }

    /// Whether the baseline holds `entry` (which it then absorbs).
    pub fn absorbs(&mut self, entry: &Entry<'_>) -> bool {
        match self.left.get_mut(&(entry.code.to_string(), entry.file.to_string(), entry.fingerprint())) {
            Some(n) if *n > 0 => {
                *n -= 1;
                true
            }
            _ => false,
        }
    }

    /// How many entries absorbed nothing: findings fixed since the baseline was written.
    pub fn unmatched(&self) -> usize {
        self.left.values().sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_survive_lines_moving_and_absorb_one_finding_each() {
        let e = |line_text, message| Entry { code: "missing-include", file: "salt/ß.sls", line_text, message };
        let written = write(&[e("  - nosuch", "SLS nosuch; line 3"), e("  - nosuch", "SLS nosuch; line 3")]);
        let mut b = Baseline::parse(&written).expect("reads back");
        // The line moved (its message names the new line), its indentation changed: the same.
        assert!(b.absorbs(&e("    - nosuch", "SLS nosuch; line 9")));
        assert!(b.absorbs(&e("- nosuch", "SLS nosuch; line 12")));
        // Two were written, a third is new.
        assert!(!b.absorbs(&e("- nosuch", "SLS nosuch; line 12")));
        assert!(!b.absorbs(&e("- other", "SLS other; line 4")));
        assert_eq!(b.unmatched(), 0);
        assert_eq!(Baseline::parse("{}").unwrap_err(), "not a salt-analyzer baseline (written by `check --write-baseline`)");
    }
}
