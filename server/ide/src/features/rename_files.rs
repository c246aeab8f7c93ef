//! Renaming files and directories under the file roots (`workspace/willRenameFiles`): the
//! edits that keep every reference to a moved file loading it, made before the move. Each
//! reference is resolved as Salt resolves it today, and rewritten when the file it loads, or
//! the file it is written in (for a relative one), moves: include items (absolute, relative
//! `.x` / `..x`, `- env: name`), top-file entries in every environment, `sls:` requisites,
//! `exclude: - sls:`, `salt://` URLs, and the paths of a template's `import`, `from`,
//! `include` and `import_*`. A relative reference stays relative when it can; only text
//! written as is gets edited (never a name Jinja produces); a glob whose literal start names a
//! moved directory (`web.*` when `web/` moves) gets the new start.

use std::ops::Range;
use std::path::{Path, PathBuf};

use model::py::fnmatch::has_magic;
use model::workspace::roots::{dotted_component, sls_name_of};

use crate::inputs::summaries::FileSummary;
use crate::resolve::*;
use crate::snapshot::Snapshot;
use crate::types::*;

/// The files whose `import`/`from`/`include` paths are read, besides SLS files.
const TEMPLATE_EXTENSIONS: [&str; 6] = ["jinja", "j2", "jinja2", "tmpl", "tpl", "sls"];

/// The edits that keep references working when each `(old, new)` file or directory moves.
pub(crate) fn rename_files(snap: &Snapshot, moves: &[(PathBuf, PathBuf)]) -> Cancellable<SourceChange> {
    let r = Renames { snap, moves };
    let mut edits = Vec::new();
    for file in r.files() {
        if snap.too_large(&file) {
            continue;
        }
        let Some(text) = snap.text(&file) else { continue };
        match snap.summary(&file).as_deref() {
            Some(FileSummary::Sls(s)) => r.sls_edits(&file, &text, s, &mut edits),
            Some(FileSummary::Top(t)) => r.top_edits(&file, &text, t, &mut edits),
            None => {}
        }
        r.template_edits(&file, &text, &mut edits);
    }
    edits.sort_by(|a, b| (&a.path, a.range.start, a.range.end).cmp(&(&b.path, b.range.start, b.range.end)));
    edits.dedup();
    Ok(SourceChange { create_files: Vec::new(), text_edits: edits })
}

struct Renames<'a> {
    snap: &'a Snapshot,
    moves: &'a [(PathBuf, PathBuf)],
}

