//! A test client that drives the real `salt-analyzer` binary over stdio: Content-Length
//! framing, server-to-client requests answered, every notification recorded, and a check that
//! no message went unread before shutdown.

#![allow(dead_code)]

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

const TIMEOUT: Duration = Duration::from_secs(60);

/// A fresh copy of a fixture tree under `tests/lsp/`, removed on drop.
pub struct TempTree {
    pub root: PathBuf,
}

impl TempTree {
    pub fn new(name: &str, fixture: Option<&str>) -> TempTree {
        static COUNTER: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = COUNTER.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        let root = std::env::temp_dir().join(format!("salt-analyzer-lsp-{name}-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(&root).expect("temp dir");
        if let Some(fixture) = fixture {
            let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/lsp").join(fixture);
            copy_dir(&src, &root);
        }
        TempTree { root }
    }

    pub fn path(&self, rel: &str) -> PathBuf {
        self.root.join(rel)
    }

    pub fn write(&self, rel: &str, text: &str) {
        let p = self.path(rel);
        if let Some(parent) = p.parent() {
            std::fs::create_dir_all(parent).expect("mkdir");
        }
        std::fs::write(p, text).expect("write");
    }

    pub fn read(&self, rel: &str) -> String {
        std::fs::read_to_string(self.path(rel)).expect("read")
    }

    pub fn uri(&self, rel: &str) -> String {
        format!("file://{}", self.path(rel).display())
    }
}

/// Runs the binary's command line in `dir`: the exit code, stdout and stderr.
pub fn run_cli(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_salt-analyzer")).args(args).current_dir(dir).output().expect("run binary");
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned())
}

impl Drop for TempTree {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.root);
        let _ = std::fs::remove_dir_all(self.root.with_extension("cache"));
    }
}

fn copy_dir(src: &Path, dst: &Path) {
    for entry in std::fs::read_dir(src).expect("fixture dir") {
        let entry = entry.expect("entry");
        let to = dst.join(entry.file_name());
        if entry.file_type().expect("type").is_dir() {
            std::fs::create_dir_all(&to).expect("mkdir");
            copy_dir(&entry.path(), &to);
        } else {
            std::fs::copy(entry.path(), to).expect("copy");
        }
    }
}

/// How the test client introduces itself.
#[derive(Clone)]
pub struct ClientOptions {
    pub utf8: bool,
    pub progress: bool,
    pub dynamic_watchers: bool,
    pub pull: bool,
    /// Announce `workspace.inlayHint.refreshSupport`.
    pub inlay_refresh: bool,
    /// Take file renames in workspace edits (`resourceOperations` has `rename`).
    pub rename_files: bool,
    pub init: Value,
}

impl Default for ClientOptions {
    fn default() -> Self {
        ClientOptions { utf8: false, progress: false, dynamic_watchers: false, pull: false, inlay_refresh: false, rename_files: false, init: json!({}) }
    }
}

/// One running server and everything it has said.
pub struct Lsp {
    child: Child,
    stdin: ChildStdin,
    rx: Receiver<Value>,
    stderr: Arc<Mutex<String>>,
    next_id: i64,
    pub root: PathBuf,
    pub utf8: bool,
    /// The latest diagnostics published per URI, with the version they were published with.
    pub published: BTreeMap<String, (Option<i64>, Vec<Value>)>,
    /// How many `publishDiagnostics` notifications arrived.
    pub publish_count: usize,
    pub status_revision: Option<u64>,
    pub progress: Vec<Value>,
    pub server_requests: Vec<Value>,
    pub logs: Vec<Value>,
    /// `window/showMessage` notifications (the zero-configuration line, ...).
    pub messages: Vec<Value>,
    pub capabilities: Value,
}

impl Lsp {
    /// Starts the binary on `root` and initializes it.
    pub fn start(root: &Path, opts: ClientOptions) -> Lsp {
        let mut lsp = Lsp::spawn(root, &opts);
        lsp.initialize(opts);
        lsp
    }

