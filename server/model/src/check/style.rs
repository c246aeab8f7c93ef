//! salt-lint's rules, ported (salt-lint 0.9.2, `saltlint/rules/`): each a line pattern over an
//! SLS file's text as written, as salt-lint matches it (a line whose first non-blank is `#` is
//! skipped; `# noqa NNN` on a line skips rule NNN there), through `py::re` so the patterns keep
//! Python's meaning. Each is a code of ours with the salt-lint ID it replaces: a team moving
//! from salt-lint keeps its findings, and its `# noqa` comments keep working.
//!
//! These are on by default: `mode: 0644` unquoted is read by YAML 1.1 as the integer 420, and
//! Salt then sets mode `0420` (207 and 210 are real bugs, warnings); a quoted three-digit mode
//! is only style (208, a hint). `rules:` or `--ignore` turns any of them off.

use std::path::Path;
use std::sync::OnceLock;

use crate::diagnostic::{Code, Diagnostic};
use crate::py::re::PySearch;

/// One ported rule: our code (whose salt-lint ID is [`Code::salt_lint`]), its pattern (Python
/// syntax, verbose flag as salt-lint compiles it) and message.
struct Rule {
    code: Code,
    pattern: &'static str,
    verbose: bool,
    message: &'static str,
}

const RULES: &[Rule] = &[
    Rule {
        code: Code::FileModeUnquoted,
        // saltlint/rules/FileModeQuotationRule.py
        pattern: r#"^\s+
        -\                   # whitespace escaped due to re.VERBOSE
        (?:dir_|file_)?mode  # file_mode, dir_mode or mode
        :\                   # whitespace escaped duo to re.VERBOSE
        (?:
            (\d{3,4})        # mode without quotation
            (?:
                ['"]         # followed by a quotation character
              |
                \s           # followed by a whitespace
              |
                $            # followed by EOL
            )
          |
            (['"]\d{3,4}     # mode prefixed with quotation
              (?:[^\d'"]|$)  # not followed by digit, quoation or EOL
            )
        )
        "#,
        verbose: true,
        message:
            "File modes should always be encapsulated in quotation marks: unquoted, YAML reads `0644` as the number 420 and Salt sets mode 0420 (salt-lint 207)",
    },
    Rule {
        code: Code::FileModeLeadingZero,
        // saltlint/rules/FileModeLeadingZeroRule.py
        pattern: r#"^\s+             # line starting with whitespace
        -\                   # whitespace escaped due to re.VERBOSE
        (?:dir_|file_)?mode  # file_mode, dir_mode or mode
        :\                   # whitespace escaped due to re.VERBOSE
        ['"]?                # optional quotation character
        ([0-9]{3})           # three number digit
        (?:['"\s]|$)         # followed by whitespace, quoation or EOL
        "#,
        verbose: true,
        message: "File modes should always contain a leading zero (salt-lint 208)",
    },
    Rule {
        code: Code::OctalUnquoted,
        // saltlint/rules/YamlHasOctalValueRule.py
        pattern: r#"^[^:]+:\s{0,}0[0-9]{1,}\s{0,}((?={#)|(?=#)|(?=$))"#,
        verbose: false,
        message: "Numbers that start with '0' should always be encapsulated in quotation marks: YAML reads them as octal (salt-lint 210)",
    },
];

/// `re.VERBOSE` (CPython's `re.X`).
const RE_VERBOSE: u32 = 64;

fn compiled() -> &'static [Option<PySearch>] {
    static RES: OnceLock<Vec<Option<PySearch>>> = OnceLock::new();
    RES.get_or_init(|| RULES.iter().map(|r| PySearch::compile(r.pattern, if r.verbose { RE_VERBOSE } else { 0 }).ok()).collect())
}

/// The ported rules' findings in the file `path` with text `text` (SLS files only, as
/// salt-lint takes them by their extension).
pub fn lint(path: &Path, text: &str) -> Vec<Diagnostic> {
    if !path.extension().is_some_and(|e| e.eq_ignore_ascii_case("sls")) {
        return Vec::new();
    }
    let mut out = Vec::new();
    let mut start = 0;
    for line in text.split('\n') {
        let at = start;
        start += line.len() + 1;
        if line.trim_start().starts_with('#') {
            continue;
        }
        // `get_rule_skips_from_line`: the words after `# noqa`.
        let skips: Vec<&str> = line.split_once("# noqa").map(|(_, rest)| rest.split_whitespace().collect()).unwrap_or_default();
        // Cheap tests first: a file mode line names `mode`, an octal value has `:` then `0`.
        let mode = line.contains("mode");
        let octal = line.split_once(':').is_some_and(|(_, v)| v.trim_start().starts_with('0'));
        if !mode && !octal {
            continue;
        }
        for (rule, re) in RULES.iter().zip(compiled()) {
            let Some(re) = re else { continue };
            let possible = if rule.code == Code::OctalUnquoted { octal } else { mode };
            let skipped = rule.code.salt_lint().is_some_and(|id| skips.contains(&id));
            if !possible || skipped || !matches!(re.search(line, 0), Ok(Some(_))) {
                continue;
            }
            let content = line.trim_end_matches('\r');
            let lead = content.len() - content.trim_start().len();
            out.push(Diagnostic {
                file: path.to_path_buf(),
                span: at + lead..at + content.len(),
                severity: rule.code.severity(),
                code: rule.code,
                message: rule.message.to_string(),
                related: Vec::new(),
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(text: &str) -> String {
        lint(Path::new("/srv/ß.sls"), text)
            .iter()
            .map(|d| format!("{}:{} {}\n", syntax::line_index::line_number(text, d.span.start), d.code.as_str(), d.code.salt_lint().unwrap_or("")))
            .collect()
    }

    #[test]
    fn every_rule_replaces_a_salt_lint_rule() {
        assert!(RULES.iter().all(|r| r.code.salt_lint().is_some()));
    }

    #[test]
    fn file_modes_and_octal_numbers_as_salt_lint_reads_them() {
        // salt-lint 0.9.2 on the same text: 207+210 at 4, 207+208 at 5, 208 at 6.
        let text = "web:\n  file.managed:\n    - name: /etc/💣\n    - mode: 0644\n    - dir_mode: 755\n    - file_mode: \"644\"\n    - mode: '0644'\n    # - mode: 0644\n    - mode: 0644  # noqa 207 210\nport: 0123 {# ℝ #}\n";
        expect_test::expect![[r#"
            4:file-mode-unquoted 207
            4:octal-unquoted 210
            5:file-mode-unquoted 207
            5:file-mode-leading-zero 208
            6:file-mode-leading-zero 208
            10:octal-unquoted 210
        "#]]
        .assert_eq(&run(text));
        assert!(lint(Path::new("map.jinja"), "mode: 0644\n").is_empty());
    }
}
