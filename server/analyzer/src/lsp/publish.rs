//! The diagnostics round: after indexing (with `$/progress` when the client supports it) and
//! then after every change, debounced, it brings the index up to the newest revision on the
//! blocking pool, and publishes the diagnostics of every file that may have changed, tagged
//! with the document version. A round that an edit overtook is dropped, not published; its
//! files are carried into the next round.

use std::collections::BTreeSet;
use std::panic::AssertUnwindSafe;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use ide::{Analysis, Cancelled};
use serde_json::json;
use tokio::sync::Notify;
use tower_lsp::lsp_types::{self as lsp, notification::Notification, MessageType};
use tower_lsp::Client;

use super::state::{lock, ClientFlags, State};
use super::to_proto;

/// How long the round waits after a change for more changes.
const DEBOUNCE: Duration = Duration::from_millis(150);

/// `salt-analyzer/status`: sent (when the client asks for it in its initialization options
/// with `statusNotification: true`) after every round that published the newest revision.
pub enum Status {}

impl Notification for Status {
    type Params = serde_json::Value;
    const METHOD: &'static str = "salt-analyzer/status";
}

struct Publication {
    path: PathBuf,
    version: Option<i32>,
    semantic: Vec<ide::Diagnostic>,
    items: Vec<lsp::Diagnostic>,
}

pub(crate) fn start(client: Client, state: Arc<Mutex<State>>, wake: Arc<Notify>, flags: ClientFlags) {
    tokio::spawn(run(client, state, wake, flags));
}

async fn run(client: Client, state: Arc<Mutex<State>>, wake: Arc<Notify>, flags: ClientFlags) {
    let token = lsp::NumberOrString::String("salt-analyzer/indexing".into());
    let mut progress = flags.work_done_progress
        && client.send_request::<lsp::request::WorkDoneProgressCreate>(lsp::WorkDoneProgressCreateParams { token: token.clone() }).await.is_ok();
    if progress {
        let begin = lsp::WorkDoneProgress::Begin(lsp::WorkDoneProgressBegin { title: "Indexing Salt states".into(), ..Default::default() });
        client
            .send_notification::<lsp::notification::Progress>(lsp::ProgressParams { token: token.clone(), value: lsp::ProgressParamsValue::WorkDone(begin) })
            .await;
    }
    let mut pending: BTreeSet<PathBuf> = BTreeSet::new();
    let mut first = true;
    let mut announced: Option<u64> = None;
    loop {
        if !first {
            wake.notified().await;
            tokio::time::sleep(DEBOUNCE).await;
        }
        first = false;
        let Some(snap) = lock(&state).host.as_ref().map(|h| h.snapshot()) else { continue };
        let carried = pending.clone();
        let started = std::time::Instant::now();
        let fleet = lock(&state).fleet.clone();
        let job = tokio::task::spawn_blocking(move || {
            let res = std::panic::catch_unwind(AssertUnwindSafe(|| compute(&snap, flags, carried, &fleet)));
            (snap, res)
        });
        let Ok((snap, res)) = job.await else { continue };
        let (files, result) = match res {
            Ok(r) => r,
            Err(p) => {
                let msg = p.downcast_ref::<&str>().map(|s| s.to_string()).or_else(|| p.downcast_ref::<String>().cloned()).unwrap_or_default();
                client.log_message(MessageType::ERROR, format!("salt-analyzer: internal error while computing diagnostics: {msg}")).await;
                continue;
            }
        };
        pending.extend(files);
        let Ok(publications) = result else { continue };
        // Store and publish only what is still the newest revision.
        let fresh = {
            let mut st = lock(&state);
            let current = st.host.as_ref().map(|h| h.revision());
            if current != Some(snap.revision()) {
                false
            } else {
                for p in &publications {
                    st.semantic.insert(p.path.clone(), p.semantic.clone());
                }
                true
            }
        };
        if !fresh {
            continue;
        }
        let count = publications.len();
        for p in publications {
            client.publish_diagnostics(to_proto::url(&p.path), p.items, p.version).await;
        }
        pending.clear();
        if progress {
            let end = lsp::WorkDoneProgress::End(lsp::WorkDoneProgressEnd {
                message: Some(format!("{} files in {} ms", snap.workspace_files().len(), started.elapsed().as_millis())),
            });
            client
                .send_notification::<lsp::notification::Progress>(lsp::ProgressParams { token: token.clone(), value: lsp::ProgressParamsValue::WorkDone(end) })
                .await;
            progress = false;
        }
        if flags.status_notification && announced.is_none_or(|a| a < snap.revision()) {
            announced = Some(snap.revision());
            client.send_notification::<Status>(json!({"revision": snap.revision(), "quiescent": true, "published": count})).await;
        }
    }
}

/// The files to publish and their diagnostics, or `Cancelled` (the files are still returned,
/// so the next round publishes them).
fn compute(
    snap: &Analysis,
    flags: ClientFlags,
    carried: BTreeSet<PathBuf>,
    fleet: &std::collections::HashMap<PathBuf, Vec<ide::Diagnostic>>,
) -> (BTreeSet<PathBuf>, Result<Vec<Publication>, Cancelled>) {
    let mut files = carried;
    match snap.take_changed_files() {
        Ok(changed) => files.extend(changed),
        Err(c) => return (files, Err(c)),
    }
    let mut out = Vec::with_capacity(files.len());
    for path in &files {
        let semantic = match snap.diagnostics(path) {
            Ok(d) => d,
            Err(c) => return (files, Err(c)),
        };
        let mut all = snap.syntax_diagnostics(path);
        all.extend(semantic.iter().cloned());
        // The last "Check Fleet" findings stay until the command runs again.
        all.extend(fleet.get(path).into_iter().flatten().cloned());
        let items = to_proto::diagnostics(snap, flags.encoding, path, &all);
        out.push(Publication { path: path.clone(), version: snap.document_version(path), semantic, items });
    }
    (files, Ok(out))
}
