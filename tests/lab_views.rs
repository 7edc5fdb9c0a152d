//! The Lab's teaching views through its HTTP API, against a server started on a free port: the
//! step-by-step walk, the heatmap, the game review and the tournament (JSON and event stream),
//! every error, the tournament holding one search slot only, and a closed stream stopping it.

#![cfg(feature = "lab")]

mod common;

use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

use common::http::{assert_each_refused, assert_ok};
use rookery::lab::api::Makers;
use serde_json::{Value, json};

const MIDDLEGAME: &str = "r1bqrnk1/pp2bppp/2p2n2/3p2B1/3P4/2NBPN2/PPQ2PPP/R4RK1 w - - 7 11";
/// Black's third move walks into mate in one.
const SCHOLARS: &str = "[Event \"Test\"]\n[White \"A\"]\n[Black \"B\"]\n[Result \"1-0\"]\n\n1. e4 e5 2. Bc4 Nc6 3. Qh5 Nf6 4. Qxf7# 1-0\n";

fn server() -> SocketAddr {
    rookery::lab::start("127.0.0.1", 0, Makers::default())
        .unwrap()
        .addr
}

/// One request on its own connection, with extra header lines: (status, headers, body).
fn http(
    addr: SocketAddr,
    method: &str,
    path: &str,
    extra: &str,
    body: &str,
) -> (u16, String, String) {
    let headers = format!("Content-Type: application/json\r\n{extra}");
    let r = common::http::request(
        addr,
        method,
        path,
        &headers,
        body.as_bytes(),
        Duration::from_secs(120),
    );
    (r.status, r.head, r.body)
}

fn post(addr: SocketAddr, path: &str, body: &Value) -> (u16, Value) {
    let (status, _, text) = http(addr, "POST", path, "", &body.to_string());
    (status, serde_json::from_str(&text).unwrap_or(Value::Null))
}

fn post_text(addr: SocketAddr, path: &str, body: &str) -> (u16, Value) {
    let (status, _, text) = http(addr, "POST", path, "", body);
    (status, serde_json::from_str(&text).unwrap_or(Value::Null))
}

/// A request for server-sent events, read to the end: the events as (name, data).
fn events(addr: SocketAddr, path: &str, body: &Value) -> (u16, Vec<(String, Value)>) {
    let (status, head, text) = http(
        addr,
        "POST",
        path,
        "Accept: text/event-stream\r\n",
        &body.to_string(),
    );
    if status == 200 {
        assert!(
            head.to_ascii_lowercase().contains("text/event-stream"),
            "{head}"
        );
    }
    let mut out = Vec::new();
    for block in text.split("\n\n") {
        let mut name = String::new();
        let mut data = String::new();
        for line in block.lines() {
            if let Some(n) = line.strip_prefix("event: ") {
                name = n.to_string();
            } else if let Some(d) = line.strip_prefix("data: ") {
                data.push_str(d);
            }
        }
        if !data.is_empty() {
            out.push((name, serde_json::from_str(&data).unwrap()));
        }
    }
    (status, out)
}

#[test]
fn the_views_scripts_are_served() {
    let addr = server();
    for (path, wanted) in [
        ("/tree.js", "function renderTree"),
        ("/steps.js", "function replaySteps"),
        ("/tournament.js", "function drawTourChart"),
        ("/review.js", "function runReview"),
        ("/train.js", "function drawTrainChart"),
    ] {
        let (status, head, body) = http(addr, "GET", path, "", "");
        assert_eq!(status, 200, "{path}");
        assert!(head.to_ascii_lowercase().contains("javascript"), "{path}");
        assert!(body.contains(wanted), "{path}");
    }
    let (_, _, page) = http(addr, "GET", "/", "", "");
    for id in [
        "view-steps",
        "view-tournament",
        "view-review",
        "view-train",
        "eval-board",
        "/review.js",
        "/train.js",
    ] {
        assert!(page.contains(id), "{id}");
    }
}