    /// Starts the binary on `root` without initializing it.
    pub fn spawn(root: &Path, opts: &ClientOptions) -> Lsp {
        let mut child = Command::new(env!("CARGO_BIN_EXE_salt-analyzer"))
            .current_dir(root)
            // Never the user's cache: the docs cache of a test stays next to its tree.
            .env("XDG_CACHE_HOME", root.with_extension("cache"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn salt-analyzer");
        let stdin = child.stdin.take().expect("stdin");
        let stdout = child.stdout.take().expect("stdout");
        let mut stderr_pipe = child.stderr.take().expect("stderr");
        let stderr = Arc::new(Mutex::new(String::new()));
        let sink = stderr.clone();
        std::thread::spawn(move || {
            let mut s = String::new();
            let _ = stderr_pipe.read_to_string(&mut s);
            if let Ok(mut e) = sink.lock() {
                e.push_str(&s);
            }
        });
        let (tx, rx) = channel();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            loop {
                let mut length = None;
                loop {
                    let mut line = String::new();
                    match reader.read_line(&mut line) {
                        Ok(0) | Err(_) => return,
                        Ok(_) => {}
                    }
                    if line == "\r\n" {
                        break;
                    }
                    match line.strip_prefix("Content-Length: ") {
                        Some(n) => length = n.trim().parse::<usize>().ok(),
                        None if line.starts_with("Content-Type: ") => {}
                        // Anything else on stdout breaks the protocol.
                        None => {
                            let _ = tx.send(json!({"__garbage__": line}));
                            return;
                        }
                    }
                }
                let Some(n) = length else {
                    let _ = tx.send(json!({"__garbage__": "a header without Content-Length"}));
                    return;
                };
                let mut body = vec![0; n];
                if reader.read_exact(&mut body).is_err() {
                    return;
                }
                let msg = serde_json::from_slice(&body).unwrap_or_else(|e| json!({"__garbage__": format!("{e}")}));
                if tx.send(msg).is_err() {
                    return;
                }
            }
        });
        Lsp {
            child,
            stdin,
            rx,
            stderr,
            next_id: 0,
            root: root.to_path_buf(),
            utf8: opts.utf8,
            published: BTreeMap::new(),
            publish_count: 0,
            status_revision: None,
            progress: Vec::new(),
            server_requests: Vec::new(),
            logs: Vec::new(),
            messages: Vec::new(),
            capabilities: Value::Null,
        }
    }

    /// Sends `initialize` and `initialized`.
    pub fn initialize(&mut self, opts: ClientOptions) {
        let root = self.root.clone();
        let mut init = opts.init.clone();
        init["statusNotification"] = json!(true);
        // A test that wants Salt's docs names its `salt-call`; the others never run one.
        if init.get("saltCall").is_none() {
            init["saltCall"] = json!(false);
        }
        if opts.pull {
            init["pullDiagnostics"] = json!(true);
        }
        let mut caps = json!({
            "textDocument": {"documentSymbol": {"hierarchicalDocumentSymbolSupport": true}},
            "workspace": {"workspaceEdit": {"documentChanges": true, "resourceOperations": ["create"]}},
        });
        if opts.utf8 {
            caps["general"] = json!({"positionEncodings": ["utf-8", "utf-16"]});
        } else {
            caps["general"] = json!({"positionEncodings": ["utf-16"]});
        }
        if opts.progress {
            caps["window"] = json!({"workDoneProgress": true});
        }
        if opts.dynamic_watchers {
            caps["workspace"]["didChangeWatchedFiles"] = json!({"dynamicRegistration": true});
        }
        if opts.inlay_refresh {
            caps["workspace"]["inlayHint"] = json!({"refreshSupport": true});
        }
        if opts.rename_files {
            caps["workspace"]["workspaceEdit"]["resourceOperations"] = json!(["create", "rename"]);
        }
        let root_uri = format!("file://{}", root.display());
        let result = self
            .request("initialize", json!({"processId": null, "rootUri": root_uri, "capabilities": caps, "initializationOptions": init}))
            .expect("initialize");
        self.capabilities = result["capabilities"].clone();
        self.notify("initialized", json!({}));
    }

    /// Writes bytes as they are, framed or not.
    pub fn send_raw(&mut self, bytes: &[u8]) {
        self.stdin.write_all(bytes).expect("write to the server");
        self.stdin.flush().expect("flush");
    }

    /// Reads messages until the next response, which is returned.
    pub fn next_response(&mut self) -> Value {
        loop {
            let msg = self.recv();
            if let Some(resp) = self.handle(msg) {
                return resp;
            }
        }
    }

    /// Whether the server process is still running.
    pub fn running(&mut self) -> bool {
        self.child.try_wait().expect("wait").is_none()
    }

