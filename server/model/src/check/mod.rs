//! `salt-analyzer check`: every structural mistake Salt would report at apply time, found
//! statically for each SLS file's include closure, as diagnostics with file and span.

pub mod baseline;
pub mod highstate;
pub mod params;
pub mod recheck;
pub mod style;
pub mod summary;
pub mod suppress;
pub mod tops;

use std::collections::{BTreeMap, HashSet};
use std::path::PathBuf;

use crate::diagnostic::{Code, Diagnostic, Related, SaltError, Severity};
use crate::state::calls::call_errors;
use crate::state::catalog::{workspace_catalog, Catalog};
use crate::state::chunk::Chunk;
use crate::state::highstate::{Builder, HighState};
use crate::state::lowstate::{apply_chunks, pick_errors, static_errors};
use crate::state::order::ordering_errors;
use crate::targeting::Matches;
use crate::value::{Dict, FileId, Loc};
use crate::workspace::roots::{dotted_component, sls_name_of, FileRoots};
use crate::workspace::vfs::{FileTable, Vfs};
use crate::workspace::Workspace;

/// The result of checking a tree: diagnostics sorted by file and position, and the files read.
pub struct CheckResult {
    pub diagnostics: Vec<Diagnostic>,
    pub files: FileTable,
}

/// What every per-root check needs: the scanned roots and the dotted names.
#[derive(Clone)]
pub struct CheckContext {
    /// Shared with the minion compiles (`pipeline::compile`) that run over the same listing.
    pub roots: std::sync::Arc<FileRoots>,
    /// `(env, listed name)` of files that can never be loaded, to their relative path.
    pub dotted_names: BTreeMap<(String, String), String>,
    pub top_file: String,
    /// Pillar roots inside a file root (`pillar/` of a repository whose root serves `base`),
    /// and the pillar data and other top files zero configuration found: never checked as
    /// states.
    pub pillar_dirs: Vec<PathBuf>,
    /// The minions' pillars and rendered files, shared by every compile over this listing (see
    /// [`crate::pipeline::Memo`]).
    pub memo: crate::pipeline::Memo,
}

/// One root SLS file's result: its diagnostics (in any file of its closure) and the files its
/// closure read, so a caller can recompute only the roots whose closure contains a change.
pub struct RootCheck {
    pub diagnostics: Vec<Diagnostic>,
    pub closure: Vec<PathBuf>,
}

impl CheckContext {
    pub fn new(fs: &dyn Vfs, ws: &Workspace) -> CheckContext {
        CheckContext::over(std::sync::Arc::new(FileRoots::scan(fs, &ws.opts.served_roots())), ws)
    }

    /// The context of roots the caller already scanned (`FileRoots::scan` of the workspace's
    /// served roots).
    pub fn over(roots: std::sync::Arc<FileRoots>, ws: &Workspace) -> CheckContext {
        let served: Vec<&PathBuf> = roots.envs.values().flat_map(|e| &e.roots).collect();
        // The pillar roots inside the file roots, and the pillar data and other top files zero
        // configuration found.
        let found_data = ws.discovery.iter().flat_map(|d| d.pillar_data.iter().chain(&d.other_tops));
        let pillar_dirs: Vec<PathBuf> =
            ws.opts.pillar_roots.values().flatten().chain(found_data).filter(|p| served.iter().any(|r| p.starts_with(r) && *p != *r)).cloned().collect();
        let mut dotted_names = BTreeMap::new();
        for (env, rel, path) in roots.sls_files() {
            let Some(name) = sls_name_of(&rel) else { continue };
            if pillar_dirs.iter().any(|p| path.starts_with(p)) {
                continue;
            }
            if dotted_component(&rel).is_some() && roots.get_state(&env, &name).map(|f| f.path) != Some(path) {
                dotted_names.insert((env, name), rel);
            }
        }
        let top_file = ws.opts.state_top.trim_start_matches("salt://").trim_start_matches('/').to_string();
        CheckContext { roots, dotted_names, top_file, pillar_dirs, memo: Default::default() }
    }

    /// Every `(env, relative path, absolute path)` the checker treats as a root: every SLS
    /// file a name loads, but those of a pillar tree inside the file roots.
    pub fn root_files(&self) -> Vec<(String, String, PathBuf)> {
        let mut files = self.roots.sls_files();
        files.retain(|(_, _, path)| !self.pillar_dirs.iter().any(|p| path.starts_with(p)));
        files
    }

