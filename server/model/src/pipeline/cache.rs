//! Compiled minions kept until something they read changes ([`MinionCache`]), and the patch
//! that brings a highstate up to date after an edit that changed only what rendered files
//! read ([`crate::state::patch`]).

// The compile's own helpers and the vocabulary it imports.
use super::*;

/// Compiled minions kept until something they read changes. A hit costs re-reading (and
/// hashing) the files the result read and re-asking its questions of the file roots; callers
/// that know which files changed can skip asking (the editor does, through its change log).
#[derive(Default)]
pub struct MinionCache {
    entries: Vec<(Request, Arc<Compiled>)>,
    /// How many compiles ran (tests count what a change recomputes).
    pub compiles: u64,
    /// How many results were patched after an edit instead of compiled.
    pub patches: u64,
}

/// How many results a cache keeps (a few minions and scopes: the selected one, hovers of
/// others, `top --explain`, open templated files outside the highstate compiled alone).
const KEEP: usize = 16;

impl MinionCache {
    /// The result for `req`: the cached one while everything it read is unchanged on `fs` and
    /// under `roots`, else a fresh compile.
    pub fn get(&mut self, fs: &Arc<dyn Vfs>, ws: &Workspace, roots: &Arc<FileRoots>, req: &Request, memo: &Memo) -> Arc<Compiled> {
        if let Some(i) = self.entries.iter().position(|(r, _)| r == req) {
            let (r, c) = self.entries.remove(i);
            match c.reads.changed_texts(&**fs, (!Arc::ptr_eq(&c.roots, roots)).then_some(&**roots)) {
                Some(changed) if changed.is_empty() => {
                    self.entries.insert(0, (r, c.clone()));
                    return c;
                }
                // Only files' texts changed: files only renders read may be re-rendered alone.
                Some(changed) => {
                    if let Some(patched) = patch(c, &changed, fs, ws, roots, req, memo) {
                        self.patches += 1;
                        let c = Arc::new(patched);
                        self.entries.insert(0, (r, c.clone()));
                        return c;
                    }
                }
                None => free_later(c),
            }
        }
        self.compiles += 1;
        let c = Arc::new(compile_with(fs.clone(), ws, roots, req, memo));
        self.entries.insert(0, (req.clone(), c.clone()));
        self.entries.truncate(KEEP);
        c
    }

    /// Forgets everything (the configuration changed: results were made with other options).
    pub fn clear(&mut self) {
        self.entries.clear();
    }
}

/// A highstate compile after files read only by rendered SLS files changed (`changed`), made
/// from the earlier one `old` by rendering those files again and putting the argument values
/// they changed in place ([`crate::state::patch`]): what a compile would give, when the new
/// renders declare the same states, requisites and keywords as before. `None` otherwise (and
/// where renders are not kept): the caller compiles.
fn patch(old: Arc<Compiled>, changed: &[PathBuf], fs: &Arc<dyn Vfs>, ws: &Workspace, roots: &Arc<FileRoots>, req: &Request, memo: &Memo) -> Option<Compiled> {
    let Some(redone) = rerender(&old, changed, fs, ws, roots, req, memo) else {
        free_later(old);
        return None;
    };
    patched(old, redone, changed, fs)
}

/// One file a patch rendered again (render `i` of the kept compile's list).
enum Redo {
    /// It rendered before and does now, declaring the same states: these argument values
    /// changed.
    /// (`edit`: the file's own text changed and it is plain YAML, whose data is located in its
    /// text: every location after the edit moves.)
    Values {
        i: usize,
        old: Arc<render::memo::Entry>,
        new: Arc<render::memo::Entry>,
        changes: Vec<crate::state::patch::ArgChange>,
        edit: Option<crate::state::patch::Edit>,
    },
    /// It failed to render before and does again (it declares nothing either way): its error
    /// is this one now, after these reads.
    Error { i: usize, error: SaltError, reads: Reads, file: crate::value::FileId },
}

/// The files a patch renders again; the file table with the new texts; what the renders read.
type Redone = (Vec<Redo>, FileTable, Reads);

