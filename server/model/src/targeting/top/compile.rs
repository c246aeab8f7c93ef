//! `get_top` and `top_matches` for one minion: the tops read, merged, verified and matched, in
//! the order `state.show_top` runs them, each step's answer kept for `top --explain`.

use super::matching::top_matches_checked;
use super::merge::merge_tops;
use super::read::get_tops;
use super::verify::verify_tops_keyed;
use super::TopResult;
use crate::render::context::JinjaSetup;
use crate::targeting::matchers::MatchContext;
use crate::value::{Loc, V};
use crate::workspace::config::Opts;
use crate::workspace::roots::{get_envs, FileRoots};
use crate::workspace::vfs::{FileTable, Vfs};

/// The whole top compilation for one minion.
pub fn compile_top(fs: &dyn Vfs, opts: &Opts, roots: &FileRoots, files: &mut FileTable, ctx: &MatchContext, jinja: Option<&JinjaSetup>) -> TopResult {
    let client_envs: Vec<String> = roots.env_names().map(str::to_string).collect();
    let env_order = get_envs(opts, &client_envs);
    let mut result = TopResult { env_order: env_order.clone(), ..Default::default() };
    result.strategy = opts.top_file_merging_strategy.clone();
    let tops = match get_tops(fs, opts, roots, files, jinja) {
        Ok(t) => t,
        Err(e) => {
            // Raised inside get_tops, caught by get_top: the top is `{}`.
            result.render_errors.push(e);
            return result;
        }
    };
    let mut avail = vec!["base".to_string()];
    avail.extend(env_order.iter().filter(|e| *e != "base").cloned());
    avail.extend(tops.listed_envs.iter().cloned());
    result.avail_envs = avail.clone();
    if !tops.errors.is_empty() {
        // get_top catches the SaltRenderError and answers `{}`: nothing matches.
        result.render_errors.extend(tops.errors.clone());
        return result;
    }
    if let Some(e) = tops.raised.first() {
        result.raised = Some(e.clone());
        result.verify_errors = vec![e.clone()];
        return result;
    }
    let (merged, sections, strategy) = merge_tops(opts, &tops);
    result.sections = sections;
    result.strategy = strategy;
    let merged = match merged {
        Ok(m) => m,
        Err(e) => {
            // Raised by merge_tops, which get_top does not guard: Salt fails outright.
            result.raised = Some(e.clone());
            result.verify_errors = vec![e];
            return result;
        }
    };
    // Sections whose key is not a string and that the strategy used.
    let mut non_string: Vec<(String, Option<Loc>)> = Vec::new();
    for doc in tops.envs.values().flatten() {
        for (key, _) in &doc.data.0 {
            let name = key.py_str();
            if matches!(key.v, V::Str(_)) || non_string.iter().any(|(n, _)| *n == name) {
                continue;
            }
            if result.sections.iter().any(|d| d.used && d.section == name && d.path == doc.path) {
                non_string.push((name, key.at.clone()));
            }
        }
    }
    result.verify_errors = verify_tops_keyed(&merged, &non_string);
    let m = top_matches_checked(opts, &avail, ctx, &merged);
    result.matches = m.matches;
    result.targets = m.decisions;
    result.raised = m.raised.clone();
    if result.verify_errors.is_empty() {
        // state.show_top returns verify_tops' errors before matching; without them it gets
        // as far as top_matches, and fails there.
        if let Some(e) = m.raised {
            result.verify_errors.push(e);
        }
    }
    result.merged = merged;
    result
}
