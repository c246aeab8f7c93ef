//! The `LanguageServer` implementation: document sync and configuration notifications mutate
//! the `AnalysisHost` before any `.await`; requests take a snapshot and run the ide query on
//! the blocking pool, isolated from panics.

use std::panic::AssertUnwindSafe;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use ide::{Analysis, AnalysisHost, Cancelled};
use serde::Deserialize;
use serde_json::{json, Value};
use syntax::line_index::LineIndex;
use tokio::sync::Notify;
use tower_lsp::jsonrpc::{Error, ErrorCode, Result};
use tower_lsp::lsp_types::*;
use tower_lsp::{Client, LanguageServer};

use super::state::{lock, ClientFlags, State};
use super::{from_proto, publish, to_proto};

pub struct Backend {
    pub(crate) client: Client,
    pub(crate) state: Arc<Mutex<State>>,
    /// Wakes the diagnostics round.
    pub(crate) wake: Arc<Notify>,
}

/// The parameters of `salt-analyzer/debugText`.
#[derive(Debug, Deserialize)]
pub struct DebugTextParams {
    pub uri: Url,
}

fn content_modified() -> Error {
    Error { code: ErrorCode::ServerError(-32801), message: "content modified".into(), data: None }
}

fn internal(message: String) -> Error {
    Error { code: ErrorCode::InternalError, message: message.into(), data: None }
}

fn panic_message(p: &(dyn std::any::Any + Send)) -> String {
    p.downcast_ref::<&str>().map(|s| s.to_string()).or_else(|| p.downcast_ref::<String>().cloned()).unwrap_or_else(|| "a panic".into())
}

impl Backend {
    pub fn new(client: Client) -> Backend {
        let flags = ClientFlags {
            encoding: syntax::line_index::PositionEncoding::Utf16,
            work_done_progress: false,
            dynamic_watchers: false,
            resource_create: false,
            resource_rename: false,
            status_notification: false,
            first_run_message: false,
            pull_diagnostics: false,
            inlay_refresh: false,
            hierarchical_symbols: false,
        };
        let state = State {
            host: None,
            flags,
            semantic: Default::default(),
            fleet: Default::default(),
            initial_settings: Default::default(),
            impact_to: None,
            inlay: Default::default(),
            tokens: Default::default(),
            tokens_id: 0,
        };
        Backend { client, state: Arc::new(Mutex::new(state)), wake: Arc::new(Notify::new()) }
    }

    /// Runs an ide query on a snapshot, on the blocking pool, with panics turned into an
    /// error reply and a stale snapshot into `ContentModified`.
    async fn query<T, F>(&self, f: F) -> Result<T>
    where
        T: Send + 'static,
        F: FnOnce(&Analysis, &ClientFlags) -> std::result::Result<T, Cancelled> + Send + 'static,
    {
        let (snap, flags) = {
            let st = lock(&self.state);
            let Some(host) = st.host.as_ref() else { return Err(Error::invalid_request()) };
            (host.snapshot(), st.flags)
        };
        let res = tokio::task::spawn_blocking(move || std::panic::catch_unwind(AssertUnwindSafe(|| f(&snap, &flags)))).await;
        match res {
            Ok(Ok(Ok(v))) => Ok(v),
            Ok(Ok(Err(Cancelled))) => Err(content_modified()),
            Ok(Err(p)) => {
                let msg = format!("salt-analyzer: internal error: {}", panic_message(&*p));
                self.client.log_message(MessageType::ERROR, &msg).await;
                Err(internal(msg))
            }
            Err(e) => Err(internal(format!("salt-analyzer: internal error: {e}"))),
        }
    }

    /// Mutates the host (synchronously, before any `.await`), isolated from panics.
    /// Asks the client to ask again for the inlay hints of its open documents (the minion, or
    /// what it renders with, changed), when it takes that request.
    fn refresh_inlay_hints(&self) {
        if lock(&self.state).flags.inlay_refresh {
            let client = self.client.clone();
            tokio::spawn(async move {
                let _ = client.inlay_hint_refresh().await;
            });
        }
    }

    fn mutate(&self, f: impl FnOnce(&mut State)) -> bool {
        let mut st = lock(&self.state);
        let ok = std::panic::catch_unwind(AssertUnwindSafe(|| f(&mut st))).is_ok();
        drop(st);
        self.wake.notify_one();
        ok
    }