#[test]
fn steps_walk_the_textbook_tree_and_a_chess_position() {
    let addr = server();
    // The textbook's two-ply tree: three moves at the root, three replies to each, the leaves
    // valued for the side at the root.
    let textbook = json!([[3, 12, 8], [2, 4, 6], [14, 5, 2]]);
    let v = assert_ok(post(addr, "/api/steps", &json!({ "tree": textbook })));
    assert_eq!(v["value"], 3);
    assert_eq!(v["nodes"].as_array().unwrap().len(), 13);
    assert_eq!(v["visited"], json!({ "alphabeta": 11, "minimax": 13 }));
    // The first cut-off: B (node 2) sees 2 with alpha 3 and skips its last two leaves.
    let cut = v["alphabeta"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["kind"] == "cut")
        .unwrap();
    assert_eq!(cut["node"], 2);
    assert_eq!(
        (cut["alpha"].clone(), cut["beta"].clone()),
        (json!(3), json!(2))
    );
    assert_eq!(cut["skipped"], json!([8, 9]));
    assert_eq!(cut["saved"], 2);
    assert!(
        v["minimax"]
            .as_array()
            .unwrap()
            .iter()
            .all(|e| e["kind"] != "cut")
    );
    let orders = v["orders"].as_array().unwrap();
    assert_eq!(orders[1]["order"], "best-first");
    assert!(orders[1]["alphabeta"].as_u64() < orders[2]["alphabeta"].as_u64());
    // Best first: the walk itself in that order.
    let (_, v) = post(
        addr,
        "/api/steps",
        &json!({ "tree": textbook, "order": "best-first" }),
    );
    assert_eq!(v["visited"]["alphabeta"], 9);
    // A chess position: three moves a node, two plies, values in centipawns.
    let v = assert_ok(post(
        addr,
        "/api/steps",
        &json!({ "fen": MIDDLEGAME, "depth": 2, "width": 3 }),
    ));
    assert_eq!(v["kind"], "chess");
    assert_eq!(v["nodes"].as_array().unwrap().len(), 1 + 3 + 9);
    assert_eq!(v["nodes"][0]["children"].as_array().unwrap().len(), 3);
    assert!(v["nodes"][1]["uci"].is_string() && v["nodes"][1]["label"].is_string());
    assert!(v["visited"]["alphabeta"].as_u64() <= v["visited"]["minimax"].as_u64());
    assert_each_refused(
        [
            (json!({ "tree": [] }), "empty"),
            (json!({ "tree": [[1, "x"]] }), "a number (a leaf) or a list"),
            (json!({ "tree": [[1]], "fen": MIDDLEGAME }), "not both"),
            (json!({ "depth": 4 }), "steps depth must be"),
            (json!({ "width": 9 }), "steps width must be"),
            (json!({ "order": "random" }), "unknown order"),
            (
                json!({ "fen": "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1" }),
                "the game is over",
            ),
            (json!({ "colour": "white" }), "unknown field"),
        ],
        |body| post(addr, "/api/steps", body),
    );
}