/// [`patch`]'s renders, when every changed file is read only by renders and each of them
/// changes argument values only (or fails to render as it did).
fn rerender(old: &Compiled, changed: &[PathBuf], fs: &Arc<dyn Vfs>, ws: &Workspace, roots: &Arc<FileRoots>, req: &Request, memo: &Memo) -> Option<Redone> {
    use crate::state::highstate::Part;
    use crate::state::patch;
    if req.scope != Scope::Highstate || memo.renders.is_none() || changed.iter().any(|p| old.read_outside_renders.contains(p)) {
        return None;
    }
    let (Ok(minion), Some(low)) = (&old.minion, &old.low) else { return None };
    // The renders that read a changed file (their own text or an import, a layer, a
    // `salt://` file): each is rendered again.
    let mut redo: Vec<usize> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    let mut covered = std::collections::HashSet::new();
    for (i, r) in low.highstate.rendered.iter().enumerate() {
        let Some(file) = &r.file else { continue };
        let reads = match &r.part {
            Some(Part::Kept(e)) => &e.reads,
            Some(Part::Failed(reads)) => reads,
            None => continue,
        };
        let touched: Vec<&PathBuf> = changed.iter().filter(|c| **c == file.path || reads.paths().any(|p| p == c.as_path())).collect();
        if !touched.is_empty() {
            // One render per file: the same file under two names is left to a compile.
            if !seen.insert(file.path.clone()) {
                return None;
            }
            covered.extend(touched);
            redo.push(i);
        }
    }
    if redo.is_empty() || covered.len() != changed.len() {
        return None;
    }
    // A file changed what later files saw: rendering one again alone would not see it.
    if low.highstate.carried {
        return None;
    }
    if old.patch_facts.get_or_init(|| Arc::new(patch::facts(&low.highstate.high))).copies_arguments {
        return None;
    }
    let opts = request_opts(ws, req);
    let recorder = Arc::new(Recorder::new(fs.clone()));
    let jinja = jinja_setup(&recorder, roots, minion, &opts, memo, None, rendered_pillar(old.pillar.as_ref(), minion));
    let mut files = old.files.clone();
    let mut edits = Vec::new();
    for c in changed {
        if let Some(id) = files.id(c) {
            let text: Arc<str> = Arc::from(fs.read(c).ok()?);
            let was = files.text(id);
            // A plain file's data is located in its text (a template's in the file only).
            match (render::is_templated(was), render::is_templated(&text)) {
                (true, true) => {}
                (false, false) => edits.extend(crate::state::patch::Edit::between(id, was, &text).map(|e| (c.clone(), e))),
                _ => return None,
            }
            files.add(c.clone(), text);
        }
    }
    let mut renders = Vec::new();
    for i in redo {
        let r = &low.highstate.rendered[i];
        let mut builder = Builder::new(&*recorder, roots, &opts, &mut files);
        builder.jinja = Some(jinja.clone());
        let (part, mut errors) = builder.render_alone(&r.sls, &r.env);
        match (&r.part, part) {
            (Some(Part::Kept(old)), Some(Part::Kept(new))) if errors.is_empty() => {
                let edit = r.file.as_ref().and_then(|f| edits.iter().find(|(p, _)| *p == f.path)).map(|(_, e)| *e);
                let changes = match &edit {
                    Some(edit) => patch::changed_args_after(&old.val, &new.val, edit)?,
                    None => patch::changed_args(&old.val, &new.val)?,
                };
                renders.push(Redo::Values { i, old: old.clone(), new, changes, edit });
            }
            (Some(Part::Failed(_)), Some(Part::Failed(reads))) if errors.len() == 1 => {
                let error = errors.pop()?;
                // `render_highstate` rewrites an "is not available" message, and an error
                // placed in an imported file numbers that file: left to a compile.
                let file = r.file.as_ref().and_then(|f| files.id(&f.path))?;
                let in_file = error.loc.as_ref().is_some_and(|l| l.file == file);
                if !in_file
                    || error.code == Code::NotAnalysed
                    || !error.message.starts_with(&crate::state::highstate::render_error_prefix(&r.env, &r.sls))
                    || error.message.contains("is not available")
                {
                    return None;
                }
                renders.push(Redo::Error { i, error, reads, file });
            }
            _ => return None,
        }
    }
    drop(jinja);
    Some((renders, files, recorder.reads()))
}

/// `old` with the renders of [`rerender`] put in place.
fn patched(old: Arc<Compiled>, (renders, files, more): Redone, changed: &[PathBuf], fs: &Arc<dyn Vfs>) -> Option<Compiled> {
    // The kept compile when nothing else holds it, else a copy.
    let old = Arc::try_unwrap(old).unwrap_or_else(|shared| shared.duplicate());
    let facts = old.patch_facts.get().cloned()?;
    let mut low = old.low?;
    for redo in renders {
        if !patch_one(&mut low, &facts, redo) {
            free_later(low);
            return None;
        }
    }
    let mut reads = old.reads;
    reads.refresh(&**fs, changed, &more);
    Some(Compiled { low: Some(low), files, reads, serial: next_serial(), ..old })
}

/// Puts one [`Redo`] in place; `false` when it has no single place to go.
fn patch_one(low: &mut LowState, facts: &crate::state::patch::Facts, redo: Redo) -> bool {
    use crate::state::highstate::Part;
    match redo {
        Redo::Values { i, old, new, changes, edit } => {
            let (env, sls) = (low.highstate.rendered[i].env.clone(), low.highstate.rendered[i].sls.clone());
            // Everything of the file moves to the new text first; the changed values come
            // from the new render, already there.
            if edit.is_some_and(|edit| !crate::state::patch::shift_low(&edit, low)) || !crate::state::patch::apply(low, facts, &env, &sls, &changes) {
                return false;
            }
            // The file's render hints where its earlier ones were: renders add theirs in order.
            if old.hints != new.hints {
                let hints_of = |r: &crate::state::highstate::Rendered| match &r.part {
                    Some(Part::Kept(e)) => e.hints.len(),
                    _ => 0,
                };
                let at: usize = low.highstate.rendered[..i].iter().map(hints_of).sum();
                let n = old.hints.len();
                if low.highstate.hints.get(at..at + n) != Some(&old.hints[..]) {
                    return false;
                }
                low.highstate.hints.splice(at..at + n, new.hints.iter().cloned());
            }
            low.highstate.rendered[i].part = Some(Part::Kept(new));
        }
        Redo::Error { i, error, reads, file } => {
            // The render error is where it was, among the highstate's errors and at the same
            // place in what `show_low_sls` answers (which starts with them).
            let prefix = crate::state::highstate::render_error_prefix(&low.highstate.rendered[i].env, &low.highstate.rendered[i].sls);
            let mut at = low.highstate.errors.iter().enumerate().filter(|(_, e)| e.code != Code::NotAnalysed && e.message.starts_with(&prefix)).map(|(k, _)| k);
            let (Some(k), None) = (at.next(), at.next()) else { return false };
            if low.show_errors.get(k) != Some(&low.highstate.errors[k]) || low.highstate.errors[k].loc.as_ref().is_none_or(|l| l.file != file) {
                return false;
            }
            low.show_errors[k] = error.clone();
            low.highstate.errors[k] = error;
            low.highstate.rendered[i].part = Some(Part::Failed(reads));
        }
    }
    true
}
