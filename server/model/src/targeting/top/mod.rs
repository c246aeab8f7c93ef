//! Top-file compilation as Salt 3008 does it (`salt/state.py` `BaseHighState.get_tops`, `merge_tops`, `verify_tops`, `top_matches`): which top files
//! are read, how the merging strategies combine their sections, `verify_tops`, and which
//! targets match a minion, with the reason for every decision (the `top --explain` data the
//! editor shows on hover). This file holds the data the steps hand on; `compile.rs` runs them
//! in Salt's order.

mod compile;
mod explain;
mod matching;
mod merge;
mod read;
mod verify;

use std::path::PathBuf;

use indexmap::IndexMap;

pub use compile::compile_top;
pub use matching::{top_matches, top_matches_checked, TopMatches};
pub use merge::merge_tops;
pub use read::get_tops;
pub(crate) use read::render_top;
pub use verify::verify_tops;

use crate::diagnostic::SaltError;
use crate::targeting::Matches;
use crate::value::{Dict, Loc, Val};

/// One rendered top file (or `{}` for an environment without one).
#[derive(Debug, Clone)]
pub struct TopDoc {
    /// The environment whose file roots it came from.
    pub env: String,
    pub path: Option<PathBuf>,
    pub data: Dict,
    /// The SLS name it was included as, for tops pulled in by `include:`.
    pub included_as: Option<String>,
}

/// `get_tops`: environment -> its top documents, in `_get_envs` order.
#[derive(Debug, Clone, Default)]
pub struct Tops {
    pub envs: IndexMap<String, Vec<TopDoc>>,
    /// Render failures (a top file that is not YAML, or uses Jinja we do not render yet).
    /// Salt raises `SaltRenderError` for the first one, which `get_top` catches: the whole
    /// top is then `{}` and nothing matches.
    pub errors: Vec<SaltError>,
    /// Problems Salt raises on that `get_top` does not catch, so `state.show_top`,
    /// `state.show_lowstate` and `state.apply` fail: a top file that renders to a list or a
    /// scalar (merging calls `.items()` on it), an `include:` that cannot be iterated.
    pub raised: Vec<SaltError>,
    /// Environments outside `_get_envs` whose SLS list `get_tops` asked `LazyAvailStates`
    /// for while globbing `include:` (a `saltenv` or `state_top_saltenv` top with includes).
    /// Asking adds them to `avail`, so later they count as available environments.
    pub listed_envs: Vec<String>,
}

/// A target in the merged top, with the file it came from.
#[derive(Debug, Clone)]
pub struct TopTarget {
    pub target: Val,
    pub body: Val,
    pub source: Option<PathBuf>,
}

/// The merged top: section env -> target -> body (a target written again keeps its place).
pub type MergedTop = IndexMap<String, Vec<TopTarget>>;

/// Why a section of a top file was used or ignored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SectionDecision {
    /// The environment whose top file holds the section.
    pub top_env: String,
    pub path: Option<PathBuf>,
    /// The section's name (the environment it assigns states in).
    pub section: String,
    pub loc: Option<Loc>,
    pub used: bool,
    pub reason: String,
}

/// Whether a target matched the minion, and what it contributed.
#[derive(Debug, Clone)]
pub struct TargetDecision {
    pub section: String,
    pub target: String,
    pub source: Option<PathBuf>,
    pub loc: Option<Loc>,
    pub matcher: String,
    pub matched: bool,
    pub explanation: String,
    pub errors: Vec<String>,
    /// `(env, sls)` pairs appended to the matches.
    pub contributes: Vec<(String, String)>,
}

