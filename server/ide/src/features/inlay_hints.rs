//! Inlay hints of rendered values: for the selected minion, what each Jinja block of a file
//! took when the pipeline rendered it (`model::render::probe::trace`): the value of a
//! `{{ expr }}`, whether an `{% if %}`/`{% elif %}` condition held, how many times a
//! `{% for %}` body ran, the value a `{% set %}` bound. A block the render never reached has
//! no hint, and a file the minion's highstate does not read has none at all: nothing is
//! guessed.

use std::collections::HashMap;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use model::pipeline::{ProbeAt, Scope};
use model::render::probe::{Tally, TraceKind, TracePoint};

use crate::snapshot::Snapshot;
use crate::types::Cancellable;

/// The kinds of hint, each of which can be turned off.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum InlayKind {
    /// The value of a `{{ expr }}`.
    Value,
    /// Whether an `if`/`elif` condition held.
    Condition,
    /// How many times a `for` body ran.
    Loop,
    /// The value a `set` bound.
    Set,
}

/// Which kinds are shown (all by default).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct InlayConfig {
    pub values: bool,
    pub conditions: bool,
    pub loops: bool,
    pub sets: bool,
}

impl Default for InlayConfig {
    fn default() -> Self {
        InlayConfig { values: true, conditions: true, loops: true, sets: true }
    }
}

impl InlayConfig {
    fn shows(&self, kind: InlayKind) -> bool {
        match kind {
            InlayKind::Value => self.values,
            InlayKind::Condition => self.conditions,
            InlayKind::Loop => self.loops,
            InlayKind::Set => self.sets,
        }
    }
}

/// One hint: shown at `offset` (just after its block), `label` short, `tooltip` the whole.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InlayHint {
    pub offset: usize,
    pub kind: InlayKind,
    pub label: String,
    pub tooltip: String,
}

/// The longest label, in characters; longer ones end with `…`.
const MAX_LABEL: usize = 32;

/// The hints of the blocks of `path` that end inside `range`, for the selected minion.
pub(crate) fn inlay_hints(snap: &Snapshot, path: &Path, range: Range<usize>, config: InlayConfig) -> Cancellable<Vec<InlayHint>> {
    let Some(text) = snap.text(path) else { return Ok(Vec::new()) };
    if !model::render::is_templated(&text) {
        return Ok(Vec::new());
    }
    // Only a file the minion's highstate reads: anything else would be a guess.
    let serial = snap.with_highstate(|idx| idx.highstate.compiled().filter(|c| c.files.id(path).is_some()).map(|c| c.serial))?;
    let Some(serial) = serial else { return Ok(Vec::new()) };
    let Some(traced) = traced(snap, path, &text, serial) else { return Ok(Vec::new()) };
    let Traced { minion, points, tallies } = &*traced;
    let empty = Tally::default();
    let tally = |i: usize| tallies.get(i).unwrap_or(&empty);
    let mut out = Vec::new();
    for p in points.iter().filter(|p| p.block.end >= range.start && p.block.end <= range.end) {
        let t = tally(p.index);
        if t.count == 0 {
            continue;
        }
        let (kind, label, tooltip) = match p.kind {
            TraceKind::Value => {
                let label = one_of(&t.values);
                (InlayKind::Value, label, format!("For `{minion}`, this printed {}", listed(&t.values)))
            }
            TraceKind::Set => (InlayKind::Set, format!("= {}", one_of(&t.values)), format!("For `{minion}`, this set {}", listed(&t.values))),
            TraceKind::Condition => {
                let label = match (t.truthy, t.count - t.truthy) {
                    (_, 0) => "true".to_string(),
                    (0, _) => "false".to_string(),
                    (yes, no) => format!("true ×{yes}, false ×{no}"),
                };
                (InlayKind::Condition, label.clone(), format!("For `{minion}`, the condition was {label} ({} time(s) evaluated)", t.count))
            }
            TraceKind::Loop { filter } => {
                let runs = match filter {
                    Some(f) => tally(f).truthy,
                    None => t.len_total,
                };
                let label = if t.count == 1 { plural(runs, "iteration") } else { format!("{} in {} passes", plural(runs, "iteration"), t.count) };
                (InlayKind::Loop, label.clone(), format!("For `{minion}`, the loop body ran {label}"))
            }
        };
        if config.shows(kind) {
            out.push(InlayHint { offset: p.block.end, kind, label: shorten(&label), tooltip });
        }
    }
    Ok(out)
}

/// What tracing a file's render gave.
struct Traced {
    minion: String,
    points: Vec<TracePoint>,
    tallies: Vec<Tally>,
}

/// The last trace of each file, kept while the highstate compile it was made beside and the
/// file's text are the same: that compile gets a new serial whenever anything it read changes
/// (the minion, its grains and pillar, a file or import it rendered), and the file's render
/// reads nothing the compile did not.
#[derive(Default)]
struct Traces(Mutex<HashMap<PathBuf, Kept>>);

/// A trace, with the highstate compile's serial and the file's text it was made for.
type Kept = (u64, Arc<str>, Arc<Traced>);

/// The most files whose trace is kept.
const KEPT: usize = 64;