    /// Check one SLS file as the root of an include closure (what `state.sls NAME` loads).
    pub fn check_root(&self, fs: &dyn Vfs, ws: &Workspace, files: &mut FileTable, env: &str, rel: &str, path: &std::path::Path) -> RootCheck {
        match self.compile_root(fs, ws, files, env, rel, path) {
            Ok((check, ..)) => check,
            Err(done) => done,
        }
    }

    /// The static compile behind [`CheckContext::check_root`]: the root's check, its rendered
    /// high data, that data's [`ordering_errors`], the root's call problems and whether the
    /// apply steps got through (what a recheck starts from), or the
    /// whole result when the root is not compiled.
    pub(crate) fn compile_root(
        &self,
        fs: &dyn Vfs,
        ws: &Workspace,
        files: &mut FileTable,
        env: &str,
        rel: &str,
        path: &std::path::Path,
    ) -> Result<RootCompile, RootCheck> {
        let name = self.root_name(env, rel, path)?;
        let matches = Matches::from([(env.to_string(), vec![name])]);
        let mut builder = Builder::new(fs, &self.roots, &ws.opts, files);
        builder.static_mode = true;
        let highstate = builder.render_highstate(&matches);
        let ordering = ordering_errors(&highstate.high);
        let (show, apply, applies) = static_errors(&highstate, &ordering, ws.opts.version);
        let mut calls = root_call_errors(&workspace_catalog(fs, &self.roots, &ws.opts), &highstate, files, path, ws.opts.version);
        crate::state::calls::weigh_by_release(&mut calls, &ws.opts.version_source);
        let check = self.diagnose(&root_errors(&show, &apply, &calls), &highstate, files, path);
        Ok((check, highstate, ordering, calls, applies))
    }

    /// The SLS name a root file is compiled as, or its whole result when it is not compiled
    /// (a dotted name that can never load, the top file).
    fn root_name(&self, env: &str, rel: &str, path: &std::path::Path) -> Result<String, RootCheck> {
        let Some(name) = sls_name_of(rel) else { return Err(RootCheck { diagnostics: Vec::new(), closure: Vec::new() }) };
        if let Some(component) = dotted_component(rel) {
            if self.dotted_names.contains_key(&(env.to_string(), name.clone())) {
                let diagnostics = vec![Diagnostic {
                    file: path.to_path_buf(),
                    span: 0..0,
                    severity: Severity::Error,
                    code: Code::DottedSlsName,
                    message: dotted_message(rel, &name, component),
                    related: Vec::new(),
                    fix: Vec::new(),
                }];
                return Err(RootCheck { diagnostics, closure: vec![path.to_path_buf()] });
            }
        }
        if rel == self.top_file {
            return Err(RootCheck { diagnostics: Vec::new(), closure: vec![path.to_path_buf()] });
        }
        Ok(name)
    }

    /// A compiled root's diagnostics: `errors` (as [`pick_errors`] picks them) placed in
    /// the files of `files`, and the closure `highstate` rendered.
    pub(crate) fn diagnose(&self, errors: &[SaltError], highstate: &HighState, files: &FileTable, path: &std::path::Path) -> RootCheck {
        let mut out = Vec::new();
        let templated = highstate.rendered.iter().any(|r| r.templated);
        let root_loc = files.id(path).map(|file| Loc { file, span: 0..0 });
        for e in errors {
            if e.loc.is_none() && root_loc.is_none() {
                // The root itself could not be read: report it at its first line.
                out.push(Diagnostic {
                    file: path.to_path_buf(),
                    span: 0..0,
                    severity: e.severity(),
                    code: e.code,
                    message: e.message.clone(),
                    related: Vec::new(),
                    fix: Vec::new(),
                });
                continue;
            }
            convert(e, files, root_loc.as_ref(), templated, &self.dotted_names, &mut out);
        }
        let closure = highstate.rendered.iter().filter_map(|r| r.file.as_ref().map(|f| f.path.clone())).collect();
        RootCheck { diagnostics: out, closure }
    }
}

/// [`CheckContext::compile_root`]'s result: the root's check, its rendered high data, that
/// data's ordering errors, the root's call problems and whether the apply steps got through.
pub(crate) type RootCompile = (RootCheck, HighState, Vec<SaltError>, Vec<SaltError>, bool);

