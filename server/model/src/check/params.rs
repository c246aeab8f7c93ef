//! Diagnostics in formulas' `parameters/` layer files (`<tplroot>/parameters/**.yaml`, and the
//! global `parameters/`), by the rules of the implementation the formula uses
//! ([`crate::mapstack::detect`]):
//!
//! * YAML errors (`yaml-syntax`);
//! * top-level keys other than `values`, `strategy` and `merge_lists`: saltext-formula's
//!   `map.data` raises on them, and on a file that is empty or not a mapping
//!   (`mapdata-error`); `libmapstack.jinja` ignores them (a `parameters-layer` warning);
//! * a `strategy` `slsutil.merge` does not know (Salt logs it and merges recursively; a
//!   warning);
//! * a directory of `<tplroot>/parameters/` that no data source can select (`osfamily/` when
//!   the sources say `os_family`): a warning on each of its files. The sources are the
//!   implementation's defaults and every source any plain `map_jinja.yaml` lists; a formula
//!   with a templated `map_jinja.yaml.jinja` or its own `parameter_dirs` is not judged.
//!
//! Files with Jinja are not checked (what they load as depends on the minion).

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use crate::diagnostic::{Code, Diagnostic};
use crate::mapstack::{default_sources, detect, selectable_name, Implementation};
use crate::value::{Val, V};
use crate::workspace::roots::FileRoots;
use crate::workspace::vfs::{FileTable, Vfs};

/// The strategies `salt.utils.dictupdate.merge` knows.
const STRATEGIES: [&str; 6] = ["smart", "recurse", "overwrite", "list", "aggregate", "none"];

/// One layer file: its path under the roots and on disk.
struct LayerFile {
    rel: String,
    path: PathBuf,
}

/// Adds the diagnostics of every `parameters/` file of every environment to `out`.
pub fn check_parameters(fs: &dyn Vfs, roots: &FileRoots, files: &mut FileTable, out: &mut Vec<Diagnostic>) {
    for (env, e) in &roots.envs {
        // Formula (`""` for the global `parameters/`) -> its files, the first root winning.
        let mut formulas: BTreeMap<String, Vec<LayerFile>> = BTreeMap::new();
        let mut seen = BTreeSet::new();
        for (listed, root) in e.files.iter().zip(&e.roots) {
            for rel in listed {
                let tplroot = match rel.split_once('/') {
                    Some(("parameters", _)) => "",
                    Some((t, rest)) if rest.starts_with("parameters/") => t,
                    _ => continue,
                };
                if seen.insert(rel.clone()) {
                    formulas.entry(tplroot.to_string()).or_default().push(LayerFile { rel: rel.clone(), path: root.join(rel) });
                }
            }
        }
        let global_sources = map_jinja_sources(fs, files, formulas.get("").map(Vec::as_slice).unwrap_or_default());
        for (tplroot, layer_files) in &formulas {
            // A formula whose map.jinja builds its map itself reads no `parameters/` stack.
            let implementation =
                (!tplroot.is_empty()).then(|| detect(fs, roots, env, tplroot)).filter(|i| matches!(i, Implementation::Saltext | Implementation::Jinja));
            for f in layer_files {
                check_file(fs, files, f, implementation, out);
            }
            if let (Some(implementation), Some(global)) = (implementation, &global_sources) {
                if let Some(own) = map_jinja_sources(fs, files, layer_files) {
                    unselectable_dirs(tplroot, implementation, global.iter().chain(&own), layer_files, out);
                }
            }
        }
    }
}

/// The sources the plain `map_jinja.yaml` files among `layer_files` list; `None` when one is
/// templated, sets `parameter_dirs`, or lists something other than strings.
fn map_jinja_sources(fs: &dyn Vfs, files: &mut FileTable, layer_files: &[LayerFile]) -> Option<Vec<String>> {
    let mut out = Vec::new();
    for f in layer_files.iter().filter(|f| f.rel.ends_with("parameters/map_jinja.yaml") || f.rel.ends_with("parameters/map_jinja.yaml.jinja")) {
        if f.rel.split('/').filter(|c| *c == "parameters").count() != 1 || f.rel.split('/').count() > 3 {
            continue;
        }
        let text = fs.read(&f.path).ok()?;
        if f.rel.ends_with(".jinja") || crate::render::is_templated(&text) {
            return None;
        }
        let id = files.add(f.path.clone(), text.as_str().into());
        let Ok(data) = crate::render::load_yaml(&text, id) else { continue };
        let Some(values) = data.as_dict().and_then(|d| d.get("values")).and_then(Val::as_dict) else { continue };
        if values.get("parameter_dirs").is_some() {
            return None;
        }
        match values.get("sources").map(|s| &s.v) {
            Some(V::List(items)) => {
                for item in items {
                    let V::Str(s) = &item.v else { return None };
                    out.push(s.clone());
                }
            }
            Some(_) => return None,
            None => {}
        }
    }
    Some(out)
}