    /// The server's resident memory now and at its peak, in MiB (`VmRSS`, `VmHWM` of
    /// `/proc/PID/status`).
    pub fn memory_mib(&self) -> (u64, u64) {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).expect("/proc status");
        let kib = |key: &str| {
            let line = status.lines().find(|l| l.starts_with(key)).unwrap_or_else(|| panic!("{key} in /proc status"));
            line.split_whitespace().nth(1).and_then(|n| n.parse::<u64>().ok()).expect("a number of kB")
        };
        (kib("VmRSS:") / 1024, kib("VmHWM:") / 1024)
    }

    /// Reads until the response to request `id`, which was sent with `send_raw`.
    pub fn response_to(&mut self, id: Value) -> Value {
        let resp = self.next_response();
        assert_eq!(resp["id"], id, "{resp}");
        resp
    }

    pub fn uri(&self, rel: &str) -> String {
        format!("file://{}", self.root.join(rel).display())
    }

    fn send(&mut self, msg: Value) {
        let body = serde_json::to_string(&msg).expect("json");
        let framed = format!("Content-Length: {}\r\n\r\n{body}", body.len());
        self.stdin.write_all(framed.as_bytes()).expect("write to the server");
        self.stdin.flush().expect("flush");
    }

    pub fn notify(&mut self, method: &str, params: Value) {
        let mut msg = json!({"jsonrpc": "2.0", "method": method});
        if !params.is_null() {
            msg["params"] = params;
        }
        self.send(msg);
    }

    /// Sends a request and reads messages until its response: `Err` carries the error object.
    pub fn request(&mut self, method: &str, params: Value) -> Result<Value, Value> {
        self.next_id += 1;
        let id = self.next_id;
        let mut msg = json!({"jsonrpc": "2.0", "id": id, "method": method});
        if !params.is_null() {
            msg["params"] = params;
        }
        self.send(msg);
        loop {
            let msg = self.recv();
            if let Some(resp) = self.handle(msg) {
                assert_eq!(resp["id"], json!(id), "a response to a request we did not send: {resp}");
                if let Some(err) = resp.get("error") {
                    return Err(err.clone());
                }
                return Ok(resp["result"].clone());
            }
        }
    }

    fn recv(&mut self) -> Value {
        match self.rx.recv_timeout(TIMEOUT) {
            Ok(v) => v,
            Err(e) => panic!("no message from the server ({e:?}); stderr:\n{}", self.stderr()),
        }
    }

    pub fn stderr(&self) -> String {
        self.stderr.lock().map(|s| s.clone()).unwrap_or_default()
    }

    /// Records a notification or answers a server request; returns responses.
    fn handle(&mut self, msg: Value) -> Option<Value> {
        assert!(msg.get("__garbage__").is_none(), "the server wrote something that is not the protocol: {msg}");
        let method = msg.get("method").and_then(Value::as_str).map(str::to_string);
        match (method.as_deref(), msg.get("id")) {
            (None, Some(_)) => return Some(msg),
            (Some(m), Some(id)) => {
                // A request from the server: answer it.
                let id = id.clone();
                match m {
                    "client/registerCapability" | "window/workDoneProgress/create" | "workspace/inlayHint/refresh" => {
                        self.server_requests.push(msg.clone());
                        self.send(json!({"jsonrpc": "2.0", "id": id, "result": null}));
                    }
                    other => panic!("unexpected request from the server: {other}: {msg}"),
                }
            }
            (Some("textDocument/publishDiagnostics"), None) => {
                let p = &msg["params"];
                let uri = p["uri"].as_str().expect("uri").to_string();
                let diags = p["diagnostics"].as_array().cloned().unwrap_or_default();
                self.published.insert(uri, (p["version"].as_i64(), diags));
                self.publish_count += 1;
            }
            (Some("salt-analyzer/status"), None) => {
                let r = msg["params"]["revision"].as_u64().expect("revision");
                self.status_revision = Some(self.status_revision.map_or(r, |old| old.max(r)));
            }
            (Some("$/progress"), None) => self.progress.push(msg["params"].clone()),
            (Some("window/logMessage"), None) => self.logs.push(msg["params"].clone()),
            (Some("window/showMessage"), None) => self.messages.push(msg["params"].clone()),
            (Some(other), None) => panic!("unexpected notification from the server: {other}: {msg}"),
            (None, None) => panic!("not a JSON-RPC message: {msg}"),
        }
        None
    }

    /// The server's current revision and its view of a document.
    pub fn debug_text(&mut self, uri: &str) -> (Option<String>, Option<i64>, u64) {
        let v = self.request("salt-analyzer/debugText", json!({"uri": uri})).expect("debugText");
        (v["text"].as_str().map(str::to_string), v["version"].as_i64(), v["revision"].as_u64().expect("revision"))
    }

    /// How many roots the server's index has checked from scratch and rechecked so far.
    pub fn debug_stats(&mut self) -> (u64, u64) {
        let v = self.request("salt-analyzer/debugStats", json!(null)).expect("debugStats");
        (v["checked"].as_u64().expect("checked"), v["rechecked"].as_u64().expect("rechecked"))
    }

    /// Waits until the server has published the diagnostics of its current revision.
    pub fn sync(&mut self) {
        let uri = self.uri("salt-analyzer.yaml");
        let (_, _, revision) = self.debug_text(&uri);
        let deadline = Instant::now() + TIMEOUT;
        while self.status_revision.is_none_or(|r| r < revision) {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.rx.recv_timeout(left) {
                Ok(msg) => {
                    if let Some(resp) = self.handle(msg) {
                        panic!("an unexpected response: {resp}");
                    }
                }
                Err(RecvTimeoutError::Timeout) => panic!("the server never reached revision {revision}; stderr:\n{}", self.stderr()),
                Err(e) => panic!("the server went away: {e:?}; stderr:\n{}", self.stderr()),
            }
        }
    }

    /// Reads messages until the latest publication for `rel` satisfies `pred`; returns the
    /// newest revision whose round had been announced at that moment.
    pub fn wait_for_publish(&mut self, rel: &str, pred: impl Fn(&[Value]) -> bool) -> Option<u64> {
        let uri = self.uri(rel);
        loop {
            if self.published.get(&uri).is_some_and(|(_, ds)| pred(ds)) {
                return self.status_revision;
            }
            let msg = self.recv();
            if let Some(resp) = self.handle(msg) {
                panic!("an unexpected response: {resp}");
            }
        }
    }

    pub fn open(&mut self, rel: &str, text: &str) {
        let uri = self.uri(rel);
        self.notify("textDocument/didOpen", json!({"textDocument": {"uri": uri, "languageId": "sls", "version": 1, "text": text}}));
    }

    pub fn open_from_disk(&mut self, rel: &str) {
        let text = std::fs::read_to_string(self.root.join(rel)).expect("read");
        self.open(rel, &text);
    }

    /// Sends one didChange with several changes: `(range in the current encoding, text)`.
    pub fn change(&mut self, rel: &str, version: i64, changes: &[(Option<[u32; 4]>, &str)]) {
        let uri = self.uri(rel);
        let changes: Vec<Value> = changes
            .iter()
            .map(|(r, t)| match r {
                Some([sl, sc, el, ec]) => json!({"range": {"start": {"line": sl, "character": sc}, "end": {"line": el, "character": ec}}, "text": t}),
                None => json!({"text": t}),
            })
            .collect();
        self.notify("textDocument/didChange", json!({"textDocument": {"uri": uri, "version": version}, "contentChanges": changes}));
    }

    /// The latest published diagnostics of a file, one per line: `L:C-L:C severity code: first line`.
    pub fn diagnostics(&self, rel: &str) -> String {
        let uri = self.uri(rel);
        self.published.get(&uri).map(|(_, ds)| render_diagnostics(ds)).unwrap_or_else(|| "(never published)\n".into())
    }

    /// Every file whose latest published diagnostics are not empty.
    pub fn all_diagnostics(&self) -> String {
        let prefix = format!("file://{}/", self.root.display());
        let mut out = String::new();
        for (uri, (_, ds)) in &self.published {
            if ds.is_empty() {
                continue;
            }
            out.push_str(&format!("{}:\n", uri.strip_prefix(&prefix).unwrap_or(uri)));
            for line in render_diagnostics(ds).lines() {
                out.push_str(&format!("  {line}\n"));
            }
        }
        out
    }

    /// A location list rendered as `rel L:C-L:C`.
    pub fn render_locations(&self, v: &Value) -> String {
        let prefix = format!("file://{}/", self.root.display());
        let list = match v {
            Value::Array(a) => a.clone(),
            Value::Null => Vec::new(),
            other => vec![other.clone()],
        };
        list.iter()
            .map(|l| {
                let uri = l["uri"].as_str().unwrap_or("");
                format!("{} {}\n", uri.strip_prefix(&prefix).unwrap_or(uri), range(&l["range"]))
            })
            .collect()
    }

    /// Checks that nothing is left unread, then shuts the server down and waits for it.
    pub fn finish(mut self) {
        self.sync();
        std::thread::sleep(Duration::from_millis(300));
        if let Ok(msg) = self.rx.try_recv() {
            panic!("a message nobody read: {msg}");
        }
        self.request("shutdown", Value::Null).expect("shutdown");
        self.notify("exit", Value::Null);
        let deadline = Instant::now() + TIMEOUT;
        loop {
            if let Some(status) = self.child.try_wait().expect("wait") {
                assert!(status.success(), "exit status {status}; stderr:\n{}", self.stderr());
                break;
            }
            assert!(Instant::now() < deadline, "the server did not exit");
            std::thread::sleep(Duration::from_millis(10));
        }
        // Whatever arrived between the shutdown response and the exit must be understood too.
        while let Ok(msg) = self.rx.try_recv() {
            assert!(self.handle(msg).is_none(), "a response after shutdown");
        }
        // The one panic a test provokes on purpose is the only error allowed.
        let errors: Vec<&Value> =
            self.logs.iter().filter(|l| l["type"] == json!(1) && !l["message"].as_str().unwrap_or("").contains("debugPanic was asked to panic")).collect();
        assert!(errors.is_empty(), "the server logged errors: {errors:?}");
    }
}

