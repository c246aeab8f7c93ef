//! `re._parser.parse_template`: a `re.sub` replacement to literals and group references.

use std::collections::HashMap;

use super::parse::is_identifier;

pub(super) enum Piece {
    Literal(String),
    Group(usize),
}

/// `re._parser.parse_template`: a replacement string to literals and group references, with
/// Python's errors (`bad escape \q at position 0`, `invalid group reference 2 at position 2`,
/// `unknown group name 'x'`).
pub(super) fn parse_template(source: &str, groups: usize, groupdict: &HashMap<String, usize>) -> Result<Vec<Piece>, String> {
    let chars: Vec<char> = source.chars().collect();
    let mut out = Vec::new();
    let mut literal = String::new();
    let mut i = 0;
    let error = |msg: String, pos: usize| format!("{msg} at position {pos}");
    let flush = |literal: &mut String, out: &mut Vec<Piece>| {
        if !literal.is_empty() {
            out.push(Piece::Literal(std::mem::take(literal)));
        }
    };
    while i < chars.len() {
        let c = chars[i];
        if c != '\\' {
            literal.push(c);
            i += 1;
            continue;
        }
        let Some(&e) = chars.get(i + 1) else {
            return Err(error("bad escape (end of pattern)".into(), i));
        };
        i += 2;
        match e {
            'g' => {
                if chars.get(i) != Some(&'<') {
                    return Err(error("missing <".into(), i));
                }
                i += 1;
                let start = i;
                while i < chars.len() && chars[i] != '>' {
                    i += 1;
                }
                let name: String = chars[start..i].iter().collect();
                if name.is_empty() {
                    return Err(error("missing group name".into(), start));
                }
                if i >= chars.len() {
                    return Err(error("missing >, unterminated name".into(), start));
                }
                i += 1;
                let index = if is_identifier(&name) {
                    *groupdict.get(&name).ok_or_else(|| format!("unknown group name '{name}'"))?
                } else {
                    // `int(name)`, refusing negative numbers.
                    match crate::py::builtins::parse_int(&name).and_then(|n| usize::try_from(n).ok()) {
                        Some(n) => n,
                        None => return Err(error(format!("bad character in group name '{name}'"), start)),
                    }
                };
                if index > groups {
                    return Err(error(format!("invalid group reference {index}"), start));
                }
                flush(&mut literal, &mut out);
                out.push(Piece::Group(index));
            }
            '0' => {
                let mut digits = String::from("0");
                while digits.len() < 3 && chars.get(i).is_some_and(|d| ('0'..='7').contains(d)) {
                    digits.push(chars[i]);
                    i += 1;
                }
                literal.push(char::from((u32::from_str_radix(&digits, 8).unwrap_or(0) & 0xff) as u8));
            }
            '1'..='9' => {
                let start = i - 2;
                let mut digits = String::from(e);
                if chars.get(i).is_some_and(|d| d.is_ascii_digit()) {
                    digits.push(chars[i]);
                    i += 1;
                    let octal = |d: char| ('0'..='7').contains(&d);
                    if octal(e) && digits.chars().nth(1).is_some_and(octal) && chars.get(i).copied().is_some_and(octal) {
                        digits.push(chars[i]);
                        i += 1;
                        let value = u32::from_str_radix(&digits, 8).unwrap_or(0);
                        if value > 0o377 {
                            return Err(error(format!("octal escape value \\{digits} outside of range 0-0o377"), start));
                        }
                        literal.push(char::from_u32(value).unwrap_or('\0'));
                        continue;
                    }
                }
                let index: usize = digits.parse().unwrap_or(0);
                if index > groups {
                    return Err(error(format!("invalid group reference {index}"), start + 1));
                }
                flush(&mut literal, &mut out);
                out.push(Piece::Group(index));
            }
            'a' => literal.push('\u{7}'),
            'b' => literal.push('\u{8}'),
            'f' => literal.push('\u{c}'),
            'n' => literal.push('\n'),
            'r' => literal.push('\r'),
            't' => literal.push('\t'),
            'v' => literal.push('\u{b}'),
            '\\' => literal.push('\\'),
            e if e.is_ascii_alphabetic() => return Err(error(format!("bad escape \\{e}"), i - 2)),
            e => {
                literal.push('\\');
                literal.push(e);
            }
        }
    }
    flush(&mut literal, &mut out);
    Ok(out)
}
