//! Code actions where the fix is mechanical: create the missing SLS file of an include (at
//! the path Salt looks at first), and rewrite a top-file target's string shorthand as a list.

use std::ops::Range;
use std::path::Path;

use crate::inputs::summaries::FileSummary;
use crate::resolve::*;
use crate::snapshot::Snapshot;
use crate::types::*;

fn overlaps(a: &Range<usize>, b: &Range<usize>) -> bool {
    a.start <= b.end && b.start <= a.end
}

pub(crate) fn code_actions(snap: &Snapshot, path: &Path, range: Range<usize>) -> Vec<CodeAction> {
    if snap.too_large(path) {
        return Vec::new();
    }
    let Some(summary) = snap.summary(path) else { return Vec::new() };
    let mut out = Vec::new();
    let world = snap.world();
    match &*summary {
        FileSummary::Sls(s) => {
            let env = file_env(snap, path);
            for item in s.includes.iter().filter(|i| overlaps(&i.span, &range)) {
                let Some((ienv, name)) = include_target(snap, path, item) else { continue };
                if model::py::fnmatch::has_magic(&name) || !resolve_sls(snap, &ienv, &name, &env).is_empty() {
                    continue;
                }
                let Some(root) = world.ws.opts.file_roots.get(&ienv).and_then(|r| r.first()) else { continue };
                // `x.sls` before `x/init.sls`, in the environment's first root.
                let file = root.join(format!("{}.sls", name.replace('.', "/")));
                out.push(CodeAction {
                    title: format!("Create `{}`", world.rel(&file)),
                    kind: CodeActionKind::QuickFix,
                    edit: SourceChange { create_files: vec![file], text_edits: Vec::new() },
                });
            }
        }
        FileSummary::Top(t) => {
            let text = snap.text(path).unwrap_or_default();
            let index = snap.line_index(path);
            for env in &t.envs {
                for target in env.targets.iter().filter(|t| t.shorthand && overlaps(&t.value_span, &range)) {
                    let Some(value) = text.get(target.value_span.clone()) else { continue };
                    // The list goes two columns right of the target, as wide as people see it.
                    let col = index.as_ref().map_or(1, |li| li.human(target.span.start).1);
                    let indent = " ".repeat(col - 1 + 2);
                    // Replace from just after the colon, so no trailing space is left.
                    let start = text[..target.value_span.start].trim_end_matches([' ', '\t']).len();
                    out.push(CodeAction {
                        title: format!("Write the SLS of target `{}` as a list", target.target),
                        kind: CodeActionKind::RefactorRewrite,
                        edit: SourceChange {
                            create_files: Vec::new(),
                            text_edits: vec![TextEdit {
                                path: path.to_path_buf(),
                                range: start..target.value_span.end,
                                new_text: format!("\n{indent}- {value}"),
                            }],
                        },
                    });
                }
            }
        }
    }
    out
}
