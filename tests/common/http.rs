//! HTTP/1.1 written by hand for the Lab's tests: one request on its own connection, read to its
//! end, so a test sees exactly what the server sent (status, header lines, body) and nothing a
//! client library would smooth over. `open` leaves a connection open once its status line has
//! come, for the streams a test holds while it asks for something else.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

use serde_json::Value;

/// A whole answer.
pub struct Reply {
    pub status: u16,
    /// The status line and header lines.
    pub head: String,
    /// The body, chunked framing removed.
    pub body: String,
    pub took: Duration,
}

impl Reply {
    /// The body as JSON, or `Null` when it is not JSON.
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or(Value::Null)
    }

    /// The `error` field of a JSON body, or "".
    pub fn error(&self) -> String {
        self.json()["error"]
            .as_str()
            .unwrap_or_default()
            .to_string()
    }

    pub fn is_json(&self) -> bool {
        self.head
            .to_ascii_lowercase()
            .contains("content-type: application/json")
    }

    pub fn is_chunked(&self) -> bool {
        self.head
            .to_ascii_lowercase()
            .contains("transfer-encoding: chunked")
    }
}

/// The JSON of an answer that must be a success: `(status, json)` as a test's `post` gives it.
pub fn assert_ok((status, v): (u16, Value)) -> Value {
    assert_eq!(status, 200, "{v}");
    v
}

/// Each body of `cases` that `post` sends is refused: status 400, and a JSON error that contains
/// the words paired with the body. `post` gives back the status and the answer read as JSON.
pub fn assert_each_refused<B: std::fmt::Display>(
    cases: impl IntoIterator<Item = (B, &'static str)>,
    post: impl Fn(&B) -> (u16, Value),
) {
    for (body, wanted) in cases {
        let (status, v) = post(&body);
        assert_eq!(status, 400, "{body}");
        let error = v["error"].as_str().unwrap_or_default();
        assert!(error.contains(wanted), "{body}: {v}");
    }
}

/// Sends one request with `headers` (whole lines, each ending in CRLF) and `body`, and reads the
/// answer to the end of the connection, waiting at most `timeout` for each read. A connection
/// that drops without a whole answer fails the test, naming the request.
pub fn request(
    addr: SocketAddr,
    method: &str,
    target: &str,
    headers: &str,
    body: &[u8],
    timeout: Duration,
) -> Reply {
    let start = Instant::now();
    let mut s = TcpStream::connect(addr).expect("connect");
    s.set_read_timeout(Some(timeout)).unwrap();
    let head = format!(
        "{method} {target} HTTP/1.1\r\nHost: lab\r\nConnection: close\r\n{headers}Content-Length: {}\r\n\r\n",
        body.len()
    );
    let mut bytes = head.into_bytes();
    bytes.extend_from_slice(body);
    s.write_all(&bytes)
        .unwrap_or_else(|e| panic!("{method} {target}: the request could not be sent: {e}"));
    let mut raw = Vec::new();
    s.read_to_end(&mut raw)
        .unwrap_or_else(|e| panic!("{method} {target}: the connection dropped: {e}"));
    let raw = String::from_utf8_lossy(&raw).into_owned();
    let Some((head, body)) = raw.split_once("\r\n\r\n") else {
        panic!(
            "{method} {target}: no answer ({} bytes: {raw:?})",
            raw.len()
        )
    };
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("{method} {target}: no status in {head:?}"));
    let mut reply = Reply {
        status,
        head: head.to_string(),
        body: body.to_string(),
        took: Duration::ZERO,
    };
    if reply.is_chunked() {
        reply.body = dechunk(body);
    }
    reply.took = start.elapsed();
    reply
}

/// Removes HTTP/1.1 chunked framing (a body cut short keeps what arrived).
pub fn dechunk(mut body: &str) -> String {
    let mut out = String::new();
    while let Some(line_end) = body.find("\r\n") {
        let size = usize::from_str_radix(body[..line_end].trim(), 16).unwrap_or(0);
        if size == 0 {
            break;
        }
        let start = line_end + 2;
        out.push_str(&body[start..(start + size).min(body.len())]);
        body = &body[(start + size + 2).min(body.len())..];
    }
    out
}

/// Sends one request whose answer streams (server-sent events) and reads no more than its
/// status line, waiting at most ten seconds for it: the connection stays open, and the work
/// behind it goes on until the connection is dropped. The connection and the status.
pub fn open(
    addr: SocketAddr,
    method: &str,
    target: &str,
    headers: &str,
    body: &str,
) -> (TcpStream, u16) {
    let mut s = TcpStream::connect(addr).expect("connect");
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    write!(
        s,
        "{method} {target} HTTP/1.1\r\nHost: lab\r\n{headers}Content-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .unwrap_or_else(|e| panic!("{method} {target}: the request could not be sent: {e}"));
    let mut line = [0u8; 12];
    s.read_exact(&mut line)
        .unwrap_or_else(|e| panic!("{method} {target}: no status line: {e}"));
    let line = String::from_utf8_lossy(&line).into_owned();
    let status = line
        .strip_prefix("HTTP/1.1 ")
        .and_then(|code| code.parse().ok())
        .unwrap_or_else(|| panic!("{method} {target}: no status in {line:?}"));
    (s, status)
}

/// A search stream of `movetime` milliseconds with the Lab's strongest engine, held open.
pub fn open_search(addr: SocketAddr, movetime: u64) -> (TcpStream, u16) {
    let target = format!("/api/search?engine=rookery&movetime={movetime}");
    open(addr, "GET", &target, "", "")
}