/// What a root's check reports of its compiled closure: the static pipeline's errors
/// ([`static_errors`]' `show` and `apply`, as [`pick_errors`] picks them), then the call
/// problems of the states the root declares (`calls`, from [`root_call_errors`]).
pub(crate) fn root_errors(show: &[SaltError], apply: &[SaltError], calls: &[SaltError]) -> Vec<SaltError> {
    let mut errors: Vec<SaltError> = pick_errors(show, apply).into_iter().cloned().collect();
    errors.extend(calls.iter().cloned());
    errors
}

/// The call problems ([`call_errors`]) of the states `path` itself declares, judged on the
/// chunks of its whole include closure (another file may `extend` them), when `extend`, `_in`
/// and `use` go through (a missing include elsewhere does not hide them).
pub(crate) fn root_call_errors(
    catalog: &Catalog,
    highstate: &HighState,
    files: &FileTable,
    path: &std::path::Path,
    version: crate::version::SaltVersion,
) -> Vec<SaltError> {
    let Some(root) = judged_root(highstate, files, path) else { return Vec::new() };
    let Ok(chunks) = apply_chunks(&highstate.high, version) else { return Vec::new() };
    root_calls(catalog, &highstate.high, &chunks, root)
}

/// The root file whose states' calls a root check judges: none when it was not read, or when
/// it is templated (statically its data is only partly known: the minion's rendered highstate
/// judges it).
pub(crate) fn judged_root(highstate: &HighState, files: &FileTable, path: &std::path::Path) -> Option<FileId> {
    let templated = highstate.rendered.iter().any(|r| r.templated && r.file.as_ref().is_some_and(|f| f.path == path));
    files.id(path).filter(|_| !templated)
}

/// The call problems of `chunks` (made from `high`) placed in the root file `root`.
pub(crate) fn root_calls(catalog: &Catalog, high: &Dict, chunks: &[Chunk], root: FileId) -> Vec<SaltError> {
    call_errors(high, chunks, catalog, &|loc| loc.is_none_or(|l| l.file != root))
}

/// The diagnostics of one error of a fully rendered compilation (a minion's highstate), as
/// [`CheckContext::check_root`] reports its own: a duplicate ID at both declarations, a cycle
/// at every member, a missing include of a dotted name as `dotted-sls-name`. An error without
/// a location goes to `fallback`, or is dropped when there is none. Nothing is suppressed for
/// templates, since the templates were rendered for real.
pub fn error_diagnostics(e: &SaltError, files: &FileTable, fallback: Option<&Loc>, dotted: &BTreeMap<(String, String), String>) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    convert(e, files, fallback, false, dotted, &mut out);
    out
}

/// Sort by file and position and drop repeats (a file is in many closures).
pub fn normalize(diagnostics: &mut Vec<Diagnostic>) {
    normalize_by(diagnostics, |d| d);
}

/// [`normalize`] for items that each hold a diagnostic (and more, kept with it).
pub fn normalize_by<T>(items: &mut Vec<T>, diagnostic: impl Fn(&T) -> &Diagnostic) {
    let mut seen = HashSet::new();
    items.retain(|x| {
        let d = diagnostic(x);
        seen.insert((d.file.clone(), d.span.start, d.code, d.message.clone()))
    });
    items.sort_by(|a, b| {
        let (a, b) = (diagnostic(a), diagnostic(b));
        (&a.file, a.span.start, a.code).cmp(&(&b.file, b.span.start, b.code))
    });
}

/// Check every loadable SLS file of every environment of the workspace.
pub fn check_workspace(fs: &dyn Vfs, ws: &Workspace) -> CheckResult {
    check_with(fs, ws, &CheckContext::new(fs, ws))
}

