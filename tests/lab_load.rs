//! The Lab under load, on loopback, bounded in requests and time: every route the router has
//! (from `lab::paths`, so a route added later is walked too) with every method and with good,
//! malformed, binary, unicode and oversized bodies; 200 requests from 20 clients at once; 20
//! search streams opened and dropped; the searches saturated while the cheap endpoints answer;
//! slow clients timed out. Nothing may answer 5xx (503 for a search beyond the limit is the one
//! allowed), no connection may drop without an answer, and resident memory may grow by 50 MB at
//! most. The figures are printed (run with `--nocapture` to see them; docs/reliability.md keeps
//! them).
//!
//! The server runs in this test's process (the only other test of this file reads a few source
//! files), so resident memory is read from /proc/self/status.

#![cfg(feature = "lab")]

mod common;

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rookery::lab::api::Makers;
use rookery::lab::{MAX_BODY, MAX_SEARCHES, ServerLimits, paths, start_with};
use serde_json::Value;

use common::http::Reply;

const CLIENTS: usize = 20;
const PER_CLIENT: usize = 10;
const STREAMS: usize = 20;
/// The whole test, start to end (it takes about 20 s on a quiet machine).
const BUDGET: Duration = Duration::from_secs(120);
/// Resident memory may grow by this much over the run.
const RSS_GROWTH: u64 = 50 << 20;
/// Short deadlines for slow clients, so the test waits seconds, not the default ten.
const LIMITS: ServerLimits = ServerLimits {
    max_body: MAX_BODY,
    header_timeout: Duration::from_secs(2),
    body_timeout: Duration::from_secs(2),
};

/// Routes that run a search: these may answer 503 when every search slot is taken.
const SEARCHES: [&str; 4] = ["/api/analyse", "/api/search", "/api/tree", "/api/ladder"];

/// One request on its own connection, read to its end. A connection that drops without a
/// whole answer fails the test.
fn request(
    addr: SocketAddr,
    method: &str,
    target: &str,
    content_type: Option<&str>,
    body: &[u8],
) -> Reply {
    let headers = content_type
        .map(|t| format!("Content-Type: {t}\r\n"))
        .unwrap_or_default();
    common::http::request(
        addr,
        method,
        target,
        &headers,
        body,
        Duration::from_secs(60),
    )
}

fn get(addr: SocketAddr, target: &str) -> Reply {
    request(addr, "GET", target, None, b"")
}

fn post(addr: SocketAddr, target: &str, json: &str) -> Reply {
    request(
        addr,
        "POST",
        target,
        Some("application/json"),
        json.as_bytes(),
    )
}

/// What every answer must be: no 5xx (503 from a search route aside), and an error as JSON
/// (for `HEAD`, which has no body, said in the content type).
fn check(what: &str, path: &str, r: &Reply) {
    let search = SEARCHES.contains(&path);
    assert!(
        r.status < 500 || (search && r.status == 503),
        "{what}: {} {}",
        r.status,
        r.body
    );
    if r.status >= 400 {
        assert!(r.is_json(), "{what}: {} without JSON: {}", r.status, r.head);
        if !what.starts_with("HEAD ") {
            assert!(!r.error().is_empty(), "{what}: {} {}", r.status, r.body);
        }
    }
}

/// Resident memory of this process, in bytes.
fn rss() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let kb: u64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|v| v.parse().ok())
        .unwrap();
    kb * 1024
}

fn searches_running(addr: SocketAddr) -> u64 {
    let r = get(addr, "/api/health");
    assert_eq!(r.status, 200, "{}", r.body);
    let v: Value = serde_json::from_str(&r.body).unwrap();
    v["searches"].as_u64().unwrap()
}

