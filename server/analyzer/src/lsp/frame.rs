//! The transport's first line of defence: frames from the client are read here and checked
//! before tower-lsp sees them. tower-lsp 0.20's framed reader stops serving at the first frame
//! it cannot decode (a body that is not JSON, JSON that is not a JSON-RPC message, params
//! nested deeper than serde_json's limit, a bad `Content-Length`), so one client bug or one
//! stray write to the pipe would end the user's session. Every frame that tower-lsp would
//! reject is replaced by a request for [`INVALID_MESSAGE`], which `serve` answers with the
//! JSON-RPC error the specification asks for (Parse error `-32700` or Invalid Request
//! `-32600`, with the message's `id` when it has one, else `null`), in order with every other
//! reply; frames that decode are passed on byte for byte. Memory stays bounded: a header block
//! is at most [`MAX_HEADER`] bytes, a body at most [`MAX_BODY`], and garbage between frames is
//! skipped up to the next `Content-Length` without being kept.

use serde_json::{json, Value};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tower_lsp::jsonrpc::{Request, Response};

/// The method of the stand-in request for a frame that could not be decoded.
pub const INVALID_MESSAGE: &str = "$/salt-analyzer/invalidMessage";

/// The longest header block accepted (a real one is under 100 bytes).
pub const MAX_HEADER: usize = 8 * 1024;

/// The largest body accepted: a 20 MB document, JSON-escaped, with room to spare.
pub const MAX_BODY: usize = 256 * 1024 * 1024;

/// The deepest nesting of arrays and objects accepted. Every LSP message nests a few levels;
/// serde_json gives up at 128, and tower-lsp's reader with it.
pub const MAX_DEPTH: usize = 100;

const PARSE_ERROR: i64 = -32700;
const INVALID_REQUEST: i64 = -32600;

/// Copies frames from `input` to `output` until `input` ends or `output` is closed, each
/// undecodable frame replaced by an [`INVALID_MESSAGE`] request.
pub async fn relay<R, W>(mut input: R, mut output: W)
where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin,
{
    let mut buf: Vec<u8> = Vec::new();
    loop {
        // The header block.
        let end = loop {
            if let Some(i) = find(&buf, b"\r\n\r\n") {
                break Some(i);
            }
            if buf.len() > MAX_HEADER {
                break None;
            }
            if !fill(&mut input, &mut buf).await {
                return;
            }
        };
        let length = match end {
            None => Err("a header block longer than 8 KiB, or no header block".to_string()),
            Some(i) => content_length(&buf[..i]).map(|n| (i + 4, n)),
        };
        let (header_len, length) = match length {
            Ok((h, n)) if n <= MAX_BODY => (h, n),
            Ok((_, n)) => {
                let msg = format!("a Content-Length of {n} bytes is over the limit of {MAX_BODY}");
                if !send(&mut output, &stand_in(PARSE_ERROR, Value::Null, &msg)).await {
                    return;
                }
                if !resync(&mut input, &mut buf).await {
                    return;
                }
                continue;
            }
            Err(msg) => {
                if !send(&mut output, &stand_in(PARSE_ERROR, Value::Null, &msg)).await {
                    return;
                }
                if !resync(&mut input, &mut buf).await {
                    return;
                }
                continue;
            }
        };
        buf.drain(..header_len);
        while buf.len() < length {
            if !fill(&mut input, &mut buf).await {
                return;
            }
        }
        let ok = match check(&buf[..length]) {
            Ok(()) => send(&mut output, &buf[..length]).await,
            Err(stand) => send(&mut output, &stand).await,
        };
        buf.drain(..length);
        if !ok {
            return;
        }
    }
}

/// Reads more input into `buf`; false at the end of the input or on a read error.
async fn fill<R: AsyncRead + Unpin>(input: &mut R, buf: &mut Vec<u8>) -> bool {
    let mut chunk = [0u8; 64 * 1024];
    match input.read(&mut chunk).await {
        Ok(0) | Err(_) => false,
        Ok(n) => {
            buf.extend_from_slice(&chunk[..n]);
            true
        }
    }
}