#[test]
fn heatmaps_value_every_square() {
    let addr = server();
    let v = assert_ok(post(addr, "/api/heatmap", &json!({ "fen": MIDDLEGAME })));
    assert_eq!(v["eval"], "hce");
    assert_eq!(v["squares"].as_array().unwrap().len(), 30);
    let layers: Vec<String> = v["layers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["id"].as_str().unwrap().to_string())
        .collect();
    for wanted in [
        "table",
        "psq",
        "contribution",
        "term:mobility",
        "term:pawn structure",
    ] {
        assert!(layers.iter().any(|l| l == wanted), "{wanted}: {layers:?}");
    }
    // The same value as /api/eval gives (White's view).
    let (_, e) = post(addr, "/api/eval", &json!({ "fen": MIDDLEGAME }));
    assert_eq!(v["value"], e["white"]);
    assert_each_refused(
        [
            (
                json!({ "fen": MIDDLEGAME, "eval": "nnue-someday" }),
                "unknown evaluation",
            ),
            (json!({ "fen": "8/8/8/8 w - - 0 1" }), "invalid FEN"),
            (json!({ "moves": ["e2e5"] }), "move 'e2e5'"),
        ],
        |body| post(addr, "/api/heatmap", body),
    );
}

#[test]
fn a_review_marks_the_blunder_and_exports_pgn() {
    let addr = server();
    let v = assert_ok(post(
        addr,
        "/api/review",
        &json!({ "pgn": SCHOLARS, "nodes": 20000 }),
    ));
    let moves = v["moves"].as_array().unwrap();
    assert_eq!(moves.len(), 7);
    let nf6 = &moves[5];
    assert_eq!(nf6["san"], "Nf6");
    assert_eq!(nf6["judgement"], "blunder");
    assert_eq!(nf6["glyph"], "??");
    assert!(nf6["drop"].as_f64().unwrap() > 0.3);
    assert!(nf6["best"].is_string() && nf6["best"] != "g8f6");
    let mate = &moves[6];
    assert_eq!(mate["san"], "Qxf7#");
    assert!(mate["judgement"].is_null());
    assert_eq!(v["summary"]["black"]["blunders"], 1);
    let pgn = v["pgn"].as_str().unwrap();
    let words = pgn.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(words.contains("3... Nf6 $4 {[%eval #1] Blunder:"), "{pgn}");
    assert!(pgn.contains("[%eval ") && pgn.contains("[White \"A\"]") && pgn.contains("1-0"));
    // The annotated PGN reads back as the same game.
    let back = rookery::core::pgn::read_games(pgn);
    assert_eq!(back[0].moves.len(), 7, "{:?}", back[0].error);
    assert!(back[0].error.is_none());
    assert!(pgn.contains("[Annotator \"Rookery Lab: rookery, 20000 nodes a position\"]"));
    // As events: start, one per move as it is judged, then done.
    let (status, ev) = events(
        addr,
        "/api/review",
        &json!({ "moves": ["e2e4", "e7e5", "f1c4", "b8c6", "d1h5", "g8f6", "h5f7"], "nodes": 5000 }),
    );
    assert_eq!(status, 200);
    let names: Vec<&str> = ev.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names.first(), Some(&"start"));
    assert_eq!(names.iter().filter(|n| **n == "move").count(), 7);
    assert_eq!(names.last(), Some(&"done"));
    assert_eq!(ev[0].1["plies"], 7);
    assert_each_refused(
        [
            (
                json!({ "pgn": "1. e4 e5 2. Ke3" }),
                "half-move 3 cannot be read",
            ),
            (json!({ "pgn": "" }), "no game"),
            (json!({ "pgn": "[Event \"x\"]\n\n*" }), "no moves"),
            (json!({ "moves": ["e2e4"], "nodes": 0 }), "nodes must be"),
            (
                json!({ "moves": ["e2e4"], "nodes": 999999999 }),
                "nodes must be",
            ),
            (json!({ "pgn": SCHOLARS, "moves": ["e2e4"] }), "not both"),
            (json!({ "moves": ["e2e5"] }), "move 'e2e5'"),
        ],
        |body| post(addr, "/api/review", body),
    );
    assert_each_refused([("{\"pgn\": ", "bad request body")], |body| {
        post_text(addr, "/api/review", body)
    });
}