/// A warning on every file of a directory of `<tplroot>/parameters/` no source selects.
fn unselectable_dirs<'s>(
    tplroot: &str,
    implementation: Implementation,
    listed: impl Iterator<Item = &'s String>,
    layer_files: &[LayerFile],
    out: &mut Vec<Diagnostic>,
) {
    let sources: Vec<String> = default_sources(implementation, tplroot).into_iter().chain(listed.cloned()).collect();
    let names: BTreeSet<String> = sources.iter().filter_map(|s| selectable_name(implementation, s)).collect();
    let prefix = format!("{tplroot}/parameters/");
    for f in layer_files {
        let Some((dir, _)) = f.rel.strip_prefix(&prefix).and_then(|rest| rest.split_once('/')) else { continue };
        if names.contains(dir) {
            continue;
        }
        let mut yaml: Vec<&str> = Vec::new();
        for s in sources.iter().filter(|s| selectable_name(implementation, s).is_some()) {
            if !yaml.contains(&s.as_str()) {
                yaml.push(s);
            }
        }
        out.push(warning(
            f,
            0..0,
            format!(
                "`{prefix}{dir}/` is never loaded: none of the data sources of `{tplroot}` ({} implementation) selects it (sources that load files: {})",
                implementation.as_str(),
                yaml.join(", ")
            ),
        ));
    }
}

fn warning(f: &LayerFile, span: std::ops::Range<usize>, message: String) -> Diagnostic {
    Diagnostic {
        file: f.path.clone(),
        span,
        severity: Code::ParametersLayer.severity(),
        code: Code::ParametersLayer,
        message,
        related: Vec::new(),
        fix: Vec::new(),
    }
}

/// The checks of one layer file's own text.
fn check_file(fs: &dyn Vfs, files: &mut FileTable, f: &LayerFile, implementation: Option<Implementation>, out: &mut Vec<Diagnostic>) {
    if !(f.rel.ends_with(".yaml") || f.rel.ends_with(".yaml.jinja")) {
        return;
    }
    let Ok(text) = fs.read(&f.path) else { return };
    if crate::render::is_templated(&text) {
        return;
    }
    let id = files.add(f.path.clone(), text.as_str().into());
    let data = match crate::render::load_yaml(&text, id) {
        Ok(d) => d,
        Err(e) => {
            let span = e.loc.as_ref().map_or(0..0, |l| l.span.clone());
            out.push(Diagnostic { file: f.path.clone(), span, severity: e.severity(), code: e.code, message: e.message, related: Vec::new(), fix: Vec::new() });
            return;
        }
    };
    let saltext = implementation == Some(Implementation::Saltext);
    let raise = |why: String, span: std::ops::Range<usize>| Diagnostic {
        file: f.path.clone(),
        span,
        severity: Code::MapData.severity(),
        code: Code::MapData,
        message: format!("map.data raises TypeError: Got invalid data from salt://{}: {why}", f.rel),
        related: Vec::new(),
        fix: Vec::new(),
    };
    let Some(dict) = data.as_dict() else {
        if saltext {
            out.push(raise(format!("MatcherResult.__init__() argument after ** must be a mapping, not {}", data.py_type()), 0..0));
        }
        return;
    };
    for (k, v) in &dict.0 {
        let span = k.at.as_ref().map_or(0..0, |l| l.span.clone());
        let key = match &k.v {
            V::Str(s) => s.clone(),
            _ => k.py_str(),
        };
        match key.as_str() {
            "values" => {}
            "merge_lists" => {}
            "strategy" => check_strategy(f, v, out),
            other if saltext => out.push(raise(format!("MatcherResult.__init__() got an unexpected keyword argument '{other}'"), span)),
            other if implementation == Some(Implementation::Jinja) => out.push(warning(
                f,
                span,
                format!("`{other}` is ignored: libmapstack.jinja reads only `values`, `strategy` and `merge_lists` from a layer file"),
            )),
            _ => {}
        }
    }
}