    /// `salt-analyzer/debugText`: the server's view of a document (tests compare it with theirs).
    pub async fn debug_text(&self, params: DebugTextParams) -> Result<Value> {
        let st = lock(&self.state);
        let Some(host) = st.host.as_ref() else { return Err(Error::invalid_request()) };
        let a = host.snapshot();
        let path = from_proto::path(&params.uri).ok_or_else(Error::invalid_request)?;
        Ok(json!({
            "text": a.text(&path).map(|t| t.to_string()),
            "version": a.document_version(&path),
            "revision": a.revision(),
        }))
    }

    /// `salt-analyzer/debugStats`: how many roots the index has checked and rechecked so far
    /// (tests check that keystrokes reuse the last check). The snapshot is taken under the
    /// state lock and the index read after it is released, so a diagnostics round holding the
    /// index is waited for without blocking the host.
    pub async fn debug_stats(&self) -> Result<Value> {
        let a = {
            let st = lock(&self.state);
            st.host.as_ref().ok_or_else(Error::invalid_request)?.snapshot()
        };
        let s = a.index_stats();
        Ok(json!({"checked": s.checked, "rechecked": s.rechecked}))
    }

    /// `salt-analyzer/debugPanic`: panics inside the request isolation (tests check that the
    /// server answers with an error and keeps serving).
    pub async fn debug_panic(&self) -> Result<Value> {
        self.query(|_, _| -> std::result::Result<Value, Cancelled> { panic!("debugPanic was asked to panic") }).await
    }

    /// "Check Fleet": every fleet minion's highstate checked on the blocking pool, with
    /// progress; its findings are published with each file's own diagnostics.
    async fn check_fleet(&self) -> Result<Option<Value>> {
        let flags = lock(&self.state).flags;
        let token = NumberOrString::String("salt-analyzer/check-fleet".into());
        let progress = flags.work_done_progress
            && self.client.send_request::<request::WorkDoneProgressCreate>(WorkDoneProgressCreateParams { token: token.clone() }).await.is_ok();
        let report = |value: WorkDoneProgress| ProgressParams { token: token.clone(), value: ProgressParamsValue::WorkDone(value) };
        if progress {
            let begin = WorkDoneProgress::Begin(WorkDoneProgressBegin { title: "Checking the fleet's highstates".into(), ..Default::default() });
            self.client.send_notification::<notification::Progress>(report(begin)).await;
        }
        let result = self.query(|a, _| a.check_fleet()).await;
        let message = match &result {
            Ok(c) => format!("{} minions, {} findings", c.minions, c.by_file.values().map(Vec::len).sum::<usize>()),
            Err(e) => e.message.to_string(),
        };
        if progress {
            self.client.send_notification::<notification::Progress>(report(WorkDoneProgress::End(WorkDoneProgressEnd { message: Some(message) }))).await;
        }
        let check = result?;
        for p in &check.problems {
            self.client.log_message(MessageType::WARNING, format!("salt-analyzer: fleet: {p}")).await;
        }
        // Files with findings now, and those that had some before, are published again.
        let paths: Vec<PathBuf> = {
            let mut st = lock(&self.state);
            let mut paths: Vec<PathBuf> = st.fleet.keys().cloned().collect();
            paths.extend(check.by_file.keys().cloned());
            st.fleet = check.by_file.clone().into_iter().collect();
            paths.sort();
            paths.dedup();
            paths
        };
        for path in paths {
            self.publish_syntax(path).await;
        }
        let findings: usize = check.by_file.values().map(Vec::len).sum();
        Ok(Some(json!({"minions": check.minions, "findings": findings, "problems": check.problems})))
    }

    /// A document's semantic tokens (in a range, or all of them) in the protocol's form.
    async fn tokens_of(&self, uri: Url, range: Option<Range>) -> Result<Option<(PathBuf, Vec<SemanticToken>)>> {
        self.query(move |a, fl| {
            let Some(path) = Self::path_of(&uri) else { return Ok(None) };
            let Some(li) = a.line_index(&path) else { return Ok(None) };
            let range = range.map(|r| from_proto::range(&li, fl.encoding, r));
            let tokens = a.semantic_tokens(&path, range);
            Ok(Some((path, to_proto::semantic_tokens(&li, fl.encoding, &tokens))))
        })
        .await
    }

