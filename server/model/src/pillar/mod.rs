//! The minion's pillar from `pillar_roots` and the SQL ext_pillar entries (`ext`, the rows
//! folded by `sql_base`), as Salt's master computes it
//! (`salt/pillar/__init__.py` `Pillar.compile_pillar`, `render_pillar`, `render_pstate`): the
//! pillar top files (`top.rs`), each matched SLS rendered with Jinja (includes with `defaults`
//! and `key`), merged with `pillar_source_merging_strategy` and `pillar_merge_lists` through
//! `py::dictupdate`. Errors are what Salt puts under `_errors`, each with the place it comes
//! from; provenance (which SLS set each key, what it overrode) is kept for `pillar --explain`.
//!
//! `salt-call pillar.items` compiles twice: the minion's start compiles with the configuration's
//! `pillar:` as the pillar templates and `I@` targets see, then `pillar.items` compiles again
//! with that result, and updates it (a shallow `dict.update`). [`compile`] does both, by the
//! rules of `opts.version` (`SaltVersion::pillar_data`, `pillar_tops_unordered`).
//!
//! This file holds what the steps share (the options, the minion, the result); `compile.rs`
//! runs the compiles, `error.rs` is the error both it and the top files report.

pub mod compile;
pub mod error;
pub mod ext;
pub mod git;
pub mod sql_base;
pub mod top;

use std::path::PathBuf;

use serde_json::Value;

use crate::diagnostic::SaltError;
use crate::mapstack::origin::Origins;
use crate::targeting::Matches;
use crate::value::Val;
use crate::version::SaltVersion;
use crate::workspace::config::Opts;

pub use compile::compile;
pub use error::PillarError;
pub use top::{PillarTargetDecision, PillarTop};

/// One source of pillar values: layer 0 is the pillar before this compile (the
/// configuration's `pillar:`, then the first compile's result), the others rendered SLS files.
#[derive(Debug, Clone)]
pub struct Layer {
    pub env: String,
    pub sls: String,
    pub path: Option<PathBuf>,
    /// The SLS whose `include:` rendered it.
    pub included_by: Option<String>,
}

/// The pillar options Salt reads (`salt/config/__init__.py` defaults).
#[derive(Debug, Clone)]
pub struct PillarOptions {
    pub strategy: String,
    pub merge_lists: bool,
    pub renderer: String,
    pub pillarenv: Option<String>,
    pub includes_override_sls: bool,
    pub safe_render_error: bool,
    pub env_order: Vec<String>,
    pub state_top: String,
    pub saltenv: Option<String>,
    pub ssh_merge_pillar: bool,
    /// The Salt release whose pillar rules apply ([`SaltVersion::pillar_data`]).
    pub version: SaltVersion,
}

impl PillarOptions {
    pub fn from_opts(opts: &Opts) -> PillarOptions {
        let raw = &opts.raw;
        let truthy = |k: &str, default: bool| raw.get(k).map_or(default, |v| Val::from_json(v, None).truthy());
        let string = |k: &str| raw.get(k).filter(|v| Val::from_json(v, None).truthy()).map(|v| Val::from_json(v, None).py_str());
        PillarOptions {
            strategy: string("pillar_source_merging_strategy").unwrap_or_else(|| "smart".into()),
            merge_lists: truthy("pillar_merge_lists", false),
            renderer: opts.renderer.clone(),
            pillarenv: string("pillarenv"),
            includes_override_sls: truthy("pillar_includes_override_sls", false),
            safe_render_error: truthy("pillar_safe_render_error", true),
            env_order: opts.env_order.clone(),
            state_top: opts.state_top.clone(),
            saltenv: opts.saltenv.clone(),
            ssh_merge_pillar: truthy("ssh_merge_pillar", true),
            version: opts.version,
        }
    }
}

