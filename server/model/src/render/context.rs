//! What a template sees: [`JinjaSetup`], what every template of one compilation shares (the
//! minion's data, how to read `salt://` files, the functions the pipeline answers for the
//! `salt` object), and [`JinjaContext`], one file's view of it.

use std::sync::{Arc, Mutex};

use serde_json::Value;

use crate::render::budget;
use crate::render::salt_fns::catalog::ExecFunctions;
use crate::workspace::facts::{Data, FactLog, Which};

/// Decides a target for `match.filter_by`: `(matcher, target, minion_id, delimiter)`, the
/// matcher named as Salt's `salt/matchers/<name>_match.py` is, for this minion (or for
/// `minion_id` where the matcher takes one).
pub type Matcher = Arc<dyn Fn(&str, &str, Option<&str>, Option<&str>) -> bool + Send + Sync>;

/// Answers `salt["map.data"](tpldir)` (saltext-formula) for this minion: what it returns and
/// what was not analysed, or the exception Salt raises. The pipeline passes one in (the
/// mapstack model comes after `render`).
pub type MapDataFn = Arc<dyn Fn(&str) -> Result<(Value, Vec<String>), String> + Send + Sync>;

/// What a template sees.
#[derive(Clone)]
pub struct JinjaContext {
    /// The minion's data, read through [`Data`] (which records what is read when the compile
    /// records it).
    pub grains: Data,
    /// The pillar Salt's functions read (`__pillar__`: in a highstate, as the files rendered
    /// before this one changed it in place, [`crate::render::carry`]).
    pub pillar: Data,
    /// The template's `pillar` variable where it is not `pillar`: in a highstate where a file
    /// changed either in place (Salt's renderer and its functions each have their own dict).
    pub template_pillar: Option<Data>,
    pub opts: Data,
    pub saltenv: String,
    /// The SLS name (`web.tls`), empty for top files.
    pub sls: String,
    /// The file's path relative to its root (`web/tls.sls`).
    pub tplfile: String,
    /// Salt's `tplpath`: the file client's cached copy of the file (`{cachedir}/files/{saltenv}/{rel}`).
    pub tplpath: String,
    /// Reads `salt://` relative paths for `import`/`include`/`from`.
    pub loader: Loader,
    /// Where a template instrumented by [`crate::render::probe`] records the values it saw.
    pub probe: Option<Probed>,
    /// Where a template traced by [`crate::render::probe::trace`] tallies every block.
    pub trace: Option<Traced>,
    /// Decides targets for `match.filter_by`; without one that function is not answered.
    pub matcher: Option<Matcher>,
    /// Answers `salt["map.data"]`; without one that function is not answered.
    pub map_data: Option<MapDataFn>,
    /// Variables a caller passes besides the state system's (`cp.get_template`'s keyword
    /// arguments: `tplroot`, `mapdata`, ...); they override the SLS context's.
    pub extra: Vec<(String, serde_json::Value)>,
    /// The profile's pinned answers for host-dependent functions, by function and first
    /// argument (see `salt_fns::pinned`).
    pub functions: serde_json::Value,
    /// Answers `salt['cp.list_states'](saltenv)`; without one that function is not answered.
    pub list_states: Option<StateLister>,
    /// How long the render may take ([`crate::render::budget`]).
    pub budget: std::time::Duration,
    /// The Salt release whose Jinja environment renders it.
    pub version: crate::version::SaltVersion,
    /// The execution functions the minion has; a function it lacks is undefined, as Salt's
    /// loader leaves it. Without one every function is taken to exist.
    pub exec: Option<Arc<ExecFunctions>>,
}