    /// Keeps a document's whole tokens for the next delta request; their result id.
    fn keep_tokens(&self, path: PathBuf, data: Vec<SemanticToken>) -> String {
        let mut st = lock(&self.state);
        st.tokens_id += 1;
        let id = st.tokens_id.to_string();
        st.tokens.insert(path, (id.clone(), data));
        id
    }

    fn path_of(uri: &Url) -> Option<PathBuf> {
        from_proto::path(uri)
    }

    /// The file a request names, with its line index (`None`: a URI that is no file, or a
    /// file the snapshot does not hold): what converts the request's positions.
    fn file(a: &Analysis, uri: &Url) -> Option<(PathBuf, Arc<LineIndex>)> {
        let path = Self::path_of(uri)?;
        let li = a.line_index(&path)?;
        Some((path, li))
    }

    /// [`Backend::file`] and the byte offset of a request's position in it.
    fn at(a: &Analysis, fl: &ClientFlags, pos: &TextDocumentPositionParams) -> Option<(PathBuf, Arc<LineIndex>, usize)> {
        let (path, li) = Self::file(a, &pos.text_document.uri)?;
        let offset = from_proto::offset(&li, fl.encoding, pos.position);
        Some((path, li, offset))
    }

    /// Publishes an open document's fresh syntax errors with its last semantic diagnostics.
    async fn publish_syntax(&self, path: PathBuf) {
        let msg = {
            let st = lock(&self.state);
            let Some(host) = st.host.as_ref() else { return };
            let a = host.snapshot();
            let mut ds = a.syntax_diagnostics(&path);
            let has_syntax = !ds.is_empty();
            let mut semantic = st.semantic.get(&path).cloned().unwrap_or_default();
            semantic.extend(st.fleet.get(&path).cloned().unwrap_or_default());
            ds.extend(semantic.into_iter().filter(|d| !(has_syntax && d.code == model::diagnostic::Code::YamlSyntax.as_str())));
            let items = to_proto::diagnostics(&a, st.flags.encoding, &path, &ds);
            (to_proto::url(&path), items, a.document_version(&path))
        };
        self.client.publish_diagnostics(msg.0, msg.1, msg.2).await;
    }
}

#[tower_lsp::async_trait]
impl LanguageServer for Backend {
    async fn initialize(&self, params: InitializeParams) -> Result<InitializeResult> {
        let flags = from_proto::client_flags(&params);
        let root = from_proto::root(&params).or_else(|| std::env::current_dir().ok()).unwrap_or_else(|| PathBuf::from("/"));
        let settings = from_proto::settings(params.initialization_options.as_ref());
        {
            let mut st = lock(&self.state);
            let mut host = AnalysisHost::new(&root);
            host.set_salt_config(settings.salt_config.clone());
            host.set_minion(settings.minion.clone());
            st.host = Some(host);
            st.flags = flags;
            st.impact_to = settings.impact_to;
            st.inlay = settings.inlay;
            st.initial_settings = settings;
        }
        Ok(InitializeResult {
            capabilities: to_proto::server_capabilities(&flags),
            server_info: Some(ServerInfo { name: "salt-analyzer".into(), version: Some(env!("CARGO_PKG_VERSION").into()) }),
        })
    }

    async fn initialized(&self, _: InitializedParams) {
        let (flags, problems) = {
            let st = lock(&self.state);
            (st.flags, st.initial_settings.problems.clone())
        };
        for p in problems {
            self.client.log_message(MessageType::WARNING, format!("salt-analyzer: {p}")).await;
        }
        if flags.dynamic_watchers {
            let client = self.client.clone();
            tokio::spawn(async move {
                // SLS and top files, Jinja imports, `parameters/` layers, custom `_states`, the
                // workspace file (a `*.yaml`).
                let watchers = ["**/*.sls", "**/*.jinja", "**/*.yaml", "**/*.yml", "**/_states/*.py"]
                    .iter()
                    .map(|g| FileSystemWatcher { glob_pattern: GlobPattern::String(g.to_string()), kind: None })
                    .collect();
                let options = DidChangeWatchedFilesRegistrationOptions { watchers };
                let registration = Registration {
                    id: "salt-analyzer-watched-files".into(),
                    method: "workspace/didChangeWatchedFiles".into(),
                    register_options: serde_json::to_value(options).ok(),
                };
                if let Err(e) = client.register_capability(vec![registration]).await {
                    client.log_message(MessageType::WARNING, format!("salt-analyzer: cannot watch files: {e}")).await;
                }
            });
        }
        // A workspace without configuration: say once where the states were found, and how to
        // say otherwise (the first thing a new user needs to know).
        if flags.first_run_message {
            if let Ok(Some(line)) = self.query(|a, _| Ok(a.discovery())).await {
                self.client.show_message(MessageType::INFO, format!("salt-analyzer: {line}")).await;
            }
        }
        publish::start(self.client.clone(), self.state.clone(), self.wake.clone(), flags);
        let salt_call = lock(&self.state).initial_settings.salt_call.clone();
        super::statedocs::start(self.state.clone(), self.wake.clone(), salt_call);
    }

