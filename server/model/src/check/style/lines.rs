//! salt-lint's line rules (`Rule.match`, one line at a time): whitespace and length (201, 203,
//! 204, 212), file modes and octal numbers (207, 208, 210), `cmd.wait` (213), typos of
//! requisites (216, 217) and the state deprecations (902 to 915). Each tests a line cheaply
//! before its pattern: these run on every diagnostics request in the editor.

use std::ops::Range;

use super::rule::{py_space, Rule, Test, RE_VERBOSE, SLS};
use crate::diagnostic::Code;

/// 201 (`TrailingWhitespaceRule`): `line.replace("\r", "")` ends in whitespace.
pub(super) const TRAILING_WHITESPACE: Rule = Rule {
    id: "201",
    code: Code::TrailingWhitespace,
    only: None,
    test: Test::Line(trailing_whitespace),
    message: "Trailing whitespace: invisible, and it makes every diff that touches the line noisier",
};

fn trailing_whitespace(line: &str) -> Option<Range<usize>> {
    let last = line.chars().rev().find(|&c| c != '\r')?;
    if !py_space(last) {
        return None;
    }
    let end = line.trim_end_matches('\r').len();
    let start = line.trim_end_matches(|c| py_space(c) || c == '\r').len();
    Some(start..end.max(start))
}

/// 203 (`NoTabsRule`).
pub(super) const TABS: Rule = Rule {
    id: "203",
    code: Code::TabCharacter,
    only: SLS,
    test: Test::Line(|line| line.find('\t').map(|i| i..i + 1)),
    message: "A tab character: YAML refuses tabs in indentation, and elsewhere they show differently in every editor; use spaces",
};

/// 204 (`LineTooLongRule`): more than 160 characters (a `\r` counts, as salt-lint splits on
/// `\n` only).
pub(super) const LINE_TOO_LONG: Rule = Rule {
    id: "204",
    code: Code::LineTooLong,
    only: None,
    test: Test::Line(|line| {
        if line.len() <= 160 {
            return None;
        }
        let (at, _) = line.char_indices().nth(160)?;
        Some(at..line.trim_end_matches('\r').len())
    }),
    message: "Lines should be no longer than 160 characters: long lines make the file harder to read and to review",
};

/// salt-lint's list of irregular spaces (`NoIrregularSpacesRule.irregular_spaces`).
const IRREGULAR: &[char] = &[
    '\u{000B}', '\u{000C}', '\u{00A0}', '\u{0085}', '\u{1680}', '\u{180E}', '\u{FEFF}', '\u{2000}', '\u{2001}', '\u{2002}', '\u{2003}', '\u{2004}', '\u{2005}',
    '\u{2006}', '\u{2007}', '\u{2008}', '\u{2009}', '\u{200A}', '\u{200B}', '\u{2028}', '\u{2029}', '\u{202F}', '\u{205F}', '\u{3000}',
];

/// 212 (`NoIrregularSpacesRule`).
pub(super) const IRREGULAR_WHITESPACE: Rule = Rule {
    id: "212",
    code: Code::IrregularWhitespace,
    only: None,
    test: Test::Line(|line| {
        if line.is_ascii() && !line.bytes().any(|b| b == 0x0b || b == 0x0c) {
            return None;
        }
        line.char_indices().find(|(_, c)| IRREGULAR.contains(c)).map(|(i, c)| i..i + c.len_utf8())
    }),
    message: "An irregular space (no-break, zero-width, ...): YAML does not read it as a space, so `key:\u{a0}value` is one string and not a key, and nobody sees why",
};

/// A file mode line names `mode`.
fn names_mode(line: &str) -> bool {
    line.contains("mode")
}

/// 207 (`FileModeQuotationRule`).
pub(super) const FILE_MODE_UNQUOTED: Rule = Rule {
    id: "207",
    code: Code::FileModeUnquoted,
    only: SLS,
    test: Test::Pattern {
        cheap: names_mode,
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
        flags: RE_VERBOSE,
    },
    message: "File modes should always be encapsulated in quotation marks: unquoted, YAML reads `0644` as the number 420 and Salt sets mode 0420",
};

/// 208 (`FileModeLeadingZeroRule`).
pub(super) const FILE_MODE_LEADING_ZERO: Rule = Rule {
    id: "208",
    code: Code::FileModeLeadingZero,
    only: SLS,
    test: Test::Pattern {
        cheap: names_mode,
        pattern: r#"^\s+             # line starting with whitespace
        -\                   # whitespace escaped due to re.VERBOSE
        (?:dir_|file_)?mode  # file_mode, dir_mode or mode
        :\                   # whitespace escaped due to re.VERBOSE
        ['"]?                # optional quotation character
        ([0-9]{3})           # three number digit
        (?:['"\s]|$)         # followed by whitespace, quoation or EOL
        "#,
        flags: RE_VERBOSE,
    },
    message: "File modes should always contain a leading zero",
};

/// 210 (`YamlHasOctalValueRule`).
pub(super) const OCTAL_UNQUOTED: Rule = Rule {
    id: "210",
    code: Code::OctalUnquoted,
    only: SLS,
    test: Test::Pattern {
        cheap: |line| line.split_once(':').is_some_and(|(_, v)| v.trim_start().starts_with('0')),
        pattern: r#"^[^:]+:\s{0,}0[0-9]{1,}\s{0,}((?={#)|(?=#)|(?=$))"#,
        flags: 0,
    },
    message: "Numbers that start with '0' should always be encapsulated in quotation marks: YAML reads them as octal",
};

/// 213 (`CmdWaitRecommendRule`).
pub(super) const CMD_WAIT: Rule = Rule {
    id: "213",
    code: Code::CmdWait,
    only: SLS,
    test: Test::Pattern { cheap: |line| line.contains("cmd.wait:"), pattern: r"^\s{2}cmd\.wait:(\s+)?$", flags: 0 },
    message: "Salt's documentation of cmd.wait says to use cmd.run together with onchanges instead: `onchanges` runs the command when a state it names changed, as `watch` does for cmd.wait, and it reads as what it does",
};

/// 216 (`TypoOnchangesRule`).
pub(super) const ONCHANGES_TYPO: Rule = Rule {
    id: "216",
    code: Code::OnchangesTypo,
    only: SLS,
    test: Test::Pattern { cheap: |line| line.contains("change"), pattern: r"^\s+- (on_?change(|_in|_any)|on_changes(|_in|_any)):", flags: 0 },
    message: "This looks like a typo of `onchanges`: Salt knows no such requisite, so it passes it to the state function as an argument (ignored where the function takes **kwargs) and the state runs whether or not anything changed",
};

/// 217 (`TypoRequireRule`).
pub(super) const REQUIRE_TYPO: Rule = Rule {
    id: "217",
    code: Code::RequireTypo,
    only: SLS,
    test: Test::Pattern { cheap: |line| line.contains("requires"), pattern: r"^\s+- requires(|_in|_any):", flags: 0 },
    message: "`requires` looks like a typo of `require`: Salt knows no such requisite, so it passes it to the state function as an argument and orders nothing",
};

/// One of the state deprecations (`DeprecationRule` subclasses, 902 to 915).
pub(super) const fn deprecated(id: &'static str, state: &'static str, since: &'static str, instead: &'static str) -> Rule {
    Rule { id, code: Code::DeprecatedState, only: SLS, test: Test::Deprecated { state, since, instead }, message: "" }
}
