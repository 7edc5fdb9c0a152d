//! The Lab's HTTP API against a server started on a free port: every endpoint, every error, the
//! search stream, the limit on searches at once, and a closed connection stopping its search.

#![cfg(feature = "lab")]

mod common;

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

use common::http::{assert_each_refused, assert_ok};
use rookery::lab::ServerLimits;
use rookery::lab::api::Makers;
use serde_json::Value;

const MIDDLEGAME: &str = "r1bqrnk1/pp2bppp/2p2n2/3p2B1/3P4/2NBPN2/PPQ2PPP/R4RK1 w - - 7 11";

/// A request body on MIDDLEGAME with more fields (`"engine": "alphabeta", "depth": 3`).
fn on_middlegame(fields: &str) -> String {
    format!(r#"{{"fen": "{MIDDLEGAME}", {fields}}}"#)
}

fn server() -> SocketAddr {
    rookery::lab::start("127.0.0.1", 0, Makers::default())
        .unwrap()
        .addr
}

/// One request on its own connection: (status, headers, body).
fn http(addr: SocketAddr, method: &str, path: &str, body: &str) -> (u16, String, String) {
    let r = common::http::request(
        addr,
        method,
        path,
        "Content-Type: application/json\r\n",
        body.as_bytes(),
        Duration::from_secs(60),
    );
    (r.status, r.head, r.body)
}

fn post(addr: SocketAddr, path: &str, body: &str) -> (u16, Value) {
    let (status, _, body) = http(addr, "POST", path, body);
    (status, serde_json::from_str(&body).unwrap_or(Value::Null))
}

fn error_of(v: &Value) -> String {
    v["error"].as_str().unwrap_or_default().to_string()
}

#[test]
fn page_assets_engines_and_unknown_paths() {
    let addr = server();
    let (status, head, body) = http(addr, "GET", "/", "");
    assert_eq!(status, 200);
    assert!(head.to_ascii_lowercase().contains("text/html"));
    assert!(body.contains("<title>Rookery Lab</title>") && body.contains("/app.js"));
    let (status, head, body) = http(addr, "GET", "/app.js", "");
    assert_eq!(status, 200);
    assert!(head.to_ascii_lowercase().contains("javascript") && body.contains("makeBoard"));
    let (status, _, body) = http(addr, "GET", "/app.css", "");
    assert!(status == 200 && body.contains(".board"));
    let (status, _, body) = http(addr, "GET", "/api/engines", "");
    assert_eq!(status, 200);
    let v: Value = serde_json::from_str(&body).unwrap();
    let engines = v["engines"].as_array().unwrap();
    assert_eq!(engines.len(), 13);
    assert_eq!(engines[5]["name"], "alphabeta");
    assert_eq!(engines[5]["tree"], true);
    assert_eq!(engines[11]["tree"], false);
    let (status, _, body) = http(addr, "GET", "/api/nothing-here", "");
    assert_eq!(status, 404);
    assert!(body.contains("\"error\""));
}

#[test]
fn positions_and_moves() {
    let addr = server();
    let v = assert_ok(post(addr, "/api/position", "{}"));
    assert_eq!(v["legal"].as_array().unwrap().len(), 20);
    assert_eq!(v["turn"], "white");
    let v = assert_ok(post(
        addr,
        "/api/play",
        r#"{"moves": ["e2e4"], "move": "e5"}"#,
    ));
    assert_eq!(v["san"], serde_json::json!(["e4", "e5"]));
    assert!(v["pgn"].as_str().unwrap().contains("1. e4 e5"));
    // Fool's mate: the game is over, and the page is told how.
    let v = assert_ok(post(
        addr,
        "/api/play",
        r#"{"moves": ["f2f3", "e7e5", "g2g4"], "move": "Qh4"}"#,
    ));
    assert_eq!(v["over"]["result"], "0-1");
    assert_eq!(v["legal"].as_array().unwrap().len(), 0);
    assert_each_refused(
        [
            (
                r#"{"moves": ["f2f3", "e7e5", "g2g4", "d8h4"], "move": "e2e4"}"#,
                "the game is over",
            ),
            (r#"{"move": "e2e5"}"#, "illegal"),
            ("{}", "move"),
        ],
        |body| post(addr, "/api/play", body),
    );
    assert_each_refused(
        [
            (r#"{"fen": "not a fen"}"#, "invalid FEN"),
            (r#"{"moves": ["e2e5"]}"#, "move 'e2e5'"),
            (r#"{"fen": 42}"#, "bad request body"),
            (r#"{"colour": "white"}"#, "unknown field"),
            ("{not json", "bad request body"),
        ],
        |body| post(addr, "/api/position", body),
    );
}

#[test]
fn analyse_and_its_errors() {
    let addr = server();
    let body = on_middlegame(r#""engine": "alphabeta", "depth": 3"#);
    let v = assert_ok(post(addr, "/api/analyse", &body));
    assert_eq!(v["nodes"], 4163);
    assert_eq!(v["engine"], "alphabeta");
    assert_eq!(v["moves"].as_array().unwrap().len(), 48);
    let v = assert_ok(post(
        addr,
        "/api/analyse",
        r#"{"engine": "rookery", "movetime": 100}"#,
    ));
    assert!(v["depth"].as_u64().unwrap() >= 3 && v["pv"].as_array().unwrap().len() >= 2);
    assert_each_refused(
        [
            (
                r#"{"engine": "deep-thought"}"#,
                "unknown engine 'deep-thought'",
            ),
            (r#"{"engine": "alphabeta", "depth": 0}"#, "depth must be"),
            (
                r#"{"engine": "alphabeta", "depth": -3}"#,
                "bad request body",
            ),
            (
                r#"{"engine": "rookery", "movetime": 3600000}"#,
                "movetime must be",
            ),
            (r#"{"engine": "rookery", "nodes": 0}"#, "nodes must be"),
            (r#"{"engine": "rookery", "elo": 99999}"#, "elo must be"),
            (
                r#"{"fen": "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1", "engine": "rookery"}"#,
                "the game is over",
            ),
        ],
        |body| post(addr, "/api/analyse", body),
    );
}

#[test]
fn the_search_streams_its_iterations() {
    let addr = server();
    let (status, head, body) = http(
        addr,
        "GET",
        "/api/search?engine=rookery&movetime=300&moves=e2e4%20e7e5",
        "",
    );
    assert_eq!(status, 200);
    assert!(head.to_ascii_lowercase().contains("text/event-stream"));
    let infos = body.matches("event: info").count();
    assert!(infos >= 3, "{body}");
    assert_eq!(body.matches("event: done").count(), 1);
    let done = body
        .split("event: done\ndata: ")
        .nth(1)
        .unwrap()
        .lines()
        .next()
        .unwrap();
    let v: Value = serde_json::from_str(done).unwrap();
    assert!(v["best"].as_str().is_some() && v["pv_san"].as_array().unwrap().len() >= 2);
    for (target, wanted) in [
        ("/api/search?engine=nope", "unknown engine"),
        ("/api/search?depth=many", "depth must be a whole number"),
        ("/api/search?colour=white", "unknown parameter"),
    ] {
        let (status, _, body) = http(addr, "GET", target, "");
        assert_eq!(status, 400, "{target}");
        assert!(body.contains(wanted), "{target}: {body}");
    }
}

#[test]
fn trees_expand_node_by_node_with_rookery_trees_counts() {
    let addr = server();
    let tree = |fields: &str| assert_ok(post(addr, "/api/tree", &on_middlegame(fields)));
    let v = tree(r#""engine": "alphabeta", "depth": 3"#);
    assert_eq!(v["positions"], 4163);
    assert_eq!(v["per_depth"], serde_json::json!([1, 48, 110, 4004]));
    let children = v["children"].as_array().unwrap();
    assert_eq!(children.len(), 48);
    let third = children[2]["id"].as_u64().unwrap();
    let v = tree(&format!(
        r#""engine": "alphabeta", "depth": 3, "node": {third}"#
    ));
    assert_eq!(v["path"].as_array().unwrap().len(), 2);
    let pruned: Vec<&Value> = v["children"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| !c["pruned"].is_null())
        .collect();
    assert!(!pruned.is_empty());
    assert!(pruned[0]["pruned"].as_str().unwrap().starts_with("cut-off"));
    let v = tree(r#""engine": "minimax", "depth": 3"#);
    assert_eq!(v["positions"], 70119);
    assert_each_refused(
        [
            (
                on_middlegame(r#""engine": "minimax", "depth": 4"#),
                "depth 3 (70119 nodes) would fit",
            ),
            (
                r#"{"engine": "pst", "depth": 2}"#.to_string(),
                "no search tree for engine 'pst'",
            ),
            (
                r#"{"engine": "minimax", "depth": 9}"#.to_string(),
                "tree depth must be",
            ),
            (
                r#"{"engine": "minimax", "depth": 1, "node": 99999}"#.to_string(),
                "no node 99999",
            ),
            (r#"{"depth": 2}"#.to_string(), "bad request body"),
        ],
        |body| post(addr, "/api/tree", body),
    );
}

#[test]
fn ladder_and_evaluation() {
    let addr = server();
    let body = on_middlegame(r#""depth": 2, "movetime": 20"#);
    let v = assert_ok(post(addr, "/api/ladder", &body));
    let rungs = v["rungs"].as_array().unwrap();
    assert_eq!(rungs.len(), 13);
    assert_eq!(rungs[4]["name"], "minimax");
    assert_eq!(rungs[4]["nodes"], 1513);
    assert!(rungs.iter().all(|r| r["best"].is_string()));
    assert_each_refused([(r#"{"depth": 7}"#, "ladder depth")], |body| {
        post(addr, "/api/ladder", body)
    });
    let v = assert_ok(post(
        addr,
        "/api/eval",
        &format!(r#"{{"fen": "{MIDDLEGAME}"}}"#),
    ));
    assert!(v["terms"].as_array().unwrap().len() >= 5);
    assert_eq!(v["value"], v["white"]);
    // The net's score beside the terms, from the same two points of view.
    assert!(v["net"]["value"].is_i64(), "{v}");
    assert_eq!(v["net"]["value"], v["net"]["white"]);
    assert!(v["net"]["architecture"].as_str().unwrap().contains("768"));
    let (_, black) = post(
        addr,
        "/api/eval",
        r#"{"fen": "4k3/8/8/8/8/8/8/3QK3 b - - 0 1"}"#,
    );
    assert!(black["net"]["value"].as_i64().unwrap() < -500, "{black}");
    assert_eq!(
        black["net"]["white"],
        -black["net"]["value"].as_i64().unwrap()
    );
    assert_each_refused(
        [(r#"{"fen": "8/8/8/8 w - - 0 1"}"#, "invalid FEN")],
        |body| post(addr, "/api/eval", body),
    );
}

/// Opens a search stream and reads its status line, leaving the connection open.
fn open_stream(addr: SocketAddr, movetime: u64) -> TcpStream {
    let (s, status) = common::http::open_search(addr, movetime);
    assert_eq!(status, 200);
    s
}

#[test]
fn searches_at_once_are_limited_and_a_closed_stream_stops_its_search() {
    let addr = server();
    let streams: Vec<TcpStream> = (0..rookery::lab::MAX_SEARCHES)
        .map(|_| open_stream(addr, 20_000))
        .collect();
    // Every slot is taken: a third search waits two seconds, then is refused.
    let (status, v) = post(
        addr,
        "/api/analyse",
        r#"{"engine": "alphabeta", "depth": 1}"#,
    );
    assert_eq!(status, 503);
    assert!(error_of(&v).contains("busy"));
    // Closing the streams (a tab closed) stops their searches long before their 20 s.
    drop(streams);
    let start = Instant::now();
    let (status, _) = post(
        addr,
        "/api/analyse",
        r#"{"engine": "alphabeta", "depth": 1}"#,
    );
    assert_eq!(status, 200);
    assert!(
        start.elapsed() < Duration::from_secs(3),
        "{:?}",
        start.elapsed()
    );
}

/// A handler that panics (a bug) answers 500 with a JSON error; the server, a request running
/// beside it on another connection, and every later request go on.
#[test]
fn a_panicking_handler_answers_500_and_the_server_goes_on() {
    use axum::routing::get;
    let app = axum::Router::new()
        .route(
            "/boom",
            get(|| async {
                let words: Vec<&str> = Vec::new();
                // A bug: indexing past the end.
                words[3].to_string()
            }),
        )
        .route(
            "/slow",
            get(|| async {
                tokio::time::sleep(Duration::from_millis(500)).await;
                "slow and fine"
            }),
        )
        .route("/fine", get(|| async { "fine" }));
    let addr = rookery::lab::serve(app, "127.0.0.1", 0, ServerLimits::default())
        .unwrap()
        .addr;
    let slow = std::thread::spawn(move || http(addr, "GET", "/slow", ""));
    for _ in 0..5 {
        let (status, head, body) = http(addr, "GET", "/boom", "");
        assert_eq!(status, 500, "{head}");
        assert!(
            head.to_ascii_lowercase().contains("application/json"),
            "{head}"
        );
        let v: Value = serde_json::from_str(&body).unwrap();
        assert!(error_of(&v).contains("a bug"), "{v}");
        let (status, _, body) = http(addr, "GET", "/fine", "");
        assert_eq!((status, body.as_str()), (200, "fine"));
    }
    let (status, _, body) = slow.join().unwrap();
    assert_eq!((status, body.as_str()), (200, "slow and fine"));
}

/// Wrong methods, bodies over the limit, malformed queries and bodies that never finish
/// arriving: each a 4xx with a JSON error, never a 5xx.
#[test]
fn every_refusal_is_a_json_4xx() {
    let limits = ServerLimits {
        body_timeout: Duration::from_millis(500),
        ..ServerLimits::default()
    };
    let addr = rookery::lab::start_with("127.0.0.1", 0, Makers::default(), limits)
        .unwrap()
        .addr;
    let json_error = |status: u16, head: &str, body: &str| {
        assert!(
            head.to_ascii_lowercase().contains("application/json"),
            "{status}: {head}"
        );
        let v: Value = serde_json::from_str(body).unwrap_or(Value::Null);
        let e = error_of(&v);
        assert!(!e.is_empty(), "{status}: {body}");
        e
    };
    let (status, head, body) = http(addr, "GET", "/api/analyse", "");
    assert_eq!(status, 405);
    assert!(json_error(status, &head, &body).contains("POST"), "{body}");
    let (status, head, body) = http(addr, "DELETE", "/api/engines", "");
    assert_eq!(status, 405);
    json_error(status, &head, &body);
    let huge = format!("{{\"fen\": \"{}\"}}", "x".repeat(rookery::lab::MAX_BODY));
    let (status, head, body) = http(addr, "POST", "/api/position", &huge);
    assert_eq!(status, 413);
    assert!(json_error(status, &head, &body).contains("larger than"));
    let (status, head, body) = http(addr, "GET", "/api/search?depth=%zz%", "");
    assert_eq!(status, 400, "{body}");
    json_error(status, &head, &body);
    // Ten bytes of a hundred promised, then nothing: refused when the body deadline passes.
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    write!(
        s,
        "POST /api/position HTTP/1.1\r\nHost: lab\r\nContent-Length: 100\r\n\r\n{{\"fen\": \""
    )
    .unwrap();
    let start = Instant::now();
    let mut raw = String::new();
    let _ = s.read_to_string(&mut raw);
    assert!(raw.starts_with("HTTP/1.1 408"), "{raw}");
    assert!(raw.contains("did not arrive"), "{raw}");
    assert!(
        start.elapsed() < Duration::from_secs(3),
        "{:?}",
        start.elapsed()
    );
}
