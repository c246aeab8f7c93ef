//! Parsing one data source of saltext-formula's `map.data` (`saltext/formula/modules/map.py`
//! `_render_matcher_chain` and `_render_matcher`): a chain `[Y!]single[|single...]` of
//! matchers `[TYPE[:OPTION[:DELIMITER]]@]QUERY`, and whether its result is loaded as YAML
//! files or merged as it is.

/// What a matcher asks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// `G`: `grains.get`.
    Grains,
    /// `I`: `pillar.get`.
    Pillar,
    /// `C`: `config.get`.
    Config,
    /// `M`: the layers merged so far.
    Mapdata,
    /// `U`: `custom_data` (always empty in `map.data`).
    Custom,
    /// `P`: a static path segment.
    Static,
}

impl Kind {
    /// `TYP_CLS_MAP[letter]`.
    fn from_letter(letter: &str) -> Option<Kind> {
        Some(match letter {
            "G" => Kind::Grains,
            "I" => Kind::Pillar,
            "C" => Kind::Config,
            "M" => Kind::Mapdata,
            "U" => Kind::Custom,
            "P" => Kind::Static,
            _ => return None,
        })
    }
}

/// One matcher (`Matcher.__init__`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Matcher {
    pub kind: Kind,
    pub query: String,
    /// `OPTION` split at `,` (`SUB`); empty for the `Y:` form.
    pub options: Vec<String>,
    /// `:` unless given.
    pub delimiter: String,
}

impl Matcher {
    fn new(kind: Kind, query: &str, options: Vec<String>, delimiter: Option<&str>) -> Matcher {
        // `self.delimiter = delimiter or ":"`; options `()` when empty or `("",)`.
        let delimiter = delimiter.filter(|d| !d.is_empty()).unwrap_or(":").to_string();
        let options = if options.len() == 1 && options[0].is_empty() { Vec::new() } else { options };
        Matcher { kind, query: query.to_string(), options, delimiter }
    }

    /// `StaticMatcher.is_file_name`: `Path(query).suffix != ""`.
    fn is_file_name(&self) -> bool {
        self.kind == Kind::Static && !path_suffix(&self.query).is_empty()
    }
}

/// A parsed source.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chain {
    /// Loaded as YAML files under the parameter directories (`Y!`, the `Y:` form, a bare
    /// query); else the first matcher's value is merged directly.
    pub yaml: bool,
    pub matchers: Vec<Matcher>,
}

/// Parses `source` as `_render_matcher_chain(source, ctx)` does; `Err` is the message of the
/// exception Salt raises (`ValueError`, `KeyError`).
pub fn parse(source: &str) -> Result<Chain, String> {
    let (yaml_renderer, rest) = match source.strip_prefix("Y!") {
        Some(rest) => (true, rest),
        None => (false, source),
    };
    let mut parts = rest.split('|');
    let (first, is_yaml) = single(parts.next().unwrap_or(""))?;
    let mut chain = Chain { yaml: yaml_renderer || is_yaml, matchers: Vec::new() };
    let mut finished = false;
    let mut add = |chain: &mut Chain, m: Matcher| -> Result<(), String> {
        if finished {
            return Err(format!("ValueError: Cannot append other matchers after `{}`: {}", chain.matchers.last().map_or("", |m| m.query.as_str()), m.query));
        }
        finished = m.is_file_name();
        chain.matchers.push(m);
        Ok(())
    };
    add(&mut chain, first)?;
    for part in parts {
        let (m, is_yaml) = single(part)?;
        if is_yaml {
            // Salt's message prints the `itertools.chain` class instead of the chain.
            return Err("ValueError: Cannot use YAML matcher in query chains: `<class 'itertools.chain'>`".into());
        }
        add(&mut chain, m)?;
    }
    Ok(chain)
}

