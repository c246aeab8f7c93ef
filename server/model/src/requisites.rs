//! Requisite vocabulary (`salt/state.py` `STATE_REQUISITE_KEYWORDS`,
//! `salt/utils/requisite.py`): keyword sets, 3008 type weights, and which state modules have
//! `mod_watch`. Version-specific tables live here and in `config`.

/// `STATE_REQUISITE_KEYWORDS`: every direct requisite type plus `onfail_stop`.
pub const STATE_REQUISITE_KEYWORDS: &[&str] = &[
    "onfail",
    "onfail_any",
    "onfail_all",
    "require",
    "require_any",
    "onchanges",
    "onchanges_any",
    "watch",
    "watch_any",
    "prereq",
    "prerequired",
    "listen",
    "onfail_stop",
];

/// 3008 `RequisiteType`, in declaration order (the index is the weight).
pub const REQUISITE_TYPES: &[&str] =
    &["onfail", "onfail_any", "onfail_all", "require", "require_any", "onchanges", "onchanges_any", "watch", "watch_any", "prereq", "prerequired", "listen"];

/// The types `DependencyGraph.add_requisites` turns into edges, in the order it walks them.
pub const ORDERING_TYPES: &[&str] =
    &["require", "require_any", "watch", "watch_any", "prereq", "onfail", "onfail_any", "onfail_all", "onchanges", "onchanges_any"];

/// The keys `requisite_in` expands.
pub const REQUISITE_IN: &[&str] = &["require_in", "watch_in", "onfail_in", "onchanges_in", "use", "use_in", "prereq_in"];

/// `req_in_all`: args `use`/`use_in` never copy.
pub const REQ_IN_ALL: &[&str] =
    &["require_in", "watch_in", "onfail_in", "onchanges_in", "use", "use_in", "prereq_in", "require", "watch", "prereq", "onfail", "onfail_stop", "onchanges"];

/// Weight of a requisite type (its index in `RequisiteType`).
pub fn weight(kind: &str) -> usize {
    REQUISITE_TYPES.iter().position(|k| *k == kind).unwrap_or(usize::MAX)
}

/// State modules shipped with Salt 3008 that define `mod_watch` (`grep -l 'def mod_watch'
/// salt/states/*.py`). A `watch` on a chunk of any other module becomes `require` when chunks
/// are ordered (`_reconcile_watch_req`).
pub const MOD_WATCH_MODULES: &[&str] = &["at", "cmd", "etcd", "mount", "pkg", "service", "test"];

pub fn has_mod_watch(module: &str) -> bool {
    MOD_WATCH_MODULES.contains(&module)
}

/// Whether an argument key is a requisite (direct, `_in`, `use`): every one of
/// [`REQUISITE_TYPES`] and [`ORDERING_TYPES`] is.
pub fn is_requisite_key(key: &str) -> bool {
    STATE_REQUISITE_KEYWORDS.contains(&key) || REQUISITE_IN.contains(&key) || key == "listen_in"
}

/// `STATE_REQUISITE_IN_KEYWORDS`.
pub const STATE_REQUISITE_IN_KEYWORDS: &[&str] = &["onchanges_in", "onfail_in", "prereq_in", "watch_in", "require_in", "listen_in"];

/// `STATE_RUNTIME_KEYWORDS`: what `State.call` hands to no state function.
pub const STATE_RUNTIME_KEYWORDS: &[&str] = &[
    "fun",
    "state",
    "check_cmd",
    "cmd_opts_exclude",
    "failhard",
    "onlyif",
    "unless",
    "creates",
    "retry",
    "order",
    "parallel",
    "prereq",
    "prereq_in",
    "reload_modules",
    "reload_grains",
    "reload_pillar",
    "runas",
    "runas_password",
    "no_log",
    "fire_event",
    "saltenv",
    "umask",
    "use",
    "use_in",
    "__env__",
    "__sls__",
    "__id__",
    "__sls_included_from__",
    "__orchestration_jid__",
    "__pub_user",
    "__pub_arg",
    "__pub_jid",
    "__pub_fun",
    "__pub_tgt",
    "__pub_ret",
    "__pub_pid",
    "__pub_tgt_type",
    "__pub_resource_targets",
    "__pub_minion_is_target",
    "__pub_resource_target",
    "__pub_resource_job",
    "__pub_pure_resource_target",
    "__prereq__",
    "__prerequiring__",
    "__umask__",
];

/// Whether `key` is in `STATE_INTERNAL_KEYWORDS` (requisites, requisite-ins, runtime
/// keywords): the `expected_extra_kws` of `State.call`'s `format_call`, never an argument of
/// the state function.
pub fn is_internal_keyword(key: &str) -> bool {
    STATE_REQUISITE_KEYWORDS.contains(&key) || STATE_REQUISITE_IN_KEYWORDS.contains(&key) || STATE_RUNTIME_KEYWORDS.contains(&key)
}