impl Renames<'_> {
    /// Every file that may reference another: SLS and top files, and templates.
    fn files(&self) -> Vec<PathBuf> {
        let mut out = self.snap.workspace_files();
        for e in self.snap.world().ctx.roots.envs.values() {
            for (files, root) in e.files.iter().zip(&e.roots) {
                for f in files.iter().filter(|f| f.rsplit_once('.').is_some_and(|(_, ext)| TEMPLATE_EXTENSIONS.contains(&ext))) {
                    out.push(root.join(f));
                }
            }
        }
        out.sort();
        out.dedup();
        out
    }

    /// Where `p` is after the moves, when it moves (a file, or one under a moved directory).
    fn moved(&self, p: &Path) -> Option<PathBuf> {
        self.moves.iter().find_map(|(old, new)| if p == old { Some(new.clone()) } else { p.strip_prefix(old).ok().map(|rest| new.join(rest)) })
    }

    /// `p`'s path under the root of `env` it is in today, after the moves.
    fn rel_after(&self, env: &str, p: &Path) -> Option<String> {
        let roots = self.snap.world().ws.opts.file_roots.get(env)?;
        let root = roots.iter().find(|r| p.starts_with(r))?;
        let after = self.moved(p).unwrap_or_else(|| p.to_path_buf());
        let rel = after.strip_prefix(root).ok()?.to_string_lossy().replace('\\', "/");
        (!rel.is_empty()).then_some(rel)
    }

    /// The SLS name of the file `p` of `env` after the moves, and whether it is an `init.sls`;
    /// `None` when it is no longer a name Salt can load.
    fn sls_after(&self, env: &str, p: &Path) -> Option<(String, bool)> {
        let rel = self.rel_after(env, p)?;
        if dotted_component(&rel).is_some() {
            return None;
        }
        Some((sls_name_of(&rel)?, rel.ends_with("/init.sls")))
    }

    /// The edit of the scalar at `span` of `file` (written as `was`) that names `target` (an
    /// SLS file of `env` loaded by that name today) after the moves. `relative_from` is the
    /// including file for a relative include.
    #[allow(clippy::too_many_arguments)]
    fn sls_edit(
        &self,
        file: &Path,
        text: &str,
        span: &Range<usize>,
        was: &str,
        env: &str,
        target: &Path,
        relative_from: Option<(&str, &Path)>,
    ) -> Option<TextEdit> {
        // An absolute name changes only with its file; a relative one also with the file it is
        // written in.
        let file_moves = was.starts_with('.') && relative_from.is_some_and(|(_, f)| self.moved(f).is_some());
        if self.moved(target).is_none() && !file_moves {
            return None;
        }
        let written = text.get(span.clone())?;
        // Only what is written as it is read: never text Jinja produces.
        if unquote(written) != was {
            return None;
        }
        let (name, _) = self.sls_after(env, target)?;
        let new = match relative_from {
            Some((fenv, f)) if was.starts_with('.') => {
                let (sls, is_init) = self.sls_after(fenv, f)?;
                relative_name(&sls, is_init, was, &name).unwrap_or(name)
            }
            // `/x` (a leading slash Salt strips) keeps its slash.
            _ if was.starts_with('/') => format!("/{name}"),
            _ => name,
        };
        (new != was).then(|| TextEdit { path: file.to_path_buf(), range: span.clone(), new_text: requote(written, &new) })
    }

    /// A glob (`web.*`) whose literal start names a moved directory's package: that start
    /// rewritten (`www.*`), so it matches what it matched.
    fn glob_edit(&self, file: &Path, text: &str, span: &Range<usize>, was: &str, env: &str) -> Option<TextEdit> {
        let written = text.get(span.clone())?;
        if unquote(written) != was {
            return None;
        }
        let roots = self.snap.world().ws.opts.file_roots.get(env)?;
        for (old, new) in self.moves {
            let Some(root) = roots.iter().find(|r| old.starts_with(r) && *r != old) else { continue };
            let (Ok(o), Ok(n)) = (old.strip_prefix(root), new.strip_prefix(root)) else { continue };
            let (o, n) = (o.to_string_lossy().replace('\\', "/"), n.to_string_lossy().replace('\\', "/"));
            // Only a directory holds a package: `o/` starts files of the roots.
            let is_dir = self.snap.world().ctx.roots.envs.get(env).is_some_and(|e| e.files.iter().flatten().any(|f| f.starts_with(&format!("{o}/"))));
            if !is_dir || o.contains('.') || n.contains('.') {
                continue;
            }
            let (op, np) = (o.replace('/', "."), n.replace('/', "."));
            if let Some(rest) = was.strip_prefix(&format!("{op}.")) {
                let new_text = format!("{np}.{rest}");
                return Some(TextEdit { path: file.to_path_buf(), range: span.clone(), new_text: requote(written, &new_text) });
            }
        }
        None
    }

    fn sls_edits(&self, file: &Path, text: &str, s: &model::check::summary::SlsSummary, out: &mut Vec<TextEdit>) {
        let env = file_env(self.snap, file);
        let first = |e: &str, name: &str| (!has_magic(name)).then(|| resolve_sls(self.snap, e, name, &env).into_iter().next()).flatten();
        for i in &s.includes {
            let Some((ienv, name)) = include_target(self.snap, file, i) else { continue };
            if has_magic(&name) {
                // A relative glob is left as it is: it follows its file.
                if !i.raw.starts_with('.') {
                    out.extend(self.glob_edit(file, text, &i.span, &i.raw, &ienv));
                }
                continue;
            }
            let Some(t) = first(&ienv, &name) else { continue };
            out.extend(self.sls_edit(file, text, &i.span, &i.raw, &ienv, &t.path, Some((&env, file))));
        }
        for r in s.requisites.iter().filter(|r| r.key == "sls") {
            let Some(t) = first(&env, &r.value) else { continue };
            out.extend(self.sls_edit(file, text, &r.span, &r.value, &env, &t.path, None));
        }
        for e in s.excludes.iter().filter(|e| e.kind == "sls") {
            let Some(t) = first(&env, &e.value) else { continue };
            out.extend(self.sls_edit(file, text, &e.span, &e.value, &env, &t.path, None));
        }
        for u in &s.urls {
            out.extend(self.url_edit(file, text, u));
        }
    }

    fn top_edits(&self, file: &Path, text: &str, t: &model::check::summary::TopSummary, out: &mut Vec<TextEdit>) {
        for section in &t.envs {
            for target in &section.targets {
                for sls in &target.sls {
                    if has_magic(&sls.name) {
                        out.extend(self.glob_edit(file, text, &sls.span, &sls.name, &section.env));
                        continue;
                    }
                    let Some(f) = resolve_sls(self.snap, &section.env, &sls.name, &section.env).into_iter().next() else { continue };
                    out.extend(self.sls_edit(file, text, &sls.span, &sls.name, &section.env, &f.path, None));
                }
            }
        }
    }

    /// A `salt://` URL whose file moves: its path part rewritten, its query kept.
    fn url_edit(&self, file: &Path, text: &str, u: &model::check::summary::SaltUrl) -> Option<TextEdit> {
        let target = url_target(self.snap, file, u)?;
        self.moved(&target)?;
        let env = u.env.clone().unwrap_or_else(|| file_env(self.snap, file));
        let rel = self.rel_after(&env, &target)?;
        let written = text.get(u.span.clone())?;
        let old = format!("salt://{}", u.path);
        let at = written.find(&old)?;
        let slashes = &u.path[..u.path.len() - u.path.trim_start_matches('/').len()];
        let new = format!("salt://{slashes}{rel}");
        let start = u.span.start + at;
        Some(TextEdit { path: file.to_path_buf(), range: start..start + old.len(), new_text: new })
    }

    /// Template paths whose file (or, for a relative one, whose template) moves.
    fn template_edits(&self, file: &Path, text: &str, out: &mut Vec<TextEdit>) {
        let env = file_env(self.snap, file);
        for t in template_refs(self.snap, file, text) {
            let Some(target) = self.snap.world().ctx.roots.find_file(&env, &t.rel) else { continue };
            let relative = t.written.starts_with("./") || t.written.starts_with("../");
            if self.moved(&target).is_none() && !(relative && self.moved(file).is_some()) {
                continue;
            }
            let Some(rel) = self.rel_after(&env, &target) else { continue };
            let new = if relative {
                let Some(from) = self.rel_after(&env, file) else { continue };
                relative_path(&rel, parent_dir(&from))
            } else if t.written.starts_with('/') {
                format!("/{rel}")
            } else {
                rel
            };
            if new != t.written && !new.contains(['"', '\'', '\\']) {
                out.push(TextEdit { path: file.to_path_buf(), range: t.inner, new_text: new });
            }
        }
    }
}