/// What every template of one compilation shares: the minion's data and a way to read
/// `salt://` files of an environment (`(env, relative path)`), for imports.
#[derive(Clone)]
pub struct JinjaSetup {
    /// The minion's grains, pillar and options, read through [`Data`] so that a compile that
    /// shares its result with other minions records what it read of them.
    pub grains: Data,
    pub pillar: Data,
    pub opts: Data,
    pub read: EnvReader,
    pub matcher: Option<Matcher>,
    pub map_data: Option<MapDataFn>,
    /// The profile's pinned answers for host-dependent functions.
    pub functions: serde_json::Value,
    /// The SLS names of an environment (`cp.list_states`), from the compile's file roots.
    pub list_states: Option<StateLister>,
    /// Everything above that a render depends on besides the files it reads: the minion's
    /// id, grains, pillar and nodegroups, the options, and which functions are answered.
    pub fingerprint: u64,
    /// Where compiles keep rendered SLS files for the next compile (none: every file is
    /// rendered afresh).
    pub memo: Option<crate::render::memo::RenderMemo>,
    /// Where compiles of several minions share the parses of plain SLS files.
    pub parses: Option<crate::render::memo::ParseMemo>,
    /// How long one file's render may take ([`crate::render::budget::DEFAULT`]).
    pub budget: std::time::Duration,
    /// The minion's Salt release.
    pub version: crate::version::SaltVersion,
    /// The execution functions the minion has (none: every function is taken to exist).
    pub exec: Option<Arc<ExecFunctions>>,
}

/// Reads a `salt://` relative path of the file's environment.
pub type Loader = Arc<dyn Fn(&str) -> Option<String> + Send + Sync>;
/// The SLS names of an environment, sorted (`Client.list_states(env)`).
pub type StateLister = Arc<dyn Fn(&str) -> Vec<String> + Send + Sync>;
/// Reads `(env, salt:// relative path)`.
pub type EnvReader = Arc<dyn Fn(&str, &str) -> Option<String> + Send + Sync>;
/// The values a probed block took, by the index of the probed name.
pub type Probed = Arc<Mutex<Vec<(usize, String)>>>;
/// What each traced expression took, by its index.
pub type Traced = Arc<Mutex<Vec<crate::render::probe::Tally>>>;

impl JinjaSetup {
    /// The context for one file: `rel` is its path under the root, `sls` its SLS name, `path`
    /// where it is.
    pub fn context(&self, saltenv: &str, sls: &str, rel: &str, path: &std::path::Path) -> JinjaContext {
        let read = self.read.clone();
        let env = saltenv.to_string();
        JinjaContext {
            grains: self.grains.clone(),
            pillar: self.pillar.clone(),
            opts: self.opts.clone(),
            saltenv: saltenv.to_string(),
            sls: sls.to_string(),
            tplfile: rel.to_string(),
            tplpath: self.tplpath(saltenv, rel, path),
            loader: Arc::new(move |name| read(&env, name)),
            probe: None,
            trace: None,
            matcher: self.matcher.clone(),
            map_data: self.map_data.clone(),
            extra: Vec::new(),
            functions: self.functions.clone(),
            list_states: self.list_states.clone(),
            template_pillar: None,
            budget: self.budget,
            version: self.version,
            exec: self.exec.clone(),
        }
    }