/// Parses `source` as template-formula's `libmatchers.jinja` `parse_matchers` does (docs/salt/mapstack.md §2.1): one
/// matcher, split at `@` (the second part is the query, later parts are ignored) and the part
/// before it at `:`; `C`, `G` and `I` are lookups merged as they are, any other type loads YAML
/// files named by the lookup its option names (default `C`). `!` and `|` are no syntax (`Y!G`
/// is just an unknown type). The one option kept is `SUB` (`options[0]`). `Err`: the option
/// names no lookup, where Jinja calls an undefined function.
pub fn parse_jinja(source: &str) -> Result<Chain, String> {
    let letter = |l: &str| match l {
        "C" => Some(Kind::Config),
        "G" => Some(Kind::Grains),
        "I" => Some(Kind::Pillar),
        _ => None,
    };
    let mut parts = source.split('@');
    let head = parts.next().unwrap_or("");
    let Some(query) = parts.next() else {
        return Ok(Chain { yaml: true, matchers: vec![Matcher::new(Kind::Config, source, Vec::new(), None)] });
    };
    let meta: Vec<&str> = head.split(':').collect();
    let (typ, option, delimiter) = match meta.len() {
        1 => (meta[0], "C", ":"),
        2 => (meta[0], meta[1], ":"),
        3 => (meta[0], meta[1], meta[2]),
        4 => (meta[0], meta[1], ":"),
        // The macro sets no type, option or delimiter: YAML files through `config.get`.
        _ => ("", "C", ":"),
    };
    if let Some(kind) = letter(typ) {
        return Ok(Chain { yaml: false, matchers: vec![Matcher::new(kind, query, vec![option.to_string()], Some(delimiter))] });
    }
    let option = if option.is_empty() { "C" } else { option };
    let kind = letter(option).ok_or_else(|| format!("UndefinedError: 'dict object' has no attribute '{option}' (no lookup for `{source}`)"))?;
    Ok(Chain { yaml: true, matchers: vec![Matcher::new(kind, query, Vec::new(), Some(delimiter))] })
}

/// `_render_matcher(single)`: the matcher and whether it asks for YAML files.
fn single(text: &str) -> Result<(Matcher, bool), String> {
    let mut at = text.split('@');
    let head = at.next().unwrap_or("");
    let Some(query) = at.next() else {
        // No `@`: a file name is a static YAML file, anything else `Y!C@query`.
        if head.ends_with(".yaml") || head.ends_with(".jinja") {
            return Ok((Matcher::new(Kind::Static, head, Vec::new(), None), true));
        }
        return Ok((Matcher::new(Kind::Config, head, Vec::new(), None), true));
    };
    // `typ, option, delimiter, *rest = chain(query.split(":"), [None] * 2)`.
    let meta: Vec<&str> = head.split(':').collect();
    let typ = meta[0];
    let option = meta.get(1).copied();
    let mut delimiter = meta.get(2).copied();
    if meta.get(3) == Some(&"") {
        // `Y:C::@roles`: the colon written out as the delimiter.
        delimiter = Some(":");
    }
    let lookup = |letter: &str| Kind::from_letter(letter).ok_or_else(|| format!("KeyError: '{letter}'"));
    if typ == "Y" {
        let sub = option.filter(|o| !o.is_empty()).unwrap_or("C");
        return Ok((Matcher::new(lookup(sub)?, query, Vec::new(), delimiter), true));
    }
    let options = option.unwrap_or("").split(',').map(str::to_string).collect();
    Ok((Matcher::new(lookup(typ)?, query, options, delimiter), false))
}