    async fn shutdown(&self) -> Result<()> {
        Ok(())
    }

    async fn did_open(&self, params: DidOpenTextDocumentParams) {
        let Some(path) = Self::path_of(&params.text_document.uri) else { return };
        let doc = params.text_document;
        self.mutate(|st| {
            if let Some(host) = st.host.as_mut() {
                host.open(&path, &doc.text, doc.version);
            }
        });
        self.publish_syntax(path).await;
    }

    async fn did_change(&self, params: DidChangeTextDocumentParams) {
        let Some(path) = Self::path_of(&params.text_document.uri) else { return };
        let version = params.text_document.version;
        let changes = params.content_changes;
        self.mutate(|st| {
            let enc = st.flags.encoding;
            let Some(host) = st.host.as_mut() else { return };
            let mut edits = Vec::with_capacity(changes.len());
            // Each change's range is in the text as the changes before it left it.
            for c in changes {
                let range = match (c.range, host.line_index(&path)) {
                    (Some(r), Some(li)) => Some(from_proto::range(li, enc, r)),
                    _ => None,
                };
                let edit = vec![(range.clone(), c.text.clone())];
                host.change(&path, edit, version);
                edits.push((range, c.text));
            }
            if let Some(ds) = st.semantic.get_mut(&path) {
                ide::shift_diagnostics(ds, &edits);
            }
        });
        self.publish_syntax(path).await;
    }

    async fn did_save(&self, params: DidSaveTextDocumentParams) {
        let Some(path) = Self::path_of(&params.text_document.uri) else { return };
        self.mutate(|st| {
            if let Some(host) = st.host.as_mut() {
                host.files_changed_on_disk(&[path]);
            }
        });
    }

    async fn did_close(&self, params: DidCloseTextDocumentParams) {
        let Some(path) = Self::path_of(&params.text_document.uri) else { return };
        self.mutate(|st| {
            st.tokens.remove(&path);
            if let Some(host) = st.host.as_mut() {
                host.close(&path);
            }
        });
        // Its syntax errors go; its semantic ones come back with the next round.
        let items = {
            let st = lock(&self.state);
            match (st.host.as_ref(), st.semantic.get(&path)) {
                (Some(host), Some(ds)) => to_proto::diagnostics(&host.snapshot(), st.flags.encoding, &path, ds),
                _ => Vec::new(),
            }
        };
        self.client.publish_diagnostics(to_proto::url(&path), items, None).await;
    }

    async fn did_change_watched_files(&self, params: DidChangeWatchedFilesParams) {
        let paths: Vec<PathBuf> = params.changes.iter().filter_map(|c| Self::path_of(&c.uri)).collect();
        self.mutate(|st| {
            if let Some(host) = st.host.as_mut() {
                host.files_changed_on_disk(&paths);
            }
        });
    }

    async fn did_change_configuration(&self, params: DidChangeConfigurationParams) {
        let settings = from_proto::settings(Some(&params.settings));
        for p in &settings.problems {
            self.client.log_message(MessageType::WARNING, format!("salt-analyzer: {p}")).await;
        }
        self.mutate(|st| {
            st.impact_to = settings.impact_to;
            st.inlay = settings.inlay;
            if let Some(host) = st.host.as_mut() {
                host.set_salt_config(settings.salt_config.clone());
                host.set_minion(settings.minion.clone());
            }
        });
        self.refresh_inlay_hints();
    }

    async fn goto_definition(&self, params: GotoDefinitionParams) -> Result<Option<GotoDefinitionResponse>> {
        let pos = params.text_document_position_params;
        self.query(move |a, fl| {
            let Some((path, _, offset)) = Self::at(a, fl, &pos) else { return Ok(None) };
            Ok(to_proto::goto(a, fl.encoding, a.goto_definition(&path, offset)?))
        })
        .await
    }