/// `name` written relative to SLS `sls` with as many leading dots as `was` has, when that
/// reads back as `name` (`render_state`'s rule); else `None` (write it absolute).
fn relative_name(sls: &str, is_init: bool, was: &str, name: &str) -> Option<String> {
    let levels = was.len() - was.trim_start_matches('.').len();
    let base = model::state::highstate::relative_base(sls, is_init, levels)?.join(".");
    // `include: [.]` names the package itself (`pkg.`, which loads `pkg/init.sls`).
    let (rest, reads) = if name == base {
        ("", format!("{name}."))
    } else if base.is_empty() {
        (name, name.to_string())
    } else {
        (name.strip_prefix(&format!("{base}."))?, name.to_string())
    };
    let candidate = format!("{}{rest}", ".".repeat(levels));
    (model::state::highstate::resolve_relative(sls, is_init, &candidate) == Some(reads)).then_some(candidate)
}

/// `target` (a roots path) as a `./` or `../` path from the directory `from`.
fn relative_path(target: &str, from: &str) -> String {
    let t: Vec<&str> = target.split('/').collect();
    let f: Vec<&str> = if from.is_empty() { Vec::new() } else { from.split('/').collect() };
    let common = t.iter().zip(&f).take_while(|(a, b)| a == b).count();
    let ups = f.len() - common;
    let mut parts = vec![".."; ups];
    parts.extend(&t[common..]);
    let joined = parts.join("/");
    if ups == 0 {
        format!("./{joined}")
    } else {
        joined
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use expect_test::expect;

    use super::*;
    use crate::fixture::Fixture;

    /// Every file the moves edit, after the edits, then moved (as the client does).
    fn check(fixture: &str, moves: &[(&str, &str)], expect: expect_test::Expect) {
        let f = Fixture::new(fixture);
        let a = f.analysis();
        let moves: Vec<(PathBuf, PathBuf)> = moves.iter().map(|(o, n)| (Path::new("/ws").join(o), Path::new("/ws").join(n))).collect();
        let change = a.will_rename_files(&moves).unwrap();
        expect.assert_eq(&crate::fixture::edited_files(&a, &change));
    }

    const TREE: &str = r#"
#- salt-analyzer.yaml
file_roots: {base: [srv], prod: [prod]}
#- srv/top.sls
base:
  '*':
    - web.conf
    - 'web'
  'G@os:ℝ':
    - web.*
prod:
  '*': [web.conf]
#- srv/web/init.sls
include:
  - .conf
  - base: web.conf
{% from "web/map.jinja" import web with context %}
nginx-ß:
  pkg.installed: []
#- srv/web/conf.sls
{% import_yaml "./defaults.yaml" as d %}
nginx-conf-💣:
  file.managed:
    - name: /etc/nginx/nginx.conf
    - source: salt://web/files/nginx.conf?saltenv=base
    - require:
      - sls: web
#- srv/web/map.jinja
{% import_yaml "web/defaults.yaml" as defaults %}
{% set web = defaults %}
#- srv/web/defaults.yaml
a: 1
#- srv/web/files/nginx.conf
x
#- srv/app.sls
include:
  - web.conf
exclude:
  - sls: web.conf
app:
  test.nop:
    - require:
      - sls: web.conf
#- prod/web/conf.sls
prod-only: {test.nop: []}
"#;

    #[test]
    fn renaming_an_sls_file_updates_includes_tops_requisites_and_excludes() {
        check(
            TREE,
            &[("srv/web/conf.sls", "srv/web/config.sls")],
            expect![[r#"
                === srv/app.sls
                include:
                  - web.config
                exclude:
                  - sls: web.config
                app:
                  test.nop:
                    - require:
                      - sls: web.config
                === srv/top.sls
                base:
                  '*':
                    - web.config
                    - 'web'
                  'G@os:ℝ':
                    - web.*
                prod:
                  '*': [web.conf]
                === srv/web/init.sls
                include:
                  - .config
                  - base: web.config
                {% from "web/map.jinja" import web with context %}
                nginx-ß:
                  pkg.installed: []
            "#]],
        );
    }

    #[test]
    fn renaming_a_directory_updates_names_urls_and_template_paths() {
        check(
            TREE,
            &[("srv/web", "srv/www")],
            expect![[r#"
                === srv/app.sls
                include:
                  - www.conf
                exclude:
                  - sls: www.conf
                app:
                  test.nop:
                    - require:
                      - sls: www.conf
                === srv/top.sls
                base:
                  '*':
                    - www.conf
                    - 'www'
                  'G@os:ℝ':
                    - www.*
                prod:
                  '*': [web.conf]
                === srv/web/conf.sls
                {% import_yaml "./defaults.yaml" as d %}
                nginx-conf-💣:
                  file.managed:
                    - name: /etc/nginx/nginx.conf
                    - source: salt://www/files/nginx.conf?saltenv=base
                    - require:
                      - sls: www
                === srv/web/init.sls
                include:
                  - .conf
                  - base: www.conf
                {% from "www/map.jinja" import web with context %}
                nginx-ß:
                  pkg.installed: []
                === srv/web/map.jinja
                {% import_yaml "www/defaults.yaml" as defaults %}
                {% set web = defaults %}
            "#]],
        );
    }

    #[test]
    fn a_moved_file_keeps_its_relative_references_loading_the_same_files() {
        // `web/conf.sls` leaves its directory: `./defaults.yaml` climbs back, and the include
        // `.conf` of `web/init.sls` is written as the new absolute name.
        check(
            TREE,
            &[("srv/web/conf.sls", "srv/conf/web.sls")],
            expect![[r#"
                === srv/app.sls
                include:
                  - conf.web
                exclude:
                  - sls: conf.web
                app:
                  test.nop:
                    - require:
                      - sls: conf.web
                === srv/top.sls
                base:
                  '*':
                    - conf.web
                    - 'web'
                  'G@os:ℝ':
                    - web.*
                prod:
                  '*': [web.conf]
                === srv/web/conf.sls
                {% import_yaml "../web/defaults.yaml" as d %}
                nginx-conf-💣:
                  file.managed:
                    - name: /etc/nginx/nginx.conf
                    - source: salt://web/files/nginx.conf?saltenv=base
                    - require:
                      - sls: web
                === srv/web/init.sls
                include:
                  - conf.web
                  - base: conf.web
                {% from "web/map.jinja" import web with context %}
                nginx-ß:
                  pkg.installed: []
            "#]],
        );
    }

    #[test]
    fn a_name_salt_cannot_load_is_left_alone() {
        // `web.conf.d.sls` has a dot Salt reads as a directory: no name loads it, so nothing
        // is rewritten (the dotted-sls-name finding says so after the move).
        check(TREE, &[("srv/web/conf.sls", "srv/web/conf.d.sls")], expect![[""]]);
    }

    #[test]
    fn relative_names() {
        assert_eq!(relative_name("web", true, ".conf", "web.config").as_deref(), Some(".config"));
        assert_eq!(relative_name("web.conf", false, ".x", "web.y").as_deref(), Some(".y"));
        assert_eq!(relative_name("a.b.c", false, "..x", "a.z").as_deref(), Some("..z"));
        assert_eq!(relative_name("web", true, ".conf", "www.conf"), None);
        assert_eq!(relative_name("mon.files_mv", false, ".", "mon").as_deref(), Some("."));
        assert_eq!(relative_path("web/defaults.yaml", "conf"), "../web/defaults.yaml");
        assert_eq!(relative_path("web/defaults.yaml", "web"), "./defaults.yaml");
        assert_eq!(relative_path("x.yaml", ""), "./x.yaml");
    }
}