/// A warning on a `strategy` `slsutil.merge` does not know.
fn check_strategy(f: &LayerFile, v: &Val, out: &mut Vec<Diagnostic>) {
    if matches!(&v.v, V::Str(s) if STRATEGIES.contains(&s.as_str())) {
        return;
    }
    let span = v.at.as_ref().map_or(0..0, |l| l.span.clone());
    out.push(warning(f, span, format!("Unknown merging strategy '{}', fallback to recurse (slsutil.merge knows {})", v.py_str(), STRATEGIES.join(", "))));
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use expect_test::{expect, Expect};

    use super::*;
    use crate::workspace::vfs::MemFs;
    use crate::workspace::Workspace;

    /// The diagnostics of a `#- path` fixture rooted at `/ws`, as `file:line:col code: message`;
    /// `$0` in a file marks where the first diagnostic of that file must start.
    fn check(fixture: &str, expect: Expect) {
        let marked: Vec<(String, usize)> = fixture
            .split("#- ")
            .filter_map(|part| {
                let (path, body) = part.split_once('\n')?;
                body.find("$0").map(|at| (format!("/ws/{}", path.trim()), at))
            })
            .collect();
        let fs = MemFs::from_fixture(&fixture.replace("$0", ""));
        let ws = Workspace::load(&fs, Path::new("/ws"), None).expect("workspace");
        let roots = FileRoots::scan(&fs, &ws.opts.file_roots);
        let mut files = FileTable::default();
        let mut out = Vec::new();
        check_parameters(&fs, &roots, &mut files, &mut out);
        for (path, at) in marked {
            let first = out.iter().find(|d| d.file == Path::new(&path)).unwrap_or_else(|| panic!("no diagnostic in {path}"));
            assert_eq!(first.span.start, at, "{path}: {first:?}");
        }
        let lines: Vec<String> = out
            .iter()
            .map(|d| {
                let (line, col) = files.id(&d.file).map_or((1, 1), |id| files.human(id, d.span.start));
                format!("{}:{line}:{col} {}: {}", d.file.display().to_string().trim_start_matches("/ws/"), d.code.as_str(), d.message)
            })
            .collect();
        expect.assert_eq(&lines.join("\n"));
    }

    #[test]
    fn saltext_layers_raise_jinja_layers_ignore() {
        check(
            r#"
#- salt-analyzer.yaml
file_roots: {base: [srv]}
#- srv/ext/map.jinja
{%- set mapdata = salt["map.data"](tpldir) %}
#- srv/ext/parameters/defaults.yaml
values: {a: 1}
$0extra: 1
strategy: merge
#- srv/ext/parameters/os_family/Debian.yaml
#- srv/tf/map.jinja
{%- from tplroot ~ "/libmapstack.jinja" import mapstack %}
#- srv/tf/libmapstack.jinja
#- srv/tf/parameters/defaults.yaml
values: {a: 1}
$0extra: 1
#- srv/tf/parameters/os/Debian.yaml
values: [a
#- srv/tf/parameters/roles/web.yaml.jinja
values: {{ grains.id }}
"#,
            expect![[r#"
                srv/ext/parameters/defaults.yaml:2:1 mapdata-error: map.data raises TypeError: Got invalid data from salt://ext/parameters/defaults.yaml: MatcherResult.__init__() got an unexpected keyword argument 'extra'
                srv/ext/parameters/defaults.yaml:3:11 parameters-layer: Unknown merging strategy 'merge', fallback to recurse (slsutil.merge knows smart, recurse, overwrite, list, aggregate, none)
                srv/ext/parameters/os_family/Debian.yaml:1:1 mapdata-error: map.data raises TypeError: Got invalid data from salt://ext/parameters/os_family/Debian.yaml: MatcherResult.__init__() argument after ** must be a mapping, not NoneType
                srv/tf/parameters/defaults.yaml:2:1 parameters-layer: `extra` is ignored: libmapstack.jinja reads only `values`, `strategy` and `merge_lists` from a layer file
                srv/tf/parameters/os/Debian.yaml:2:1 yaml-syntax: while parsing a flow sequence, expected ',' or ']'; line 2
                srv/tf/parameters/roles/web.yaml.jinja:1:1 parameters-layer: `tf/parameters/roles/` is never loaded: none of the data sources of `tf` (jinja implementation) selects it (sources that load files: Y:G@osarch, Y:G@os_family, Y:G@os, Y:G@osfinger, Y:G@id)"#]],
        );
    }

    #[test]
    fn a_directory_no_source_selects() {
        check(
            r#"
#- salt-analyzer.yaml
file_roots: {base: [srv]}
#- srv/tf/map.jinja
#- srv/tf/libmapstack.jinja
#- srv/tf/parameters/osfamily/Debian.yaml
$0values: {a: 1}
#- srv/tf/parameters/os_family/Debian.yaml
values: {a: 1}
#- srv/tf/parameters/roles/web.yaml
values: {a: 1}
#- srv/tf/parameters/map_jinja.yaml
values:
  sources: [Y:G@os_family, Y:I@roles, C@tf]
#- srv/ext/parameters/dns!domain/example.net.yaml
values: {a: 1}
#- srv/ext/parameters/roles/web.yaml
values: {a: 1}
#- srv/parameters/map_jinja.yaml
values:
  sources: [Y!G::!@dns!domain]
"#,
            expect![[r#"
                srv/ext/parameters/roles/web.yaml:1:1 parameters-layer: `ext/parameters/roles/` is never loaded: none of the data sources of `ext` (saltext implementation) selects it (sources that load files: Y!G@osarch, Y!G@os_family, Y!G@os, Y!G@osfinger, Y!G@id, Y!G::!@dns!domain)
                srv/tf/parameters/osfamily/Debian.yaml:1:1 parameters-layer: `tf/parameters/osfamily/` is never loaded: none of the data sources of `tf` (jinja implementation) selects it (sources that load files: Y:G@osarch, Y:G@os_family, Y:G@os, Y:G@osfinger, Y:G@id, Y!G::!@dns!domain, Y:I@roles)"#]],
        );
    }
}