/// Everything `state.show_top` computes, plus the reasons.
#[derive(Debug, Clone, Default)]
pub struct TopResult {
    pub matches: Matches,
    /// What `state.show_top` answers instead of the matches: `verify_tops` errors (which
    /// `state.apply` also returns and stops on), or, when there are none and Salt raises while
    /// merging or matching, the reason it raises ([`TopResult::raised`]).
    pub verify_errors: Vec<SaltError>,
    /// Salt raises instead of answering (a merge `No targets found`, a top file that renders to
    /// a list, a bad `pcre` regex, an unknown matcher): `state.show_top` (unless `verify_tops`
    /// failed first), `state.show_lowstate` and `state.apply` all fail with a traceback.
    pub raised: Option<SaltError>,
    /// The environments Salt's `avail` holds after `get_tops`: `base`, `_get_envs()`, and any
    /// env whose top `include:` list made Salt list its SLS files. Cross-env items naming
    /// other envs are dropped, and `render_highstate` reports them unavailable.
    pub avail_envs: Vec<String>,
    /// Rendering problems: Salt logs `Unable to render top file: ...` and uses an empty top,
    /// so nothing matches.
    pub render_errors: Vec<SaltError>,
    pub sections: Vec<SectionDecision>,
    pub targets: Vec<TargetDecision>,
    pub merged: MergedTop,
    pub strategy: String,
    pub env_order: Vec<String>,
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use expect_test::Expect;
    use serde_json::json;

    use super::*;
    use crate::targeting::matchers::MatchContext;
    use crate::workspace::roots::FileRoots;
    use crate::workspace::vfs::{FileTable, MemFs};
    use crate::workspace::Workspace;

    /// Compile the top of a `#- path` fixture (rooted at `/ws`, options in its
    /// `salt-analyzer.yaml`) for minion `web01` with grain `role: web`, and summarise what
    /// `state.show_top` prints, whether Salt raises, and the render errors.
    pub(super) fn top(fixture: &str, saltenv: Option<&str>) -> TopResult {
        let fs = MemFs::from_fixture(fixture);
        let ws = Workspace::load(&fs, Path::new("/ws"), None).expect("workspace");
        let mut opts = ws.opts.clone();
        opts.saltenv = saltenv.map(str::to_string);
        let roots = FileRoots::scan(&fs, &opts.file_roots);
        let mut files = FileTable::default();
        let grains = json!({"id": "web01", "role": "web"});
        let pillar = json!({});
        let ctx = MatchContext::new("web01", &grains, &pillar);
        compile_top(&fs, &opts, &roots, &mut files, &ctx, None)
    }

    pub(super) fn check(fixture: &str, saltenv: Option<&str>, expect: Expect) {
        let r = top(fixture, saltenv);
        let mut out = format!("show_top: {}\n", r.show_top_json());
        if let Some(e) = &r.raised {
            out.push_str(&format!("raised: {}\n", e.message.lines().next().unwrap_or("")));
        }
        for e in &r.render_errors {
            out.push_str(&format!("render error: {}\n", e.message.lines().next().unwrap_or("")));
        }
        expect.assert_eq(&out);
    }

    #[test]
    fn a_target_salt_raises_on_fails_show_top_unless_verify_tops_failed_first() {
        let fixture = "#- salt-analyzer.yaml\nfile_roots: {base: [base]}\n#- base/top.sls\nbase:\n  '*': [a]\n  'web(': [{match: pcre}, b]\n";
        let r = top(fixture, None);
        assert!(r.raised.is_some());
        assert_eq!(r.verify_errors.len(), 1, "{:?}", r.verify_errors);
        assert!(r.verify_errors[0].message.contains("'web('"), "{}", r.verify_errors[0].message);
        // verify_tops runs first: its errors are what show_top prints, and Salt does not
        // get as far as the bad regex (state.show_lowstate, which skips verify_tops, does).
        let fixture = "#- salt-analyzer.yaml\nfile_roots: {base: [base]}\n#- base/top.sls\nbase:\n  '*': ['']\n  'web(': [{match: pcre}, b]\n";
        let r = top(fixture, None);
        assert!(r.raised.is_some());
        assert_eq!(r.show_top_json(), json!(["Environment base contains an empty sls index"]));
    }
}