    async fn references(&self, params: ReferenceParams) -> Result<Option<Vec<Location>>> {
        let pos = params.text_document_position;
        let include = params.context.include_declaration;
        self.query(move |a, fl| {
            let Some((path, _, offset)) = Self::at(a, fl, &pos) else { return Ok(None) };
            let refs = a.references(&path, offset, include)?;
            Ok(Some(refs.iter().map(|r| to_proto::location(a, fl.encoding, r)).collect()))
        })
        .await
    }

    async fn completion(&self, params: CompletionParams) -> Result<Option<CompletionResponse>> {
        let pos = params.text_document_position;
        self.query(move |a, fl| {
            let Some((path, li, offset)) = Self::at(a, fl, &pos) else { return Ok(None) };
            Ok(Some(to_proto::completions(&li, fl.encoding, a.completions(&path, offset)?)))
        })
        .await
    }

    async fn hover(&self, params: HoverParams) -> Result<Option<Hover>> {
        let pos = params.text_document_position_params;
        self.query(move |a, fl| {
            let Some((path, li, offset)) = Self::at(a, fl, &pos) else { return Ok(None) };
            Ok(a.hover(&path, offset)?.map(|h| to_proto::hover(&li, fl.encoding, h)))
        })
        .await
    }

    async fn inlay_hint(&self, params: InlayHintParams) -> Result<Option<Vec<InlayHint>>> {
        let config = lock(&self.state).inlay;
        self.query(move |a, fl| {
            let Some(path) = Self::path_of(&params.text_document.uri) else { return Ok(None) };
            let Some(li) = a.line_index(&path) else { return Ok(None) };
            let range = from_proto::offset(&li, fl.encoding, params.range.start)..from_proto::offset(&li, fl.encoding, params.range.end);
            Ok(Some(a.inlay_hints(&path, range, config)?.into_iter().map(|h| to_proto::inlay_hint(&li, fl.encoding, h)).collect()))
        })
        .await
    }

    async fn prepare_call_hierarchy(&self, params: CallHierarchyPrepareParams) -> Result<Option<Vec<CallHierarchyItem>>> {
        let pos = params.text_document_position_params;
        self.query(move |a, fl| {
            let Some(path) = Self::path_of(&pos.text_document.uri) else { return Ok(None) };
            let Some(li) = a.line_index(&path) else { return Ok(None) };
            let offset = from_proto::offset(&li, fl.encoding, pos.position);
            let items: Vec<CallHierarchyItem> =
                a.call_hierarchy_prepare(&path, offset)?.iter().filter_map(|it| to_proto::hierarchy_item(a, fl.encoding, it)).collect();
            Ok((!items.is_empty()).then_some(items))
        })
        .await
    }

    async fn incoming_calls(&self, params: CallHierarchyIncomingCallsParams) -> Result<Option<Vec<CallHierarchyIncomingCall>>> {
        let Some(item) = from_proto::hierarchy_item(&params.item) else { return Ok(None) };
        self.query(move |a, fl| {
            let calls = a.call_hierarchy_incoming(&item)?;
            Ok(Some(
                calls
                    .into_iter()
                    .filter_map(|c| {
                        let li = a.line_index(&c.item.path)?;
                        let from_ranges = c.ranges.iter().map(|r| to_proto::range(&li, fl.encoding, r.clone())).collect();
                        Some(CallHierarchyIncomingCall { from: to_proto::hierarchy_item(a, fl.encoding, &c.item)?, from_ranges })
                    })
                    .collect(),
            ))
        })
        .await
    }

    async fn outgoing_calls(&self, params: CallHierarchyOutgoingCallsParams) -> Result<Option<Vec<CallHierarchyOutgoingCall>>> {
        let Some(item) = from_proto::hierarchy_item(&params.item) else { return Ok(None) };
        self.query(move |a, fl| {
            let li = a.line_index(&item.path);
            let calls = a.call_hierarchy_outgoing(&item)?;
            Ok(Some(
                calls
                    .into_iter()
                    .filter_map(|c| {
                        let li = li.as_ref()?;
                        let from_ranges = c.ranges.iter().map(|r| to_proto::range(li, fl.encoding, r.clone())).collect();
                        Some(CallHierarchyOutgoingCall { to: to_proto::hierarchy_item(a, fl.encoding, &c.item)?, from_ranges })
                    })
                    .collect(),
            ))
        })
        .await
    }