    /// Salt's `tplpath` for the file: the copy the file client caches and renders,
    /// `{cachedir}/files/{saltenv}/{rel}`; for a file outside the roots (no `rel`), its path.
    fn tplpath(&self, saltenv: &str, rel: &str, path: &std::path::Path) -> String {
        if rel.is_empty() || rel.starts_with('/') {
            return std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf()).to_string_lossy().into_owned();
        }
        let cachedir = self.opts.get("cachedir").and_then(|v| v.as_str()).unwrap_or("/var/cache/salt/minion");
        format!("{}/files/{saltenv}/{}", cachedir.trim_end_matches('/'), crate::py::path::normpath(rel))
    }

    /// `cp.list_states` answered by `list` (the pipeline passes the file roots' listing).
    pub fn with_list_states(self, list: StateLister) -> JinjaSetup {
        JinjaSetup { list_states: Some(list), ..self }
    }

    /// The pillar's dicts are `OrderedDict`s (a pillar Salt rendered from SLS files).
    pub fn with_ordered_pillar(mut self, yes: bool) -> JinjaSetup {
        if yes != self.pillar.ordered_dicts() {
            self.pillar = self.pillar.with_ordered_dicts(yes);
            self.fingerprint = crate::workspace::reads::hash(&(self.fingerprint, yes));
        }
        self
    }

    /// `minion`'s grains and pillar, `opts`, and `read` for the files templates import.
    pub fn new(
        minion: &crate::workspace::minion::Minion,
        opts: &crate::workspace::config::Opts,
        read: impl Fn(&str, &str) -> Option<String> + Send + Sync + 'static,
    ) -> JinjaSetup {
        let raw = minion_opts(minion, opts);
        let fingerprint = crate::workspace::reads::hash(&(
            serde_json::json!([minion.id, minion.grains, minion.pillar, minion.nodegroups, raw, minion.functions]).to_string(),
            format!("{:?} {:?} {}", opts.saltenv, opts.file_roots, opts.version),
        ));
        JinjaSetup {
            grains: Data::new(Which::Grains, minion.grains.clone()),
            pillar: Data::new(Which::Pillar, minion.pillar.clone()),
            opts: Data::new(Which::Opts, raw),
            read: Arc::new(read),
            matcher: None,
            map_data: None,
            functions: minion.functions.clone(),
            list_states: None,
            fingerprint,
            memo: None,
            parses: None,
            budget: budget::DEFAULT,
            version: opts.version,
            exec: None,
        }
    }

    /// The same setup recording what templates read of the minion's grains, pillar and
    /// options in `log` (none: nothing is recorded).
    pub fn recording(self, log: Option<&Arc<FactLog>>) -> JinjaSetup {
        JinjaSetup { grains: self.grains.recorded(log), pillar: self.pillar.recorded(log), opts: self.opts.recorded(log), ..self }
    }

    /// The same setup answering `match.filter_by` with `matcher` (a function of the minion,
    /// which the fingerprint covers).
    pub fn with_matcher(self, matcher: Matcher) -> JinjaSetup {
        let fingerprint = crate::workspace::reads::hash(&(self.fingerprint, "matcher"));
        JinjaSetup { matcher: Some(matcher), fingerprint, ..self }
    }

    /// The same setup answering `salt["map.data"]` with `map_data` (through the compile's
    /// recorder, so what it reads is among each render's reads).
    pub fn with_map_data(self, map_data: MapDataFn) -> JinjaSetup {
        let fingerprint = crate::workspace::reads::hash(&(self.fingerprint, "map.data"));
        JinjaSetup { map_data: Some(map_data), fingerprint, ..self }
    }

    /// The same setup sharing the parses of plain SLS files through `parses`.
    pub fn with_parses(self, parses: crate::render::memo::ParseMemo) -> JinjaSetup {
        JinjaSetup { parses: Some(parses), ..self }
    }

    /// The same setup where a template finds only the execution functions of `exec` (which
    /// the fingerprint covers).
    pub fn with_exec(self, exec: ExecFunctions) -> JinjaSetup {
        let fingerprint = crate::workspace::reads::hash(&(self.fingerprint, exec.fingerprint()));
        JinjaSetup { exec: Some(Arc::new(exec)), fingerprint, ..self }
    }

    /// The same setup keeping rendered SLS files in `memo`.
    pub fn with_memo(self, memo: crate::render::memo::RenderMemo) -> JinjaSetup {
        JinjaSetup { memo: Some(memo), ..self }
    }
}

/// The options templates of `minion` see: the workspace's (Salt's defaults under what the
/// configuration sets) with the minion's id, which Salt's opts always hold (`config.get('id')`
/// finds it there first).
pub fn minion_opts(minion: &crate::workspace::minion::Minion, opts: &crate::workspace::config::Opts) -> serde_json::Value {
    let mut raw = opts.template_opts();
    if let Some(m) = raw.as_object_mut() {
        m.entry("id").or_insert_with(|| serde_json::Value::String(minion.id.clone()));
    }
    raw
}

impl std::fmt::Debug for JinjaContext {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JinjaContext").field("saltenv", &self.saltenv).field("sls", &self.sls).finish()
    }
}
