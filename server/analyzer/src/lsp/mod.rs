//! The language server (`salt-analyzer` with no arguments, or `salt-analyzer lsp`): JSON-RPC
//! over stdio with tower-lsp. Handlers (`server`) convert (`from_proto`), call the `ide`
//! snapshot and convert back (`to_proto`), under the one lock on the server's `state`;
//! diagnostics are published by a debounced background round (`publish`).

mod frame;
mod from_proto;
mod impact;
mod publish;
mod server;
mod state;
mod statedocs;
mod to_proto;

use std::future::Future;
use std::pin::Pin;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

pub use server::Backend;

pub use to_proto::{COMMANDS, SHOW_IMPACT};

/// Serves the protocol on any byte streams (stdio in production, pipes or duplexes in tests)
/// until the client sends `exit` or closes the input. Returns whether `shutdown` came first.
pub async fn serve<I, O>(input: I, output: O) -> bool
where
    I: tokio::io::AsyncRead + Unpin,
    O: tokio::io::AsyncWrite,
{
    let (service, socket) = tower_lsp::LspService::build(Backend::new)
        .custom_method("salt-analyzer/debugText", Backend::debug_text)
        .custom_method("salt-analyzer/debugStats", Backend::debug_stats)
        .custom_method("salt-analyzer/debugPanic", Backend::debug_panic)
        .finish();
    let exit = Arc::new(tokio::sync::Notify::new());
    let shutdown = Arc::new(AtomicBool::new(false));
    let service = WatchExit { inner: service, exit: exit.clone(), shutdown: shutdown.clone() };
    // tower-lsp reads checked frames (`frame`): one it could not decode would end its serving.
    let (checked_write, checked_read) = tokio::io::duplex(1 << 20);
    let serving = async {
        tokio::join!(frame::relay(input, checked_write), tower_lsp::Server::new(checked_read, output, socket).serve(service));
    };
    tokio::select! {
        _ = serving => {}
        _ = exit.notified() => {}
    }
    shutdown.load(Ordering::SeqCst)
}

/// Passes every message to the server, notices `shutdown` and `exit`, and answers the
/// stand-ins for frames that could not be decoded (`frame::INVALID_MESSAGE`) with their error.
struct WatchExit<S> {
    inner: S,
    exit: Arc<tokio::sync::Notify>,
    shutdown: Arc<AtomicBool>,
}

type Reply = Result<Option<tower_lsp::jsonrpc::Response>, tower_lsp::ExitedError>;

impl<S> tower::Service<tower_lsp::jsonrpc::Request> for WatchExit<S>
where
    S: tower::Service<
        tower_lsp::jsonrpc::Request,
        Response = Option<tower_lsp::jsonrpc::Response>,
        Error = tower_lsp::ExitedError,
        Future = Pin<Box<dyn Future<Output = Reply> + Send>>,
    >,
{
    type Response = S::Response;
    type Error = S::Error;
    type Future = S::Future;

    fn poll_ready(&mut self, cx: &mut std::task::Context<'_>) -> std::task::Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, req: tower_lsp::jsonrpc::Request) -> Self::Future {
        match req.method() {
            "shutdown" => self.shutdown.store(true, Ordering::SeqCst),
            "exit" => self.exit.notify_one(),
            frame::INVALID_MESSAGE => {
                let (_, id, params) = req.into_parts();
                let params = params.unwrap_or_default();
                let code = params["code"].as_i64().unwrap_or(-32700).into();
                let message = params["message"].as_str().unwrap_or("an invalid message").to_string();
                let error = tower_lsp::jsonrpc::Error { code, message: message.into(), data: None };
                let reply = tower_lsp::jsonrpc::Response::from_error(id.unwrap_or(tower_lsp::jsonrpc::Id::Null), error);
                return Box::pin(std::future::ready(Ok(Some(reply))));
            }
            _ => {}
        }
        self.inner.call(req)
    }
}

/// Runs the server on stdin/stdout until the client says `exit`. Nothing but the protocol is
/// ever written to stdout; logs go to stderr or `window/logMessage`.
pub fn run_stdio() -> ExitCode {
    let runtime = match tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build() {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("salt-analyzer: cannot start the async runtime: {e}");
            return ExitCode::from(2);
        }
    };
    let clean = runtime.block_on(serve(tokio::io::stdin(), tokio::io::stdout()));
    // Blocking tasks still computing diagnostics for a client that left are not waited for.
    runtime.shutdown_background();
    // The protocol: exit code 0 after `shutdown`, 1 when `exit` (or EOF) came without it.
    if clean {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

#[cfg(test)]
mod tests {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    fn frame(body: &str) -> Vec<u8> {
        format!("Content-Length: {}\r\n\r\n{body}", body.len()).into_bytes()
    }

    /// The same server over an in-memory duplex: initialize, shutdown, exit.
    #[tokio::test]
    async fn serves_over_an_in_memory_duplex() {
        let (client, server) = tokio::io::duplex(1 << 16);
        let (server_read, server_write) = tokio::io::split(server);
        let task = tokio::spawn(super::serve(server_read, server_write));
        let (mut read, mut write) = tokio::io::split(client);
        let root = std::env::temp_dir().join(format!("salt-analyzer-duplex-{}", std::process::id()));
        let _ = std::fs::create_dir_all(&root);
        let init = format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"initialize","params":{{"rootUri":"file://{}","capabilities":{{"general":{{"positionEncodings":["utf-8"]}}}}}}}}"#,
            root.display()
        );
        write.write_all(&frame(&init)).await.unwrap();
        let mut got = Vec::new();
        let mut buf = [0u8; 4096];
        while !String::from_utf8_lossy(&got).contains("\"id\":1") {
            let n = read.read(&mut buf).await.unwrap();
            assert!(n > 0, "the server closed the stream");
            got.extend_from_slice(&buf[..n]);
        }
        let text = String::from_utf8_lossy(&got).to_string();
        assert!(text.starts_with("Content-Length: "), "{text}");
        assert!(text.contains(r#""positionEncoding":"utf-8""#), "{text}");
        write.write_all(&frame(r#"{"jsonrpc":"2.0","id":2,"method":"shutdown"}"#)).await.unwrap();
        write.write_all(&frame(r#"{"jsonrpc":"2.0","method":"exit"}"#)).await.unwrap();
        assert!(task.await.unwrap(), "exit after shutdown is a clean exit");
        let _ = std::fs::remove_dir_all(&root);
    }
}