    async fn will_rename_files(&self, params: RenameFilesParams) -> Result<Option<WorkspaceEdit>> {
        let moves: Vec<(PathBuf, PathBuf)> =
            params.files.iter().filter_map(|f| Some((Self::path_of(&Url::parse(&f.old_uri).ok()?)?, Self::path_of(&Url::parse(&f.new_uri).ok()?)?))).collect();
        if moves.is_empty() {
            return Ok(None);
        }
        self.query(move |a, fl| {
            let change = a.will_rename_files(&moves)?;
            Ok((!change.text_edits.is_empty()).then(|| to_proto::workspace_edit(a, fl, &change)))
        })
        .await
    }

    async fn prepare_rename(&self, params: TextDocumentPositionParams) -> Result<Option<PrepareRenameResponse>> {
        let found = self
            .query(move |a, fl| {
                let Some(path) = Self::path_of(&params.text_document.uri) else { return Ok(None) };
                let Some(li) = a.line_index(&path) else { return Ok(None) };
                let offset = from_proto::offset(&li, fl.encoding, params.position);
                Ok(Some(
                    a.prepare_rename(&path, offset)?
                        .map(|(r, id)| PrepareRenameResponse::RangeWithPlaceholder { range: to_proto::range(&li, fl.encoding, r), placeholder: id }),
                ))
            })
            .await?;
        match found {
            None => Ok(None),
            Some(Ok(answer)) => Ok(Some(answer)),
            // The reason, as the client shows it.
            Some(Err(why)) => Err(Error::invalid_params(why)),
        }
    }

    async fn rename(&self, params: RenameParams) -> Result<Option<WorkspaceEdit>> {
        let pos = params.text_document_position;
        let new_name = params.new_name;
        let found = self
            .query(move |a, fl| {
                let Some(path) = Self::path_of(&pos.text_document.uri) else { return Ok(None) };
                let Some(li) = a.line_index(&path) else { return Ok(None) };
                let offset = from_proto::offset(&li, fl.encoding, pos.position);
                Ok(Some(a.rename(&path, offset, &new_name)?.map(|change| to_proto::workspace_edit(a, fl, &change))))
            })
            .await?;
        match found {
            None => Ok(None),
            Some(Ok(edit)) => Ok(Some(edit)),
            Some(Err(why)) => Err(Error::invalid_params(why)),
        }
    }

    async fn document_symbol(&self, params: DocumentSymbolParams) -> Result<Option<DocumentSymbolResponse>> {
        let uri = params.text_document.uri;
        self.query(move |a, fl| {
            let Some(path) = Self::path_of(&uri) else { return Ok(None) };
            Ok(Some(to_proto::document_symbols(a, fl, &path, a.document_symbols(&path))))
        })
        .await
    }

    async fn symbol(&self, params: WorkspaceSymbolParams) -> Result<Option<Vec<SymbolInformation>>> {
        self.query(move |a, fl| Ok(Some(to_proto::workspace_symbols(a, fl.encoding, a.workspace_symbols(&params.query))))).await
    }

    async fn code_action(&self, params: CodeActionParams) -> Result<Option<CodeActionResponse>> {
        self.query(move |a, fl| {
            let Some((path, li)) = Self::file(a, &params.text_document.uri) else { return Ok(None) };
            let range = from_proto::range(&li, fl.encoding, params.range);
            Ok(Some(to_proto::code_actions(a, fl, a.code_actions(&path, range)?)))
        })
        .await
    }

    async fn code_lens(&self, params: CodeLensParams) -> Result<Option<Vec<CodeLens>>> {
        let uri = params.text_document.uri;
        let to = lock(&self.state).impact_to;
        self.query(move |a, fl| {
            let Some(path) = Self::path_of(&uri) else { return Ok(None) };
            let mut lenses = Vec::new();
            if let Some(base) = super::impact::head(a.root()) {
                lenses.extend(a.impact_lens(&path, &base, to)?.map(to_proto::impact_lens));
            }
            if let Some(li) = a.line_index(&path) {
                lenses.extend(a.fleet_lenses(&path)?.into_iter().map(|(at, title)| to_proto::fleet_lens(&li, fl.encoding, at, title)));
            }
            Ok(Some(lenses))
        })
        .await
    }

    async fn semantic_tokens_full(&self, params: SemanticTokensParams) -> Result<Option<SemanticTokensResult>> {
        let Some((path, data)) = self.tokens_of(params.text_document.uri, None).await? else { return Ok(None) };
        let result_id = Some(self.keep_tokens(path, data.clone()));
        Ok(Some(SemanticTokensResult::Tokens(SemanticTokens { result_id, data })))
    }