/// [`check_workspace`] with a context the caller made (and shares with minion compiles).
pub fn check_with(fs: &dyn Vfs, ws: &Workspace, ctx: &CheckContext) -> CheckResult {
    let mut files = FileTable::default();
    let mut out: Vec<Diagnostic> = Vec::new();
    let roots = ctx.root_files();
    for (env, rel, path) in &roots {
        out.extend(ctx.check_root(fs, ws, &mut files, env, rel, path).diagnostics);
    }
    // salt-lint's text rules, on each file of the file and pillar roots they read, as written.
    let mut linted = std::collections::HashSet::new();
    let in_roots = ctx.roots.envs.values().flat_map(|e| e.roots.iter().zip(&e.files).flat_map(|(root, files)| files.iter().map(move |f| root.join(f))));
    let in_pillar = ws.opts.pillar_roots.values().flatten().flat_map(|root| fs.walk(root).into_iter().map(move |f| root.join(f)));
    for path in in_roots.chain(in_pillar) {
        if crate::check::style::lang(&path).is_none() || !linted.insert(path.clone()) {
            continue;
        }
        if let Some(text) = files.shared_text(&path).or_else(|| fs.read(&path).ok().map(Into::into)) {
            let rel = path.strip_prefix(&ws.root).unwrap_or(&path).to_string_lossy().replace('\\', "/");
            out.extend(crate::check::style::lint(&path, &text, &ws.rules, &rel));
        }
    }
    crate::check::tops::check_tops(fs, &ws.opts, &ctx.roots, &mut files, &mut out);
    crate::check::params::check_parameters(fs, &ctx.roots, &mut files, &mut out);
    normalize(&mut out);
    CheckResult { diagnostics: out, files }
}

fn dotted_message(rel: &str, name: &str, component: &str) -> String {
    format!(
        "`{rel}` can never be loaded: Salt lists it as `{name}`, but resolving a name replaces every `.` with `/`, so `{name}` means `{}.sls` or `{}/init.sls`. Rename `{component}` without the dot.",
        name.replace('.', "/"),
        name.replace('.', "/")
    )
}