/// Skips what lies before the next `Content-Length` (at least one byte), reading on as needed
/// and keeping no more than a possible start of that word; false at the end of the input.
async fn resync<R: AsyncRead + Unpin>(input: &mut R, buf: &mut Vec<u8>) -> bool {
    const WORD: &[u8] = b"Content-Length";
    buf.drain(..1.min(buf.len()));
    loop {
        if let Some(i) = find(buf, WORD) {
            buf.drain(..i);
            return true;
        }
        let keep = buf.len().saturating_sub(WORD.len() - 1);
        buf.drain(..keep);
        if !fill(input, buf).await {
            return false;
        }
    }
}

/// Writes one frame; false when the reader has gone.
async fn send<W: AsyncWrite + Unpin>(output: &mut W, body: &[u8]) -> bool {
    let header = format!("Content-Length: {}\r\n\r\n", body.len());
    output.write_all(header.as_bytes()).await.is_ok() && output.write_all(body).await.is_ok() && output.flush().await.is_ok()
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

/// The `Content-Length` of a header block (`Name: value` lines, names case-insensitive).
fn content_length(block: &[u8]) -> Result<usize, String> {
    let text = std::str::from_utf8(block).map_err(|_| "a header that is not UTF-8".to_string())?;
    let mut length = None;
    for line in text.split("\r\n") {
        let Some((name, value)) = line.split_once(':') else {
            return Err(format!("a header line without `:`: {:?}", truncate(line)));
        };
        if name.trim().eq_ignore_ascii_case("content-length") {
            let n = value.trim().parse::<usize>().map_err(|e| format!("a bad Content-Length {:?}: {e}", truncate(value.trim())))?;
            length = Some(n);
        }
    }
    length.ok_or_else(|| "a header block without Content-Length".to_string())
}

fn truncate(s: &str) -> &str {
    match s.char_indices().nth(40) {
        Some((i, _)) => &s[..i],
        None => s,
    }
}

/// Whether tower-lsp can decode `body` as a JSON-RPC message; else the stand-in frame.
pub fn check(body: &[u8]) -> Result<(), Vec<u8>> {
    let Ok(text) = std::str::from_utf8(body) else {
        return Err(stand_in(PARSE_ERROR, Value::Null, "a body that is not UTF-8"));
    };
    let shape = scan(body);
    if !shape.valid_nesting {
        return Err(stand_in(PARSE_ERROR, Value::Null, "a body that is not JSON"));
    }
    if shape.depth > MAX_DEPTH {
        let msg = format!("a message nested {} levels deep; the limit is {MAX_DEPTH}", shape.depth);
        return Err(stand_in(INVALID_REQUEST, shape.id.unwrap_or(Value::Null), &msg));
    }
    if serde_json::from_str::<Request>(text).is_ok() || serde_json::from_str::<Response>(text).is_ok() {
        return Ok(());
    }
    match serde_json::from_str::<Value>(text) {
        Err(e) => Err(stand_in(PARSE_ERROR, Value::Null, &format!("a body that is not JSON: {e}"))),
        Ok(v) => {
            let id = v.get("id").filter(|id| id.is_i64() || id.is_string()).cloned().unwrap_or(Value::Null);
            let what = if v.is_object() { "a JSON object that is not a JSON-RPC 2.0 request, notification or response" } else { "JSON that is not an object" };
            Err(stand_in(INVALID_REQUEST, id, what))
        }
    }
}

/// The stand-in request's body.
fn stand_in(code: i64, id: Value, message: &str) -> Vec<u8> {
    serde_json::to_vec(&json!({"jsonrpc": "2.0", "id": id, "method": INVALID_MESSAGE, "params": {"code": code, "message": message}})).unwrap_or_default()
}

/// What one pass over the bytes tells without parsing: the deepest nesting, whether brackets
/// pair up, and the top-level `id` when it is a number or a string.
struct Shape {
    depth: usize,
    valid_nesting: bool,
    id: Option<Value>,
}

fn scan(body: &[u8]) -> Shape {
    let mut stack: Vec<u8> = Vec::new();
    let mut depth = 0;
    let mut i = 0;
    // The last string at depth 1 and whether the value after it is the top-level `id`'s.
    let mut last_key: Option<(usize, usize)> = None;
    let mut id = None;
    while i < body.len() {
        match body[i] {
            b'"' => {
                let start = i + 1;
                i += 1;
                while i < body.len() && body[i] != b'"' {
                    i += if body[i] == b'\\' { 2 } else { 1 };
                }
                if stack.len() == 1 {
                    last_key = Some((start, i.min(body.len())));
                }
            }
            b'{' | b'[' => {
                stack.push(body[i]);
                depth = depth.max(stack.len());
                last_key = None;
            }
            b'}' | b']' => {
                let open = if body[i] == b'}' { b'{' } else { b'[' };
                if stack.pop() != Some(open) {
                    return Shape { depth, valid_nesting: false, id };
                }
            }
            b':' if stack.len() == 1 && id.is_none() => {
                if let Some((s, e)) = last_key {
                    if &body[s..e] == b"id" {
                        let rest = &body[i + 1..];
                        let end = rest.iter().position(|&b| b == b',' || b == b'}').unwrap_or(rest.len());
                        id = serde_json::from_slice::<Value>(&rest[..end]).ok().filter(|v| v.is_i64() || v.is_string());
                    }
                }
            }
            _ => {}
        }
        i += 1;
    }
    Shape { depth, valid_nesting: stack.is_empty(), id }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn code(body: &str) -> Option<(i64, Value)> {
        check(body.as_bytes()).err().map(|s| {
            let v: Value = serde_json::from_slice(&s).unwrap();
            (v["params"]["code"].as_i64().unwrap(), v["id"].clone())
        })
    }

    #[test]
    fn what_tower_lsp_decodes_passes_the_rest_is_a_stand_in() {
        assert_eq!(code(r#"{"jsonrpc":"2.0","id":1,"method":"shutdown"}"#), None);
        assert_eq!(code(r#"{"jsonrpc":"2.0","method":"exit"}"#), None);
        assert_eq!(code(r#"{"jsonrpc":"2.0","id":"x","result":null}"#), None);
        assert_eq!(code(r#"{"jsonrpc":"2.0","id":1,"method":"x","params":{"a":[1,{"b":"]}"}]}}"#), None);
        assert_eq!(code("{not json"), Some((PARSE_ERROR, Value::Null)));
        assert_eq!(code("]["), Some((PARSE_ERROR, Value::Null)));
        assert_eq!(code(""), Some((PARSE_ERROR, Value::Null)));
        assert_eq!(code("[1,2]"), Some((INVALID_REQUEST, Value::Null)));
        assert_eq!(code("42"), Some((INVALID_REQUEST, Value::Null)));
        assert_eq!(code(r#"{"jsonrpc":"1.0","id":7,"method":"x"}"#), Some((INVALID_REQUEST, json!(7))));
        let deep = format!(r#"{{"jsonrpc":"2.0","id":"d","method":"x","params":{}1{}}}"#, "[".repeat(100_000), "]".repeat(100_000));
        assert_eq!(code(&deep), Some((INVALID_REQUEST, json!("d"))));
        assert!(check(b"\xff\xfe").is_err());
    }

    #[tokio::test]
    async fn relay_skips_garbage_and_bad_headers_and_keeps_going() {
        let ok = r#"{"jsonrpc":"2.0","id":1,"method":"shutdown"}"#;
        let input = format!(
            "stray output\nContent-Length: 2\r\n\r\n{{}}Content-Length: abc\r\n\r\njunkContent-Length: 99999999999999\r\n\r\nmore junk\nContent-Length: {}\r\n\r\n{ok}",
            ok.len()
        );
        let mut out = Vec::new();
        relay(input.as_bytes(), &mut out).await;
        let text = String::from_utf8(out).unwrap();
        let bodies: Vec<&str> = text.split("Content-Length: ").filter(|s| !s.is_empty()).map(|s| s.split_once("\r\n\r\n").unwrap().1).collect();
        let codes: Vec<String> = bodies
            .iter()
            .map(|b| match serde_json::from_str::<Value>(b).unwrap()["params"]["code"].as_i64() {
                Some(c) => c.to_string(),
                None => b.to_string(),
            })
            .collect();
        assert_eq!(codes, ["-32700", "-32600", "-32700", "-32700", ok]);
    }
}