    async fn semantic_tokens_full_delta(&self, params: SemanticTokensDeltaParams) -> Result<Option<SemanticTokensFullDeltaResult>> {
        let Some((path, data)) = self.tokens_of(params.text_document.uri, None).await? else { return Ok(None) };
        let previous = lock(&self.state).tokens.get(&path).filter(|(id, _)| *id == params.previous_result_id).map(|(_, d)| d.clone());
        let edits = previous.map(|old| to_proto::semantic_tokens_edits(&old, &data));
        let result_id = Some(self.keep_tokens(path, data.clone()));
        Ok(Some(match edits {
            Some(edits) => SemanticTokensFullDeltaResult::TokensDelta(SemanticTokensDelta { result_id, edits }),
            None => SemanticTokensFullDeltaResult::Tokens(SemanticTokens { result_id, data }),
        }))
    }

    async fn semantic_tokens_range(&self, params: SemanticTokensRangeParams) -> Result<Option<SemanticTokensRangeResult>> {
        let tokens = self.tokens_of(params.text_document.uri, Some(params.range)).await?;
        Ok(tokens.map(|(_, data)| SemanticTokensRangeResult::Tokens(SemanticTokens { result_id: None, data })))
    }

    async fn document_link(&self, params: DocumentLinkParams) -> Result<Option<Vec<DocumentLink>>> {
        let uri = params.text_document.uri;
        self.query(move |a, fl| {
            let Some(path) = Self::path_of(&uri) else { return Ok(None) };
            let Some(li) = a.line_index(&path) else { return Ok(None) };
            Ok(Some(to_proto::document_links(&li, fl.encoding, a.document_links(&path))))
        })
        .await
    }

    async fn folding_range(&self, params: FoldingRangeParams) -> Result<Option<Vec<FoldingRange>>> {
        let uri = params.text_document.uri;
        self.query(move |a, _| {
            let Some(path) = Self::path_of(&uri) else { return Ok(None) };
            let Some(li) = a.line_index(&path) else { return Ok(None) };
            Ok(Some(to_proto::folding_ranges(&li, a.folding_ranges(&path))))
        })
        .await
    }

    async fn selection_range(&self, params: SelectionRangeParams) -> Result<Option<Vec<SelectionRange>>> {
        let uri = params.text_document.uri;
        self.query(move |a, fl| {
            let Some(path) = Self::path_of(&uri) else { return Ok(None) };
            let Some(li) = a.line_index(&path) else { return Ok(None) };
            let offsets: Vec<usize> = params.positions.iter().map(|p| from_proto::offset(&li, fl.encoding, *p)).collect();
            let ranges = a.selection_ranges(&path, &offsets);
            Ok(Some(ranges.into_iter().map(|r| to_proto::selection_range(&li, fl.encoding, r)).collect()))
        })
        .await
    }

    async fn document_highlight(&self, params: DocumentHighlightParams) -> Result<Option<Vec<DocumentHighlight>>> {
        let pos = params.text_document_position_params;
        self.query(move |a, fl| {
            let Some(path) = Self::path_of(&pos.text_document.uri) else { return Ok(None) };
            let Some(li) = a.line_index(&path) else { return Ok(None) };
            let offset = from_proto::offset(&li, fl.encoding, pos.position);
            Ok(Some(to_proto::highlights(&li, fl.encoding, a.document_highlight(&path, offset))))
        })
        .await
    }

    async fn signature_help(&self, params: SignatureHelpParams) -> Result<Option<SignatureHelp>> {
        let pos = params.text_document_position_params;
        self.query(move |a, fl| {
            let Some(path) = Self::path_of(&pos.text_document.uri) else { return Ok(None) };
            let Some(li) = a.line_index(&path) else { return Ok(None) };
            let offset = from_proto::offset(&li, fl.encoding, pos.position);
            Ok(a.signature_help(&path, offset).map(|s| to_proto::signature_help(fl.encoding, s)))
        })
        .await
    }