fn traced(snap: &Snapshot, path: &Path, text: &Arc<str>, serial: u64) -> Option<Arc<Traced>> {
    let cache = snap.shared.cache::<Traces>();
    if let Some((s, t, kept)) = cache.0.lock().unwrap_or_else(|p| p.into_inner()).get(path) {
        if *s == serial && t == text {
            return Some(kept.clone());
        }
    }
    let compiled = snap.compile(Scope::Render { path: path.to_path_buf(), probe: Some(ProbeAt::Every) });
    let minion = compiled.minion.as_ref().ok()?.id.clone();
    let (points, tallies) = compiled.rendered.and_then(|r| r.traced)?;
    let traced = Arc::new(Traced { minion, points, tallies });
    let mut map = cache.0.lock().unwrap_or_else(|p| p.into_inner());
    if map.len() >= KEPT {
        map.clear();
    }
    map.insert(path.to_path_buf(), (serial, text.clone(), traced.clone()));
    Some(traced)
}

/// The value, or the first with how many there were.
fn one_of(values: &[String]) -> String {
    let first = values.first().map(|v| v.replace(['\n', '\r'], "⏎")).unwrap_or_default();
    match values.len() {
        0 | 1 => first,
        n if n >= Tally::MAX_VALUES => format!("{first} (+{}+ more)", n - 1),
        n => format!("{first} (+{} more)", n - 1),
    }
}

/// The values for a tooltip: one, or each on its line.
fn listed(values: &[String]) -> String {
    match values {
        [one] => format!("`{one}`"),
        many => format!("{} values:\n{}", many.len(), many.iter().map(|v| format!("- `{v}`")).collect::<Vec<_>>().join("\n")),
    }
}

fn plural(n: usize, what: &str) -> String {
    if n == 1 {
        format!("1 {what}")
    } else {
        format!("{n} {what}s")
    }
}

/// `label` cut to [`MAX_LABEL`] characters.
fn shorten(label: &str) -> String {
    match label.char_indices().nth(MAX_LABEL) {
        Some((cut, _)) => format!("{}…", &label[..cut]),
        None => label.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use expect_test::expect;

    use super::*;
    use crate::fixture::Fixture;

    fn check(fixture: &str, config: InlayConfig, expect: expect_test::Expect) {
        let f = Fixture::new(fixture);
        let (path, _) = f.cursor();
        let analysis = f.analysis();
        let text = analysis.text(&path).unwrap();
        let hints = analysis.inlay_hints(&path, 0..text.len(), config).unwrap();
        let shown: Vec<String> = hints
            .iter()
            .map(|h| {
                let line = text[..h.offset].lines().last().unwrap_or_default();
                format!("{line} ⟨{}⟩", h.label)
            })
            .collect();
        expect.assert_eq(&shown.join("\n"));
    }

    #[test]
    fn values_conditions_loops_and_sets_for_the_minion() {
        check(
            r#"
#- salt-analyzer.yaml
file_roots: {base: [srv]}
minions:
  web01: {grains: {os_family: Debian, roles: [web, ℝ]}, pillar: {sites: {a: 1, ß: 2, c: 3}}}
default_minion: web01
#- srv/top.sls
base:
  '*': [web]
#- srv/web.sls
{%- set pkg = 'nginx' if grains.os_family == 'Debian' else 'httpd' %}
{%- if grains.os_family == 'RedHat' %}
never: {test.nop: []}
{%- elif 'ℝ' in grains.roles %}
{%- for site in pillar.sites if site != 'c' %}
site-{{ site }}: {test.nop: [{name: "{{ pkg }} 💣"}]}
{%- endfor %}
{%- endif %}
{%- for r in grains.roles %}{% endfor %}
{{ pkg }}: {pkg.installed: []}$0
"#,
            InlayConfig::default(),
            expect![[r#"
                {%- set pkg = 'nginx' if grains.os_family == 'Debian' else 'httpd' %} ⟨= nginx⟩
                {%- if grains.os_family == 'RedHat' %} ⟨false⟩
                {%- elif 'ℝ' in grains.roles %} ⟨true⟩
                {%- for site in pillar.sites if site != 'c' %} ⟨2 iterations⟩
                site-{{ site }} ⟨a (+1 more)⟩
                site-{{ site }}: {test.nop: [{name: "{{ pkg }} ⟨nginx⟩
                {%- for r in grains.roles %} ⟨2 iterations⟩
                {{ pkg }} ⟨nginx⟩"#]],
        );
    }

    #[test]
    fn kinds_can_be_turned_off_and_unreached_blocks_have_none() {
        check(
            r#"
#- salt-analyzer.yaml
file_roots: {base: [srv]}
minions:
  web01: {grains: {os_family: Debian}}
default_minion: web01
#- srv/top.sls
base:
  '*': [web]
#- srv/web.sls
{%- if grains.os_family == 'RedHat' %}
{%- set x = 1 %}
x-{{ x }}: {test.nop: []}
{%- endif %}
{%- for i in [1, 2, 3] %}
n{{ i }}: {test.nop: []}
{%- endfor %}$0
"#,
            InlayConfig { values: false, ..InlayConfig::default() },
            expect![[r#"
                {%- if grains.os_family == 'RedHat' %} ⟨false⟩
                {%- for i in [1, 2, 3] %} ⟨3 iterations⟩"#]],
        );
    }

    #[test]
    fn a_file_the_minion_does_not_render_has_no_hints() {
        check(
            r#"
#- salt-analyzer.yaml
file_roots: {base: [srv]}
minions:
  web01: {grains: {os_family: Debian}}
default_minion: web01
#- srv/top.sls
base:
  '*': [web]
#- srv/web.sls
a: {test.nop: []}
#- srv/other.sls
{{ grains.os_family }}: {test.nop: []}$0
"#,
            InlayConfig::default(),
            expect![""],
        );
    }
}