fn convert(e: &SaltError, files: &FileTable, root_loc: Option<&Loc>, templated: bool, dotted: &BTreeMap<(String, String), String>, out: &mut Vec<Diagnostic>) {
    // In a closure with templates, a requisite may name a state only rendering creates.
    if templated && matches!(e.code, Code::MissingRequisiteTarget | Code::MissingExtendTarget | Code::RenderError | Code::RenderUnsure) {
        return;
    }
    let Some(loc) = e.loc.as_ref().or(root_loc) else { return };
    let file = files.path(loc.file).to_path_buf();
    let related: Vec<Related> =
        e.related.iter().map(|(l, m)| Related { file: files.path(l.file).to_path_buf(), span: l.span.clone(), message: m.clone() }).collect();
    let mut code = e.code;
    let mut message = e.message.clone();
    if code == Code::MissingInclude {
        if let Some(((_, name), rel)) = dotted
            .iter()
            .find(|((env, name), _)| message.contains(&format!("SLS {name} in saltenv {env} ")) || message.contains(&format!("SLS {env}: {name} ")))
        {
            code = Code::DottedSlsName;
            message = format!("{message}\n`{name}` is the listed name of `{rel}`, {}", dotted_message(rel, name, name).split_once(": ").map_or("", |x| x.1));
        }
    }
    // A finding renamed here takes its new code's weight.
    let severity = if code == e.code { e.severity() } else { code.severity() };
    match code {
        Code::DuplicateId => {
            out.push(Diagnostic {
                file: file.clone(),
                span: loc.span.clone(),
                severity,
                code,
                message: message.clone(),
                related: related.clone(),
                fix: Vec::new(),
            });
            for r in &related {
                out.push(Diagnostic {
                    file: r.file.clone(),
                    span: r.span.clone(),
                    severity,
                    code,
                    message: message.clone(),
                    related: vec![Related { file: file.clone(), span: loc.span.clone(), message: r.message.clone() }],
                    fix: Vec::new(),
                });
            }
        }
        Code::RequisiteCycle => {
            for r in &related {
                let others = related.iter().filter(|o| *o != r).cloned().collect();
                out.push(Diagnostic { file: r.file.clone(), span: r.span.clone(), severity, code, message: message.clone(), related: others, fix: Vec::new() });
            }
            if related.is_empty() {
                out.push(Diagnostic { file, span: loc.span.clone(), severity, code, message, related, fix: Vec::new() });
            }
        }
        _ => {
            // A fix in the finding's own file (a did-you-mean), each span as written.
            let fix = e.fix.iter().filter(|r| r.at.file == loc.file).map(|r| (r.at.span.clone(), r.old.clone(), r.new.clone())).collect();
            out.push(Diagnostic { file, span: loc.span.clone(), severity, code, message, related, fix });
        }
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use expect_test::{expect, Expect};

    use super::*;
    use crate::workspace::vfs::MemFs;

    /// Check a `#- path` fixture rooted at `/ws` and list diagnostics as `file:line:col code: first line`.
    fn check(fixture: &str, expect: Expect) {
        let fs = MemFs::from_fixture(fixture);
        let ws = Workspace::load(&fs, Path::new("/ws"), None).expect("workspace");
        let result = check_workspace(&fs, &ws);
        let mut out = String::new();
        for d in &result.diagnostics {
            let (line, col) = match result.files.id(&d.file) {
                Some(id) => result.files.human(id, d.span.start),
                None => (1, 1),
            };
            let file = d.file.strip_prefix("/ws").unwrap_or(&d.file).display().to_string();
            let first = d.message.lines().next().unwrap_or("");
            out.push_str(&format!("{file}:{line}:{col} {}[{}] {first}\n", d.severity.as_str(), d.code.as_str()));
        }
        expect.assert_eq(&out);
    }

    #[test]
    fn clean_tree_with_relative_and_env_includes() {
        check(
            r#"
#- salt-analyzer.yaml
file_roots: {base: [base], dev: [dev]}
#- base/example/dev/virtual.sls
include: [.virt, ..http, {dev: tools}]
v: {test.nop: [{require: [{test: virt_id}, {sls: example.http}]}]}
#- base/example/dev/virt.sls
virt_id: {test.nop: []}
#- base/example/http.sls
http_id: test.nop
#- dev/tools/init.sls
tools: test.nop
"#,
            expect![[""]],
        );
    }

    /// A renderer salt-analyzer never runs is a hint at the file's first line, never a YAML
    /// error, and what the file may declare is not reported missing elsewhere.
    #[test]
    fn renderers_never_run_are_hints() {
        check(
            r#"
#- app.sls
include: [gen, mako, plain, conf]
app:
  test.nop:
    - require:
      - test: made_by_python
#- gen.sls
#!py
def run():
    return {"made_by_python": {"test.nop": []}}
#- mako.sls
#!mako|yaml
<% x = 1 %>
#- plain.sls
#!yaml
p: {test.nop: [{name: '{{ literal }}'}]}
#- conf.sls
#!stateconf yaml . jinja
.x: {test.nop: []}
"#,
            expect![[r#"
                conf.sls:1:1 hint[not-analysed] not analysed on its own: a `stateconf` file is rendered only within a minion's highstate (what it declares depends on its SLS name and the files rendered before it), where its findings are the minion's
                gen.sls:1:1 hint[not-analysed] not analysed: salt-analyzer never runs the `py` renderer, so what this file declares is unknown to the checks
                mako.sls:1:1 hint[not-analysed] not analysed: salt-analyzer never runs the `mako` renderer, so what this file declares is unknown to the checks
            "#]],
        );
    }

    /// The `gpg` renderer: its data goes through, an encrypted value as its ciphertext (no keys
    /// here, no `gpg` run), and a file holding one says so once; a file without one is plain.
    #[test]
    fn gpg_data_goes_through_as_ciphertext() {
        check(
            r#"
#- app.sls
#!yaml|gpg
include: [other]
app:
  test.nop:
    - secret: |
        -----BEGIN PGP MESSAGE-----
        hQEMA1ß
        -----END PGP MESSAGE-----
    - require:
      - test: other
#- other.sls
#!jinja|yaml|gpg
other:
  test.nop: []
"#,
            expect![[""]],
        );
    }

    /// What Jinja writes (a body from a macro, the arguments of a declaration, a value that
    /// may render as a list) is left to rendering, never reported from the mask; the literal
    /// mistake next to it still is.
    #[test]
    fn jinja_that_writes_structure_is_not_malformed() {
        check(
            r#"
#- php.sls
{%- from "php/macro.jinja" import php_ini, format_kwargs %}
php_ini_file:
  {{ php_ini(php.ini, php.ini_settings) }}

php_repo:
  pkgrepo.managed:
    {{- format_kwargs(php.repo) }}

rabbit_clean:
  file.absent:
    - names: {{ rabbitmq.dir.cleanlist or ['/var/lib/ß', '/var/log/💣'] }}

literal_mistake:
  pkg.installed:
"#,
            expect![[r#"
                php.sls:14:3 error[malformed-state] ID 'literal_mistake' in SLS 'php' contains a short declaration (pkg.installed) with a trailing colon. When not passing any arguments to a state, the colon must be omitted.
            "#]],
        );
    }

    /// A macro's, a `call`'s and a block `set`'s body is not output where it stands, so the
    /// mask never reads it as the file's YAML.
    #[test]
    fn detached_bodies_are_not_the_files_structure() {
        check(
            r#"
#- macros.sls
{% macro opt(v) -%}
None
{%- endmacro %}
{% set block %}
- one
True
{% endset %}
{% call opt(1) %}
True
{% endcall %}
#- also.sls
{% macro m() %}
x: 1
{% endmacro %}
bad:
  pkg.installed:
"#,
            expect![[r#"
                also.sls:5:3 error[malformed-state] ID 'bad' in SLS 'also' contains a short declaration (pkg.installed) with a trailing colon. When not passing any arguments to a state, the colon must be omitted.
            "#]],
        );
    }

    /// Salt passes an argument a `**kwargs` function does not name on and ignores it: a
    /// likely typo of a named parameter gets a warning, anything else nothing.
    #[test]
    fn likely_typo_in_kwargs() {
        check(
            r#"
#- web.sls
motd:
  file.managed:
    - name: /etc/motd
    - sorce: salt://motd
    - tempalte: jinja
    - contxt: {}
    - extra_thing: 1
    - mdoe: '0644'
    - os: x
"#,
            expect![[r#"
                web.sls:4:7 warning[likely-typo] 'sorce' is not a parameter of 'file.managed': Salt passes it on in **kwargs, where it is ignored
                web.sls:5:7 warning[likely-typo] 'tempalte' is not a parameter of 'file.managed': Salt passes it on in **kwargs, where it is ignored
                web.sls:6:7 warning[likely-typo] 'contxt' is not a parameter of 'file.managed': Salt passes it on in **kwargs, where it is ignored
                web.sls:8:7 warning[likely-typo] 'mdoe' is not a parameter of 'file.managed': Salt passes it on in **kwargs, where it is ignored
            "#]],
        );
    }

    /// An argument Salt warns about when passed (3008's `x509.private_key_managed` `bits`,
    /// `cipher`): a warning on its key, not a likely typo, with Salt's words.
    #[test]
    fn deprecated_argument_on_its_key() {
        check(
            r#"
#- pki.sls
key:
  x509.private_key_managed:
    - name: /etc/pki/k.pem
    - bits: 4096
    - cipher: aes_256_cbc
    - keysize: 4096
"#,
            expect![[r#"
                pki.sls:4:7 warning[deprecated-argument] Argument 'bits' of state 'x509.private_key_managed' is deprecated: `bits` has been renamed to `keysize`. Please update your code.
                pki.sls:5:7 warning[deprecated-argument] Argument 'cipher' of state 'x509.private_key_managed' is deprecated: The following parameter(s) have been deprecated and will be removed in '3009.0': 'cipher'.
            "#]],
        );
    }

    #[test]
    fn every_code() {
        check(
            r#"
#- a.sls
include:
  - b
  - nope
  - 'x_1.0'
  - ..up
a_id:
  test.nop:
    - require:
      - test: ghost
dup: test.nop
#- b.sls
dup:
  test.nop: []
c1: {test.nop: [{require: [c2]}]}
c2: {test.nop: [{require: [c1]}]}
bad:
  test.nop:
#- x_1.0.sls
x: test.nop
#- broken.sls
a: [1,
"#,
            expect![[r#"
                a.sls:3:5 error[missing-include] Specified SLS nope in saltenv base is not available on the salt master or through a configured fileserver
                a.sls:4:5 error[dotted-sls-name] Specified SLS x_1.0 in saltenv base is not available on the salt master or through a configured fileserver
                a.sls:5:5 error[missing-include] Attempted relative include of '..up' within SLS 'base:a' goes beyond top level package 
                a.sls:9:9 error[missing-requisite-target] Referenced state does not exist for requisite [require: (test: ghost)] in state [a_id] in SLS [a]
                a.sls:10:1 error[duplicate-id] Detected conflicting IDs, SLS IDs need to be globally unique.
                b.sls:1:1 error[duplicate-id] Detected conflicting IDs, SLS IDs need to be globally unique.
                b.sls:3:1 error[requisite-cycle] Recursive requisites were found: ({'SLS': 'b', 'ID': 'c2'}, 'require', {'SLS': 'b', 'ID': 'c1'}), ({'SLS': 'b', 'ID': 'c1'}, 'require', {'SLS': 'b', 'ID': 'c2'})
                b.sls:4:1 error[requisite-cycle] Recursive requisites were found: ({'SLS': 'b', 'ID': 'c2'}, 'require', {'SLS': 'b', 'ID': 'c1'}), ({'SLS': 'b', 'ID': 'c1'}, 'require', {'SLS': 'b', 'ID': 'c2'})
                b.sls:6:3 error[malformed-state] ID 'bad' in SLS 'b' contains a short declaration (test.nop) with a trailing colon. When not passing any arguments to a state, the colon must be omitted.
                broken.sls:2:1 error[yaml-syntax] Rendering SLS 'base:broken' failed: while parsing a node, did not find expected node content; line 2
                x_1.0.sls:1:1 error[dotted-sls-name] `x_1.0.sls` can never be loaded: Salt lists it as `x_1.0`, but resolving a name replaces every `.` with `/`, so `x_1.0` means `x_1/0.sls` or `x_1/0/init.sls`. Rename `x_1.0` without the dot.
            "#]],
        );
    }

    #[test]
    fn templates_never_give_guesses() {
        check(
            r#"
#- web.sls
{% set svc = salt['pillar.get']('svc', 'nginx') %}
include:
  - common
{% if grains['os'] == 'Debian' %}
  - debian.only
{% endif %}
{% for site in ['a', 'b'] %}
site_{{ site }}:
  test.nop:
    - require:
      - test: {{ svc }}
{% endfor %}
{% if grains['os'] == 'Debian' %}
pkg_x:
  test.nop: []
{% else %}
pkg_x:
  test.nop: []
{% endif %}
{{ svc }}:
  test.nop:
    - name: {{ svc }}-ß
    - require:
      - test: generated_elsewhere
literal:
  test.nop:
    - require:
      - test: common_id
#- common.sls
common_id: test.nop
"#,
            expect![[""]],
        );
        // What a template certainly renders is still checked.
        check(
            r#"
#- t.sls
include:
  - missing.thing
{% set x = 1 %}
dup: {test.nop: []}
#- u.sls
include: [t]
dup: {test.nop: [{name: '{{ x }}'}]}
"#,
            expect![[r#"
                t.sls:2:5 error[missing-include] Specified SLS missing.thing in saltenv base is not available on the salt master or through a configured fileserver
                t.sls:4:1 error[duplicate-id] Detected conflicting IDs, SLS IDs need to be globally unique.
                u.sls:2:1 error[duplicate-id] Detected conflicting IDs, SLS IDs need to be globally unique.
            "#]],
        );
    }

    /// A file the server may not read: a diagnostic at the include and at the file, and the
    /// rest of the tree is still checked.
    #[test]
    fn unreadable_file() {
        struct Denied(MemFs);
        impl Vfs for Denied {
            fn read(&self, path: &Path) -> std::io::Result<String> {
                if path.ends_with("secret.sls") {
                    return Err(std::io::Error::new(std::io::ErrorKind::PermissionDenied, "Permission denied"));
                }
                self.0.read(path)
            }
            fn is_file(&self, path: &Path) -> bool {
                self.0.is_file(path)
            }
            fn walk(&self, root: &Path) -> Vec<String> {
                self.0.walk(root)
            }
        }
        let fs = Denied(MemFs::from_fixture("#- a.sls\ninclude: [secret]\n#- secret.sls\nx: test.nop\n#- b.sls\nb: {test.nop: [{require: [nope]}]}\n"));
        let ws = Workspace::load(&fs, Path::new("/ws"), None).unwrap();
        let got: Vec<String> =
            check_workspace(&fs, &ws).diagnostics.iter().map(|d| format!("{} {} {}", d.file.display(), d.code.as_str(), d.message)).collect();
        expect![[r#"
            [
                "/ws/a.sls unreadable-file Rendering SLS secret failed, render error: Permission denied",
                "/ws/b.sls missing-requisite-target Referenced state does not exist for requisite [require: (id: nope)] in state [b] in SLS [b]",
                "/ws/secret.sls unreadable-file Rendering SLS secret failed, render error: Permission denied",
            ]
        "#]]
        .assert_debug_eq(&got);
    }
}
