//! Salt's documentation of the state functions, for hovers: asked of the user's own Salt
//! once per Salt version, in the background (`salt-call --version`, then
//! `salt-call --local --out=json sys.state_doc` with a throwaway configuration), cached under
//! the user's cache directory, and handed to the host. It never blocks a request; without
//! Salt the hovers say where the docs would come from. The docs also cover the Salt
//! extensions the user installed, since their Salt loads them.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use ide::{DocsStatus, StateDocs};

use super::state::{lock, SaltCall, State};
use crate::saltcall::{on_path, run};

/// How long `salt-call --version` may take.
const VERSION_TIMEOUT: Duration = Duration::from_secs(30);
/// How long `sys.state_doc` may take (it loads every state module).
const DOCS_TIMEOUT: Duration = Duration::from_secs(180);

/// Starts asking Salt in the background; the host's docs status follows, and the
/// diagnostics round is woken (an extension's functions are no longer unknown).
pub(crate) fn start(state: Arc<Mutex<State>>, wake: Arc<tokio::sync::Notify>, setting: SaltCall) {
    let set = move |status: DocsStatus| {
        if let Some(host) = lock(&state).host.as_mut() {
            host.set_state_docs(status);
        }
        wake.notify_one();
    };
    let program = match setting {
        SaltCall::Off => {
            set(DocsStatus::Off("Salt's documentation is not asked for: the `saltCall` setting is `false`.".into()));
            return;
        }
        SaltCall::At(p) => Some(p),
        SaltCall::OnPath => on_path("salt-call"),
    };
    let Some(program) = program else {
        set(DocsStatus::Off("Salt's documentation shows here when `salt-call` is on the PATH, or when the `saltCall` setting names it.".into()));
        return;
    };
    set(DocsStatus::Loading(format!("Asking `{} --local sys.state_doc` for Salt's documentation...", program.display())));
    std::thread::spawn(move || set(fetch(&program, &cache_dir())));
}

/// The docs of the Salt at `program`: from the cache when this version answered before.
fn fetch(program: &Path, cache: &Option<PathBuf>) -> DocsStatus {
    let version = match run(program, &["--version"], VERSION_TIMEOUT) {
        Ok(out) => match out.split_whitespace().nth(1) {
            Some(v) => v.to_string(),
            None => return DocsStatus::Failed(format!("`{} --version` said {:?}", program.display(), out.trim())),
        },
        Err(e) => return DocsStatus::Failed(e),
    };
    // Per Salt version and installation (another virtualenv of the same version may have
    // other extensions).
    let install = {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        program.hash(&mut h);
        h.finish() & 0xffff_ffff
    };
    let cached = cache.as_ref().map(|dir| dir.join(format!("state-docs-{version}-{install:08x}.json")));
    if let Some(docs) = cached.as_ref().and_then(|f| std::fs::read_to_string(f).ok()).and_then(|t| parse(&version, &t)) {
        return DocsStatus::Ready(Arc::new(docs));
    }
    let tmp = std::env::temp_dir().join(format!("salt-analyzer-docs-{}", std::process::id()));
    let conf = tmp.join("minion");
    // A throwaway root: Salt writes its cache, PKI and log there, never into the system's.
    let config = format!("root_dir: {}\nfile_client: local\nfile_roots: {{base: [{}]}}\n", tmp.display(), tmp.join("srv").display());
    if let Err(e) = std::fs::create_dir_all(tmp.join("srv")).and_then(|_| std::fs::write(&conf, config)) {
        return DocsStatus::Failed(format!("cannot write a configuration for salt-call in {}: {e}", tmp.display()));
    }
    let tmp_str = tmp.display().to_string();
    let answer = run(program, &["--local", "--out=json", "--log-level=quiet", "--config-dir", &tmp_str, "sys.state_doc"], DOCS_TIMEOUT);
    let _ = std::fs::remove_dir_all(&tmp);
    let text = match answer {
        Ok(t) => t,
        Err(e) => return DocsStatus::Failed(e),
    };
    let Some(docs) = parse(&version, &text) else {
        return DocsStatus::Failed(format!("`{} sys.state_doc` did not answer with JSON", program.display()));
    };
    if let Some(f) = cached {
        if let Some(dir) = f.parent() {
            let part = f.with_extension("json.part");
            let _ = std::fs::create_dir_all(dir).and_then(|_| std::fs::write(&part, &text)).and_then(|_| std::fs::rename(&part, &f));
        }
    }
    DocsStatus::Ready(Arc::new(docs))
}

/// `{"local": {"pkg.installed": "doc", ...}}` as salt-call prints it.
fn parse(version: &str, text: &str) -> Option<StateDocs> {
    let v: serde_json::Value = serde_json::from_str(text).ok()?;
    let local = v.get("local")?.as_object()?;
    let docs = local.iter().filter_map(|(k, v)| v.as_str().map(|d| (k.clone(), d.to_string()))).collect();
    Some(StateDocs { salt_version: version.to_string(), docs })
}

/// `$XDG_CACHE_HOME/salt-analyzer`, else `~/.cache/salt-analyzer`.
fn cache_dir() -> Option<PathBuf> {
    let base = std::env::var_os("XDG_CACHE_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))?;
    Some(base.join("salt-analyzer"))
}