    async fn diagnostic(&self, params: DocumentDiagnosticParams) -> Result<DocumentDiagnosticReportResult> {
        let fleet = Self::path_of(&params.text_document.uri).and_then(|p| lock(&self.state).fleet.get(&p).cloned()).unwrap_or_default();
        self.query(move |a, fl| {
            let Some(path) = Self::path_of(&params.text_document.uri) else { return Ok(to_proto::full_report(Vec::new())) };
            let mut ds = a.syntax_diagnostics(&path);
            ds.extend(a.diagnostics(&path)?);
            ds.extend(fleet);
            Ok(to_proto::full_report(to_proto::diagnostics(a, fl.encoding, &path, &ds)))
        })
        .await
    }

    async fn execute_command(&self, params: ExecuteCommandParams) -> Result<Option<Value>> {
        let arg = params.arguments.first().and_then(|v| v.as_str()).map(str::to_string);
        match params.command.as_str() {
            "salt-analyzer.listMinions" => self.query(|a, _| Ok(Some(minions_json(a)))).await,
            "salt-analyzer.selectMinion" => {
                let Some(id) = arg else {
                    return Err(Error::invalid_params("salt-analyzer.selectMinion takes the profile id as its argument"));
                };
                let known = self.query(|a, _| Ok(a.minions())).await?;
                if !known.iter().any(|m| m.id == id) {
                    let ids: Vec<String> = known.into_iter().map(|m| m.id).collect();
                    return Err(Error::invalid_params(format!("no minion profile `{id}` (profiles: {})", ids.join(", "))));
                }
                self.mutate(|st| {
                    if let Some(host) = st.host.as_mut() {
                        host.set_minion(Some(id));
                    }
                });
                self.refresh_inlay_hints();
                self.query(|a, _| Ok(Some(minions_json(a)))).await
            }
            "salt-analyzer.topExplain" => self.query(move |a, _| Ok(Some(Value::String(a.top_explain(arg.as_deref()))))).await,
            "salt-analyzer.refreshPillar" => {
                self.mutate(|st| {
                    if let Some(host) = st.host.as_mut() {
                        host.refresh_pillar();
                    }
                });
                self.refresh_inlay_hints();
                Ok(None)
            }
            "salt-analyzer.checkFleet" => self.check_fleet().await,
            "salt-analyzer.workspaceInfo" => self.query(|a, _| Ok(Some(workspace_info_json(a)))).await,
            "salt-analyzer.impactReport" => {
                // The report as Markdown, against `HEAD`; `null` outside a git repository. An
                // argument `{"toSaltVersion": "3008"}` (or `null`) overrides the setting.
                let to = match params.arguments.first().and_then(|v| v.get("toSaltVersion")) {
                    None => lock(&self.state).impact_to,
                    Some(Value::Null) => None,
                    Some(v) => match v.as_str().and_then(model::version::SaltVersion::parse) {
                        Some(v) => Some(v),
                        None => return Err(Error::invalid_params(format!("toSaltVersion: {v} is not a supported Salt release (3006, 3007 or 3008)"))),
                    },
                };
                self.query(move |a, _| super::impact::head(a.root()).map(|base| a.impact(&base, to).map(|r| Value::String(r.markdown()))).transpose()).await
            }
            other => Err(Error::invalid_params(format!("unknown command `{other}`"))),
        }
    }
}

/// `salt-analyzer.workspaceInfo`: the root, and what zero configuration found (`discovery`,
/// the one line; the roots relative to the root, `.` for itself), all null when configured.
fn workspace_info_json(a: &Analysis) -> Value {
    let roots = |r: Option<Vec<(String, Vec<PathBuf>)>>| {
        r.map(|r| {
            let rel = |d: &std::path::Path| match d.strip_prefix(a.root()) {
                Ok(p) if p.as_os_str().is_empty() => ".".to_string(),
                Ok(p) => p.display().to_string(),
                Err(_) => d.display().to_string(),
            };
            r.iter().map(|(env, dirs)| (env.clone(), json!(dirs.iter().map(|d| rel(d)).collect::<Vec<_>>()))).collect::<serde_json::Map<_, _>>()
        })
    };
    let found = a.discovered_roots();
    json!({
        "root": a.root(),
        "discovery": a.discovery(),
        "file_roots": roots(found.as_ref().map(|f| f.0.clone())),
        "pillar_roots": roots(found.map(|f| f.1)),
        "salt": a.salt_release(),
    })
}

fn minions_json(a: &Analysis) -> Value {
    Value::Array(
        a.minions()
            .into_iter()
            .map(|m| json!({"id": m.id, "selected": m.selected, "source": m.source, "detail": m.detail, "salt": {"version": m.salt, "source": m.salt_source}}))
            .collect(),
    )
}