/// Who the pillar is for.
pub struct PillarMinion<'a> {
    pub id: &'a str,
    pub grains: &'a Value,
    pub nodegroups: &'a Value,
    /// Where what the compile asks of the minion is recorded (its id when an ext_pillar gets
    /// it, what the top file's matchers answered).
    pub facts: Option<&'a crate::workspace::facts::FactLog>,
}

/// A computed pillar.
#[derive(Debug, Clone)]
pub struct Pillar {
    /// What `pillar.items` returns, `_errors` included.
    pub pillar: Value,
    pub errors: Vec<PillarError>,
    pub layers: Vec<Layer>,
    /// Who set each value of [`Pillar::pillar`] (layers index [`Pillar::layers`]).
    pub origins: Origins,
    pub matches: Matches,
    pub targets: Vec<PillarTargetDecision>,
    /// Salt raised instead of answering (its exception, e.g. `UnboundLocalError: ...`): no
    /// pillar, and `salt-call` fails. The error is also among [`Pillar::errors`], so whatever
    /// needs the pillar refuses.
    pub raised: Option<String>,
}

impl Pillar {
    /// Where `o` (a value's origin) came from, for people: `[env] sls file:line, over [env]
    /// other`, or the ext_pillar entries, or the pillar the compile started from. `rel` shows
    /// a path.
    pub fn describe(&self, files: &crate::workspace::vfs::FileTable, o: &crate::mapstack::origin::Origin, rel: &dyn Fn(&std::path::Path) -> String) -> String {
        let name = |i: usize| {
            let l = &self.layers[i];
            match (i, l.path.is_none() && l.sls == "ext_pillar" && l.env.is_empty()) {
                (0, _) => "the earlier pillar".to_string(),
                (_, true) => "the ext_pillar entries".to_string(),
                _ => format!("[{}] {}", l.env, l.sls),
            }
        };
        let l = &self.layers[o.layer];
        let place = match (&l.path, &o.at) {
            (Some(p), Some(at)) => format!("{}:{}", rel(p), files.human(at.file, at.span.start).0),
            (Some(p), None) => rel(p),
            (None, _) if o.layer == 0 => "the configuration's `pillar:` (or Salt's first compile of the pillar)".to_string(),
            (None, _) if l.sls == "ext_pillar" && l.env.is_empty() => "the ext_pillar entries (the configured queries)".to_string(),
            (None, _) => format!("missing SLS `{}`", l.sls),
        };
        let sls = if o.layer == 0 || l.env.is_empty() { String::new() } else { format!("[{}] {} ", l.env, l.sls) };
        let over: Vec<String> = o.overrode.iter().map(|i| name(*i)).collect();
        let over = if over.is_empty() { String::new() } else { format!(", over {}", over.join(", ")) };
        format!("{sls}{place}{over}")
    }

    /// What Salt puts under `_errors`: with any, every state function (`state.apply`,
    /// `show_lowstate`, `show_low_sls`, ...) refuses to run ("Pillar failed to render").
    pub fn salt_errors(&self) -> Vec<&SaltError> {
        self.in_errors().map(|e| &e.diag).collect()
    }

    /// [`Pillar::salt_errors`] in Salt's words, as `_errors` holds them.
    pub fn salt_error_texts(&self) -> Vec<&str> {
        self.in_errors().filter_map(|e| e.salt.as_deref()).collect()
    }

    /// The errors that are `_errors`: this compile's own, else those a remote carried in.
    fn in_errors(&self) -> impl Iterator<Item = &PillarError> {
        let own = self.errors.iter().any(|e| e.salt.is_some() && !e.carried);
        self.errors.iter().filter(move |e| e.salt.is_some() && e.carried != own)
    }

    /// The pillar without anything computed: `base` as it is.
    pub fn literal(base: Value) -> Pillar {
        let origins = Origins::of(&base, 0, None, None);
        let layer = Layer { env: String::new(), sls: String::new(), path: None, included_by: None };
        Pillar { pillar: base, errors: Vec::new(), layers: vec![layer], origins, matches: Matches::new(), targets: Vec::new(), raised: None }
    }
}