/// Waits (two seconds at most per search) until no search runs.
fn searches_end(addr: SocketAddr) -> Duration {
    let start = Instant::now();
    while searches_running(addr) > 0 {
        assert!(
            start.elapsed() < Duration::from_secs(5),
            "searches still run {:?} after their clients left",
            start.elapsed()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    start.elapsed()
}

/// A search stream: the connection, once its `200` status line arrived; `None` on a 503.
fn open_stream(addr: SocketAddr, movetime: u64) -> Option<TcpStream> {
    match common::http::open_search(addr, movetime) {
        (s, 200) => Some(s),
        (_, 503) => None,
        (_, other) => panic!("a stream answered {other}"),
    }
}

/// Every path with every method and every kind of body: nothing is a 5xx, every route takes
/// at least one method.
fn every_route_every_way(addr: SocketAddr) -> usize {
    let oversized = vec![b'x'; MAX_BODY + 1];
    let many_moves = format!(
        "{{\"moves\": [{}]}}",
        vec!["\"g1f3\", \"g8f6\", \"f3g1\", \"f6g8\""; 300].join(", ")
    );
    let bodies: Vec<(&str, Option<&str>, &[u8])> = vec![
        ("empty", None, b""),
        ("an empty object", Some("application/json"), b"{}"),
        (
            "malformed JSON",
            Some("application/json"),
            b"{\"fen\": \"rnbqkbnr/pppppppp/8",
        ),
        ("a wrong content type", Some("text/plain"), b"hello"),
        (
            "binary",
            Some("application/octet-stream"),
            &[0xff, 0x00, 0xfe, 0x80, 0x0a],
        ),
        (
            "unicode",
            Some("application/json"),
            "{\"fen\": \"♔♕♖ ♗♘♙\", \"moves\": [\"é4\"]}".as_bytes(),
        ),
        (
            "wrong types",
            Some("application/json"),
            b"{\"fen\": 5, \"moves\": {\"a\": null}, \"depth\": -3}",
        ),
        (
            "huge numbers",
            Some("application/json"),
            b"{\"depth\": 99999999999999999999, \"movetime\": 18446744073709551616}",
        ),
        (
            "a thousand moves",
            Some("application/json"),
            many_moves.as_bytes(),
        ),
        ("over the size limit", Some("application/json"), &oversized),
    ];
    let queries = [
        "",
        "?depth=1&engine=alphabeta",
        "?depth=%zz",
        "?fen=%E2%99%94&moves=e2e4,,e7e5",
        "?depth=99999999999999999999",
        "?unknown=1",
    ];
    let mut count = 0;
    for path in paths() {
        let mut taken = Vec::new();
        for method in ["GET", "POST", "PUT", "DELETE", "PATCH", "HEAD"] {
            for (what, content_type, body) in &bodies {
                // Searches with a body the server accepts run for the engine's default time:
                // once per method is enough there.
                let r = request(addr, method, path, *content_type, body);
                count += 1;
                let label = format!("{method} {path} with {what}");
                check(&label, path, &r);
                if *what == "over the size limit" {
                    assert_eq!(r.status, 413, "{label}");
                }
                if r.status != 405 {
                    taken.push(method);
                }
            }
            if method == "GET" {
                for q in queries {
                    let r = get(addr, &format!("{path}{q}"));
                    count += 1;
                    check(&format!("GET {path}{q}"), path, &r);
                }
            }
        }
        assert!(!taken.is_empty(), "{path} takes no method");
    }
    count
}

#[test]
fn the_lab_under_load() {
    let began = Instant::now();
    let addr = start_with("127.0.0.1", 0, Makers::default(), LIMITS)
        .unwrap()
        .addr;
    // Warm up: each kind of request once, so the baseline holds what a used server holds.
    assert_eq!(get(addr, "/").status, 200);
    assert_eq!(
        post(addr, "/api/analyse", r#"{"movetime": 100}"#).status,
        200
    );
    let rss_start = rss();

    // 1. Every route, every method, every kind of body.
    let walked = every_route_every_way(addr);
    searches_end(addr);

    // 2. 200 requests from 20 clients at once: the cheap endpoints and some searches.
    let latencies = Arc::new(Mutex::new(Vec::new()));
    let start = Instant::now();
    let clients: Vec<_> = (0..CLIENTS)
        .map(|c| {
            let latencies = latencies.clone();
            std::thread::spawn(move || {
                for i in 0..PER_CLIENT {
                    let (path, r) = match (c + i) % 6 {
                        0 => ("/api/engines", get(addr, "/api/engines")),
                        1 => (
                            "/api/position",
                            post(addr, "/api/position", r#"{"moves": ["e2e4", "c7c5"]}"#),
                        ),
                        2 => (
                            "/api/play",
                            post(addr, "/api/play", r#"{"moves": ["e2e4"], "move": "Nf6"}"#),
                        ),
                        3 => ("/api/health", get(addr, "/api/health")),
                        4 => ("/", get(addr, "/")),
                        _ => (
                            "/api/analyse",
                            post(
                                addr,
                                "/api/analyse",
                                r#"{"engine": "rookery", "movetime": 50}"#,
                            ),
                        ),
                    };
                    check(&format!("client {c} request {i}: {path}"), path, &r);
                    if path != "/api/analyse" {
                        assert_eq!(r.status, 200, "{path}: {}", r.body);
                    }
                    latencies.lock().unwrap().push((r.took, path, r.status));
                }
            })
        })
        .collect();
    for c in clients {
        c.join().unwrap();
    }
    let elapsed = start.elapsed();
    let latencies = latencies.lock().unwrap().clone();
    assert_eq!(latencies.len(), CLIENTS * PER_CLIENT);
    let per_second = latencies.len() as f64 / elapsed.as_secs_f64();
    let slowest = latencies.iter().max().unwrap();
    let slowest_cheap = latencies
        .iter()
        .filter(|(_, p, _)| *p != "/api/analyse")
        .max()
        .unwrap();
    let refused = latencies.iter().filter(|(_, _, s)| *s == 503).count();
    searches_end(addr);

    // 3. Twenty search streams opened at once and dropped: their searches end.
    let opened: Vec<_> = (0..STREAMS)
        .map(|_| std::thread::spawn(move || open_stream(addr, 20_000)))
        .collect();
    let streams: Vec<Option<TcpStream>> = opened.into_iter().map(|t| t.join().unwrap()).collect();
    let granted = streams.iter().filter(|s| s.is_some()).count();
    assert!(
        (1..=MAX_SEARCHES).contains(&granted),
        "{granted} streams got a search slot"
    );
    drop(streams);
    let streams_ended = searches_end(addr);

    // 4. The searches saturated: more searches get 503, the cheap endpoints answer 200.
    let held: Vec<TcpStream> = (0..MAX_SEARCHES)
        .map(|_| open_stream(addr, 20_000).expect("a free slot"))
        .collect();
    let r = post(
        addr,
        "/api/analyse",
        r#"{"engine": "alphabeta", "depth": 1}"#,
    );
    assert_eq!(r.status, 503, "{}", r.body);
    assert!(r.error().contains("busy"), "{}", r.body);
    assert!(
        open_stream(addr, 100).is_none(),
        "a third stream is refused"
    );
    let mut saturated_slowest = Duration::ZERO;
    for _ in 0..5 {
        for (path, r) in [
            ("/api/health", get(addr, "/api/health")),
            ("/api/engines", get(addr, "/api/engines")),
            ("/api/position", post(addr, "/api/position", "{}")),
            ("/api/play", post(addr, "/api/play", r#"{"move": "e4"}"#)),
            ("/", get(addr, "/")),
        ] {
            assert_eq!(r.status, 200, "{path} while saturated: {}", r.body);
            saturated_slowest = saturated_slowest.max(r.took);
        }
    }
    assert!(
        saturated_slowest < Duration::from_secs(1),
        "a cheap endpoint took {saturated_slowest:?} while the searches were saturated"
    );
    drop(held);
    searches_end(addr);

    // 5. Slow clients: headers that never end, a body that never ends, a silent connection.
    let slow_start = Instant::now();
    let mut unfinished_head = TcpStream::connect(addr).unwrap();
    unfinished_head
        .write_all(b"GET /api/health HTTP/1.1\r\nHost: lab\r\n")
        .unwrap();
    let mut silent = TcpStream::connect(addr).unwrap();
    let mut unfinished_body = TcpStream::connect(addr).unwrap();
    unfinished_body
        .write_all(
            b"POST /api/position HTTP/1.1\r\nHost: lab\r\nContent-Length: 100\r\n\r\n{\"fen\"",
        )
        .unwrap();
    // Meanwhile the server answers others.
    assert_eq!(get(addr, "/api/health").status, 200);
    for s in [&mut unfinished_head, &mut silent, &mut unfinished_body] {
        s.set_read_timeout(Some(LIMITS.header_timeout * 3)).unwrap();
    }
    let mut raw = String::new();
    unfinished_body
        .read_to_string(&mut raw)
        .expect("the server answers and closes");
    assert!(raw.starts_with("HTTP/1.1 408"), "{raw}");
    for (what, s) in [
        ("unfinished headers", &mut unfinished_head),
        ("a silent connection", &mut silent),
    ] {
        let mut buf = Vec::new();
        // Closed by the server (an end of stream, or a reset), not left open.
        match s.read_to_end(&mut buf) {
            Ok(_) => {}
            Err(e) => assert!(
                !matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ),
                "{what}: still open after {:?}",
                slow_start.elapsed()
            ),
        }
    }
    let slow_closed = slow_start.elapsed();
    assert!(slow_closed < LIMITS.header_timeout * 3, "{slow_closed:?}");

    // 6. Resident memory.
    let rss_end = rss();
    let growth = rss_end.saturating_sub(rss_start);
    let total = began.elapsed();
    eprintln!(
        "lab load: {walked} requests over {} routes; {} requests from {CLIENTS} clients in {:.2} s \
         ({per_second:.0} a second, {refused} searches refused with 503), slowest {:?} ({}), \
         slowest cheap {:?} ({}); {STREAMS} streams dropped, searches ended in {streams_ended:?}; \
         saturated: slowest cheap answer {saturated_slowest:?}; slow clients closed in \
         {slow_closed:?}; resident memory {} MB -> {} MB; {:.1} s in all",
        paths().len(),
        latencies.len(),
        elapsed.as_secs_f64(),
        slowest.0,
        slowest.1,
        slowest_cheap.0,
        slowest_cheap.1,
        rss_start >> 20,
        rss_end >> 20,
        total.as_secs_f64(),
    );
    assert!(
        growth <= RSS_GROWTH,
        "resident memory grew by {} MB",
        growth >> 20
    );
    assert!(total < BUDGET, "{total:?}");
}

/// The router is made from `routes` alone (so `paths`, and the load test above, see every
/// route): no `.route(` call anywhere else in the Lab's sources.
#[test]
fn every_route_is_in_the_one_table() {
    fn walk(dir: &std::path::Path, out: &mut Vec<(String, String)>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let text = std::fs::read_to_string(&path).unwrap();
                out.push((path.display().to_string(), text));
            }
        }
    }
    let mut sources = Vec::new();
    walk(std::path::Path::new("src/lab"), &mut sources);
    let calls: Vec<&String> = sources
        .iter()
        .flat_map(|(file, text)| text.matches(".route(").map(move |_| file))
        .collect();
    assert_eq!(
        calls.len(),
        1,
        "routes are added to `routes()` in src/lab/routes.rs, not with .route(): {calls:?}"
    );
    assert!(paths().contains(&"/api/health") && paths().len() >= 13);
}