pub fn range(r: &Value) -> String {
    format!("{}:{}-{}:{}", r["start"]["line"], r["start"]["character"], r["end"]["line"], r["end"]["character"])
}

pub fn render_diagnostics(ds: &[Value]) -> String {
    ds.iter()
        .map(|d| {
            let sev = match d["severity"].as_i64() {
                Some(1) => "error",
                Some(2) => "warning",
                _ => "other",
            };
            let first = d["message"].as_str().unwrap_or("").lines().next().unwrap_or("").to_string();
            format!("{} {sev} {}: {first}\n", range(&d["range"]), d["code"].as_str().unwrap_or(""))
        })
        .collect()
}

/// The byte offset of a protocol position (0-based line, column in UTF-8 bytes or UTF-16
/// units), the inverse of [`position`]; a column past the line's end stops at its end.
pub fn offset(text: &str, line: u64, col: u64, utf8: bool) -> usize {
    let start: usize = text.split_inclusive('\n').take(line as usize).map(str::len).sum();
    let mut units = 0u64;
    for (i, c) in text[start..].char_indices() {
        if units >= col || c == '\n' {
            return start + i;
        }
        units += if utf8 { c.len_utf8() } else { c.len_utf16() } as u64;
    }
    text.len()
}

/// `text` after LSP text edits (positions in UTF-8 or UTF-16 columns), applied as a client
/// applies them: all against the text before any.
pub fn apply_edits(text: &str, edits: &[Value], utf8: bool) -> String {
    let at = |p: &Value| offset(text, p["line"].as_u64().unwrap_or(0), p["character"].as_u64().unwrap_or(0), utf8);
    let mut edits: Vec<(usize, usize, String)> =
        edits.iter().map(|e| (at(&e["range"]["start"]), at(&e["range"]["end"]), e["newText"].as_str().unwrap_or("").to_string())).collect();
    edits.sort_by_key(|e| std::cmp::Reverse(e.0));
    let mut out = text.to_string();
    for (s, e, t) in edits {
        out.replace_range(s..e, &t);
    }
    out
}

/// Line and column of a byte offset, the column counted in UTF-8 bytes or UTF-16 units, as
/// the protocol counts them (`\r\n` is one break; this is the test's own implementation).
pub fn position(text: &str, offset: usize, utf8: bool) -> (u32, u32) {
    let before = &text[..offset];
    let line = before.matches('\n').count() as u32;
    let start = before.rfind('\n').map_or(0, |p| p + 1);
    let col: usize = text[start..offset].chars().map(|c| if utf8 { c.len_utf8() } else { c.len_utf16() }).sum();
    (line, col as u32)
}