#[test]
fn a_tournament_streams_its_games_and_its_crosstable() {
    let addr = server();
    let body = json!({
        "rungs": ["greedy", "random"], "games": 4, "nodes": 500, "openings": "builtin", "max_plies": 60,
    });
    let (status, ev) = events(addr, "/api/tournament", &body);
    assert_eq!(status, 200);
    let games: Vec<&Value> = ev
        .iter()
        .filter(|(n, _)| n == "game")
        .map(|(_, v)| v)
        .collect();
    assert_eq!(games.len(), 4);
    assert_eq!(ev.first().unwrap().0, "start");
    assert_eq!(ev.first().unwrap().1["games_total"], 4);
    let (name, done) = ev.last().unwrap();
    assert_eq!(name, "done");
    assert_eq!(done["played"], 4);
    assert!(done["stopped"].is_null());
    let rungs = done["standings"]["rungs"].as_array().unwrap();
    assert_eq!(rungs[0]["name"], "random", "ladder order");
    assert_eq!(rungs[1]["below"]["rung"], "random");
    let cross = &done["standings"]["crosstable"];
    assert!(cross[0][0].is_null());
    assert_eq!(cross[0][1]["games"], 4);
    assert_eq!(cross[0][1]["wins"], cross[1][0]["losses"]);
    // Colours alternate, two games on each opening.
    let colours: Vec<(&str, &str)> = games
        .iter()
        .map(|g| {
            (
                g["game"]["white"].as_str().unwrap(),
                g["game"]["black"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(colours[0], (colours[1].1, colours[1].0));
    assert_eq!(games[0]["game"]["opening"], games[1]["game"]["opening"]);
    let pgn = done["pgn"].as_str().unwrap();
    assert_eq!(pgn.matches("[Event \"Rookery Lab tournament\"]").count(), 4);
    assert!(done["games_per_second"].as_f64().unwrap() > 0.0);
    // The same as one JSON answer.
    let v = assert_ok(post(
        addr,
        "/api/tournament",
        &json!({ "rungs": ["random", "greedy"], "games": 1, "openings": "start" }),
    ));
    assert_eq!(v["played"], 1);
    let v = assert_ok(post(
        addr,
        "/api/tournament",
        &json!({ "rungs": ["random", "greedy"], "games": 1, "openings": [{ "fen": MIDDLEGAME }] }),
    ));
    assert_eq!(v["games"][0]["start_fen"], MIDDLEGAME);
    assert_each_refused(
        [
            (json!({ "rungs": ["random"] }), "two rungs"),
            (
                json!({ "rungs": ["random", "deep-thought"] }),
                "unknown engine",
            ),
            (
                json!({ "rungs": ["random", "greedy"], "games": 0 }),
                "games (per pairing)",
            ),
            (
                json!({ "rungs": ["random", "greedy"], "depth": 9 }),
                "tournament depth",
            ),
            (
                json!({ "rungs": ["random", "greedy"], "movetime": 60000 }),
                "tournament movetime",
            ),
            (
                json!({ "rungs": ["random", "greedy"], "openings": "eco" }),
                "unknown openings",
            ),
            (
                json!({ "rungs": ["random", "greedy"], "openings": [{ "fen": "x" }] }),
                "opening 1",
            ),
            (
                json!({ "rungs": ["random", "greedy"], "max_plies": 5 }),
                "max_plies",
            ),
            (json!({ "games": 2 }), "bad request body"),
        ],
        |body| post(addr, "/api/tournament", body),
    );
    let (status, _, text) = http(addr, "GET", "/api/tournament/reference", "", "");
    assert_eq!(status, 200);
    let r: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(r["rows"].as_array().unwrap().len(), 12);
    assert_eq!(
        r["rows"][3]["text"].as_str().unwrap().chars().next(),
        Some('>')
    );
}

/// Opens an event-stream request and reads its status line, leaving the connection open.
fn open(addr: SocketAddr, method: &str, path: &str, body: &str) -> TcpStream {
    let headers = "Accept: text/event-stream\r\nContent-Type: application/json\r\n";
    let (s, status) = common::http::open(addr, method, path, headers, body);
    assert_eq!(status, 200);
    s
}

#[test]
fn a_tournament_holds_one_search_slot_and_stops_when_its_page_goes_away() {
    let addr = server();
    let long =
        json!({ "rungs": ["tt", "quiescence"], "games": 100, "nodes": 20000, "movetime": 1000 });
    let tournament = open(addr, "POST", "/api/tournament", &long.to_string());
    // One slot is left: a search runs beside the tournament.
    let quick = json!({ "engine": "alphabeta", "depth": 1 });
    assert_ok(post(addr, "/api/analyse", &quick));
    // Taking the other one, nothing more fits.
    let search = open(addr, "GET", "/api/search?engine=rookery&movetime=20000", "");
    let (status, v) = post(addr, "/api/analyse", &quick);
    assert_eq!(status, 503, "{v}");
    // Both pages go away: their work stops and the slots come back long before it would end.
    drop(tournament);
    drop(search);
    let start = Instant::now();
    let (status, _) = post(addr, "/api/analyse", &quick);
    assert_eq!(status, 200);
    let (status, _) = post(addr, "/api/steps", &json!({}));
    assert_eq!(status, 200);
    assert!(
        start.elapsed() < Duration::from_secs(4),
        "{:?}",
        start.elapsed()
    );
}

/// A small training on the repository's smallest data set.
fn small_training(epochs: u32) -> Value {
    json!({ "set": "gen6-b", "positions": 20000, "hidden": 8, "epochs": epochs, "threads": 1 })
}

/// GET `path` as JSON.
fn get(addr: SocketAddr, path: &str) -> (u16, Value) {
    let (status, _, text) = http(addr, "GET", path, "", "");
    (status, serde_json::from_str(&text).unwrap_or(Value::Null))
}

/// Waits up to ten seconds for the server to say a training runs (`busy`) or none does.
fn wait_until_training(addr: SocketAddr, busy: bool, what: &str) {
    let start = Instant::now();
    while assert_ok(get(addr, "/api/train/sets"))["busy"] != busy {
        assert!(start.elapsed() < Duration::from_secs(10), "{what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn a_net_trains_live_is_kept_and_plays_in_the_tournament() {
    let addr = server();
    let sets = assert_ok(get(addr, "/api/train/sets"));
    let listed = sets["sets"].as_array().unwrap();
    assert!(listed.iter().any(|s| s["name"] == "gen6-b"), "{sets}");
    assert_eq!(sets["bounds"]["buckets"], json!([1, 2, 4, 8]));
    assert_eq!(sets["bounds"]["layers"]["l1"], json!([8, 16, 24, 32]));
    assert!(
        sets["bounds"]["inputs"]
            .as_array()
            .is_some_and(|v| v.contains(&json!("mirror"))),
        "{sets}"
    );
    assert_eq!(sets["busy"], false);
    let (status, ev) = events(addr, "/api/train", &small_training(3));
    assert_eq!(status, 200);
    let names: Vec<&str> = ev.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names.first(), Some(&"start"));
    assert_eq!(names.last(), Some(&"done"));
    assert!(names.contains(&"progress"), "{names:?}");
    let start = &ev[0].1;
    assert!(start["train"].as_u64().unwrap() > 15_000, "{start}");
    assert!(start["hce"]["Q"]["d4"].as_i64().unwrap() > start["hce"]["P"]["d4"].as_i64().unwrap());
    let epochs: Vec<&Value> = ev
        .iter()
        .filter(|(n, _)| n == "epoch")
        .map(|(_, v)| v)
        .collect();
    assert_eq!(epochs.len(), 3);
    let initial = start["initial_loss"].as_f64().unwrap();
    let last = epochs[2]["validation_loss"].as_f64().unwrap();
    assert!(last < initial, "the loss fell: {initial} -> {last}");
    // The net's piece values change as it learns.
    assert_ne!(epochs[0]["net"], epochs[2]["net"]);
    assert_eq!(epochs[2]["net"]["N"].as_object().unwrap().len(), 56);
    let done = &ev.last().unwrap().1;
    assert_eq!(done["name"], "trained-1");
    assert!(done["halted"].is_null());
    assert_eq!(done["history"].as_array().unwrap().len(), 3);
    // Kept: listed, given as a net file, played.
    let nets = assert_ok(get(addr, "/api/train/nets"));
    assert_eq!(nets["nets"][0]["name"], "trained-1");
    assert_eq!(nets["nets"][0]["hidden"], 8);
    let r = common::http::request(
        addr,
        "GET",
        "/api/train/net/trained-1",
        "",
        b"",
        Duration::from_secs(10),
    );
    assert_eq!(r.status, 200);
    assert!(r.head.contains("trained-1.nnue"), "{}", r.head);
    // A deep head, as `rookery train --layers` trains it: kept and named as the next net.
    let deep = json!({ "set": "gen6-b", "positions": 20000, "hidden": 16, "layers": [8, 4], "buckets": 4, "inputs": "mirror", "epochs": 1, "threads": 1 });
    let paired = json!({ "set": "gen6-b", "positions": 20000, "hidden": 16, "layers": [8, 4], "paired": true, "epochs": 1, "threads": 1 });
    let (status, ev) = events(addr, "/api/train", &deep);
    assert_eq!(status, 200);
    let done = &ev.last().unwrap().1;
    assert_eq!(done["name"], "trained-2", "{done}");
    let arch = done["about"]["architecture"].as_str().unwrap();
    assert!(arch.contains("x 2 -> 8 -> 4 -> 1 x 4 buckets"), "{arch}");
    assert!(arch.contains("inputs mirror"), "{arch}");
    // Pairs' products, as `--paired` trains them.
    let (status, ev) = events(addr, "/api/train", &paired);
    assert_eq!(status, 200);
    let done = &ev.last().unwrap().1;
    assert_eq!(done["name"], "trained-3", "{done}");
    let arch = done["about"]["architecture"].as_str().unwrap();
    assert!(arch.contains("x 2 -> 16 paired -> 8 -> 4 -> 1"), "{arch}");
    let (status, missing) = get(addr, "/api/train/net/trained-4");
    assert_eq!(status, 404, "{missing}");
    let game = json!({ "rungs": ["trained-1", "greedy"], "games": 2, "nodes": 300, "max_plies": 40, "openings": "builtin" });
    let v = assert_ok(post(addr, "/api/tournament", &game));
    assert_eq!(v["played"], 2);
    assert_eq!(
        v["standings"]["rungs"][1]["name"], "trained-1",
        "trained nets after the ladder"
    );
    let analysed = assert_ok(post(
        addr,
        "/api/analyse",
        &json!({ "engine": "trained-1", "nodes": 2000 }),
    ));
    assert!(
        analysed["best"].as_str().is_some_and(|m| m.len() >= 4),
        "{analysed}"
    );
    // A net not trained yet is refused by name.
    let (status, v) = post(
        addr,
        "/api/tournament",
        &json!({ "rungs": ["trained-4", "greedy"] }),
    );
    assert_eq!(status, 400);
    assert!(v["error"].as_str().unwrap().contains("trained-4"), "{v}");
}

#[test]
fn bad_trainings_are_refused_and_one_runs_at_a_time_stopped_by_its_page() {
    let addr = server();
    assert_each_refused(
        [
            (json!({ "set": "../selfplay/gen6-b" }), "not a path"),
            (json!({ "set": "/etc/passwd" }), "not a path"),
            (json!({ "set": "no-such-set" }), "unknown data set"),
            (json!({ "set": "gen6-b", "hidden": 0 }), "hidden must be"),
            (json!({ "set": "gen6-b", "epochs": 1000 }), "epochs must be"),
            (
                json!({ "set": "gen6-b", "positions": 5 }),
                "positions must be",
            ),
            (json!({ "set": "gen6-b", "lr": -1.0 }), "lr must be"),
            (
                json!({ "set": "gen6-b", "threads": 10000 }),
                "threads must be",
            ),
            (json!({ "set": "gen6-b", "color": "blue" }), "unknown field"),
            (
                json!({ "set": "gen6-b", "hidden": 12, "layers": [8, 8] }),
                "multiple of 8",
            ),
            (json!({ "set": "gen6-b", "layers": [12, 8] }), "layers 12,8"),
            (
                json!({ "set": "gen6-b", "paired": true }),
                "paired needs a deep head",
            ),
            (
                json!({ "set": "gen6-b", "buckets": 3 }),
                "buckets must be 1, 2, 4 or 8",
            ),
            (
                json!({ "set": "gen6-b", "inputs": "sideways" }),
                "inputs must be one of",
            ),
        ],
        |body| post(addr, "/api/train", body),
    );
    // A long training runs; a second one is refused with 409 while the other views answer.
    let long =
        json!({ "set": "gen6-b", "positions": 200000, "hidden": 64, "epochs": 50, "threads": 1 });
    let training = open(addr, "POST", "/api/train", &long.to_string());
    wait_until_training(addr, true, "the training did not start");
    let (status, v) = post(addr, "/api/train", &small_training(1));
    assert_eq!(status, 409, "{v}");
    assert!(
        v["error"]
            .as_str()
            .unwrap()
            .contains("one training at a time"),
        "{v}"
    );
    let quick = Instant::now();
    assert_ok(post(
        addr,
        "/api/analyse",
        &json!({ "engine": "alphabeta", "depth": 2 }),
    ));
    assert_ok(post(addr, "/api/steps", &json!({})));
    assert!(
        quick.elapsed() < Duration::from_secs(5),
        "{:?}",
        quick.elapsed()
    );
    // The page goes away: the training stops, and another may start.
    drop(training);
    wait_until_training(addr, false, "the training went on without its page");
    // The stop request ends one too; a net stopped after an epoch is kept.
    let training = open(addr, "POST", "/api/train", &long.to_string());
    wait_until_training(addr, true, "the second training did not start");
    assert_eq!(
        assert_ok(post(addr, "/api/train/stop", &json!({})))["stopped"],
        true
    );
    let mut text = String::new();
    let mut training = training;
    let _ = std::io::Read::read_to_string(&mut training, &mut text);
    assert!(
        text.contains("event: done") || text.contains("event:done"),
        "{text}"
    );
    assert!(text.contains("stopped"), "{text}");
    assert_eq!(assert_ok(get(addr, "/api/train/sets"))["busy"], false);
    assert_eq!(
        assert_ok(post(addr, "/api/train/stop", &json!({})))["stopped"],
        false
    );
}