/// Python's `pathlib.PurePosixPath(path).suffix`: the last component's extension, from its last
/// dot, when that dot is neither its first nor its last character.
pub fn path_suffix(path: &str) -> &str {
    let name = path.split('/').rfind(|c| !c.is_empty() && *c != ".").unwrap_or("");
    match name.rfind('.') {
        Some(i) if i > 0 && i < name.len() - 1 => &name[i..],
        _ => "",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use expect_test::expect;

    fn show(source: &str) -> String {
        match parse(source) {
            Ok(c) => {
                let ms: Vec<String> = c
                    .matchers
                    .iter()
                    .map(|m| {
                        let opts = if m.options.is_empty() { String::new() } else { format!(" {:?}", m.options) };
                        format!("{:?}({}){} delim={}", m.kind, m.query, opts, m.delimiter)
                    })
                    .collect();
                format!("{} {}", if c.yaml { "yaml" } else { "raw" }, ms.join(" | "))
            }
            Err(e) => format!("error {e}"),
        }
    }

    #[test]
    fn sources_parse_as_saltext_formula_parses_them() {
        let sources = [
            "Y!G@os_family",
            "Y:G@os",
            "Y:G:!@dns!domain",
            "Y!G::!@dns!domain",
            "Y:C::@roles",
            "Y@roles",
            "C@tpl",
            "C:SUB@tpl:lookup",
            "C:SUB,X:!!@a!!lookup",
            "I@roles",
            "roles",
            "defaults.yaml",
            "x.yaml.jinja",
            "Y!P@defaults.yaml",
            "Y!G@os_family|I@roles",
            "C@tpl:variants|M@variant",
            "Y!G@os|roles",
            "Y!P@defaults.yaml|G@os",
            "Y!P@dir|G@os",
            "X@foo",
            "Y:Q@foo",
            "G@a@b",
            "",
        ];
        let out: Vec<String> = sources.iter().map(|s| format!("{s:24} {}", show(s))).collect();
        expect![[r#"
            Y!G@os_family            yaml Grains(os_family) delim=:
            Y:G@os                   yaml Grains(os) delim=:
            Y:G:!@dns!domain         yaml Grains(dns!domain) delim=!
            Y!G::!@dns!domain        yaml Grains(dns!domain) delim=!
            Y:C::@roles              yaml Config(roles) delim=:
            Y@roles                  yaml Config(roles) delim=:
            C@tpl                    raw Config(tpl) delim=:
            C:SUB@tpl:lookup         raw Config(tpl:lookup) ["SUB"] delim=:
            C:SUB,X:!!@a!!lookup     raw Config(a!!lookup) ["SUB", "X"] delim=!!
            I@roles                  raw Pillar(roles) delim=:
            roles                    yaml Config(roles) delim=:
            defaults.yaml            yaml Static(defaults.yaml) delim=:
            x.yaml.jinja             yaml Static(x.yaml.jinja) delim=:
            Y!P@defaults.yaml        yaml Static(defaults.yaml) delim=:
            Y!G@os_family|I@roles    yaml Grains(os_family) delim=: | Pillar(roles) delim=:
            C@tpl:variants|M@variant raw Config(tpl:variants) delim=: | Mapdata(variant) delim=:
            Y!G@os|roles             error ValueError: Cannot use YAML matcher in query chains: `<class 'itertools.chain'>`
            Y!P@defaults.yaml|G@os   error ValueError: Cannot append other matchers after `defaults.yaml`: os
            Y!P@dir|G@os             yaml Static(dir) delim=: | Grains(os) delim=:
            X@foo                    error KeyError: 'X'
            Y:Q@foo                  error KeyError: 'Q'
            G@a@b                    raw Grains(a) delim=:
                                     yaml Config() delim=:"#]]
        .assert_eq(&out.join("\n"));
    }

    #[test]
    fn sources_parse_as_libmatchers_parses_them() {
        let sources = [
            "Y:G@os_family",
            "Y:G:!@dns!domain",
            "Y:C::@roles",
            "Y@roles",
            "Y!G@os",
            "Y!G@os_family|C@roles",
            "C@tpl:lookup",
            "C:SUB@tpl:lookup",
            "I@tpl",
            "G:X:!@a!b",
            "roles",
            "defaults.yaml",
            "a@b@c",
            "Y:I:x:y:z@q",
            "Y:Q@q",
        ];
        let show = |source: &str| match parse_jinja(source) {
            Ok(c) => {
                let m = &c.matchers[0];
                format!("{} {:?}({}) {:?} delim={}", if c.yaml { "yaml" } else { "raw" }, m.kind, m.query, m.options, m.delimiter)
            }
            Err(e) => format!("error {e}"),
        };
        let out: Vec<String> = sources.iter().map(|s| format!("{s:22} {}", show(s))).collect();
        expect![[r#"
            Y:G@os_family          yaml Grains(os_family) [] delim=:
            Y:G:!@dns!domain       yaml Grains(dns!domain) [] delim=!
            Y:C::@roles            yaml Config(roles) [] delim=:
            Y@roles                yaml Config(roles) [] delim=:
            Y!G@os                 yaml Config(os) [] delim=:
            Y!G@os_family|C@roles  yaml Config(os_family|C) [] delim=:
            C@tpl:lookup           raw Config(tpl:lookup) ["C"] delim=:
            C:SUB@tpl:lookup       raw Config(tpl:lookup) ["SUB"] delim=:
            I@tpl                  raw Pillar(tpl) ["C"] delim=:
            G:X:!@a!b              raw Grains(a!b) ["X"] delim=!
            roles                  yaml Config(roles) [] delim=:
            defaults.yaml          yaml Config(defaults.yaml) [] delim=:
            a@b@c                  yaml Config(b) [] delim=:
            Y:I:x:y:z@q            yaml Config(q) [] delim=:
            Y:Q@q                  error UndefinedError: 'dict object' has no attribute 'Q' (no lookup for `Y:Q@q`)"#]]
        .assert_eq(&out.join("\n"));
    }

    #[test]
    fn suffixes_are_pathlibs() {
        let got: Vec<&str> = ["a/b.yaml", "a/Ubuntu-22.04", "a/.hidden", "a/b.", "a/b.yaml/", "yaml", "a.b/c"].iter().map(|p| path_suffix(p)).collect();
        assert_eq!(got, [".yaml", ".04", "", "", ".yaml", "", ""]);
    }
}
