//! What the Lab's JSON API answers, apart from HTTP: requests are parsed into these types, checked,
//! and answered with JSON values. Every limit a request can reach is bounded here; every mistake
//! is an `ApiError` with the status and a sentence for the user.

use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use serde::Deserialize;
use serde_json::{Value, json};
use shakmaty::{CastlingMode, Chess, Color, Move, Position};

use crate::core::game::san;
use crate::core::score::mate_moves;
use crate::core::{Game, Limits};
use crate::driver::{Outcome, rules_end};
use crate::engine::{Analysis, Engine, EngineOptions, Settings};
use crate::error::Error;
use crate::registry;
use crate::tree::{Tree, TreeEngine, TreeNode};

/// The longest any one search may run.
pub const MAX_MOVETIME: Duration = Duration::from_secs(30);
/// The most positions any one search may visit.
pub const MAX_NODES: u64 = 100_000_000;
/// The deepest search a request may ask for.
pub const MAX_DEPTH: u32 = 64;
/// The deepest tree a request may ask for, and the most nodes (pruned moves included) it may have.
pub const MAX_TREE_DEPTH: u32 = 6;
pub const MAX_TREE_NODES: usize = 500_000;
/// Half-moves a request may replay from its FEN.
pub const MAX_MOVES: usize = 1_000;

/// A request the server refuses: HTTP status and what was wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiError {
    pub status: u16,
    pub message: String,
}

impl ApiError {
    pub fn bad(message: impl Into<String>) -> ApiError {
        ApiError {
            status: 400,
            message: message.into(),
        }
    }

    pub fn busy(running: usize) -> ApiError {
        ApiError {
            status: 503,
            message: format!(
                "the server is busy: {running} searches are running, the most it allows at once; try again in a moment"
            ),
        }
    }

    pub fn json(&self) -> Value {
        json!({ "error": self.message })
    }
}

impl From<Error> for ApiError {
    fn from(e: Error) -> ApiError {
        ApiError::bad(e.to_string())
    }
}

pub type ApiResult = Result<Value, ApiError>;

/// Parses a JSON body into `T`, with the reason in words when it does not fit.
pub fn parse_body<T: for<'de> Deserialize<'de>>(body: &[u8]) -> Result<T, ApiError> {
    let body = if body.iter().all(u8::is_ascii_whitespace) {
        b"{}".as_slice()
    } else {
        body
    };
    serde_json::from_slice(body).map_err(|e| ApiError::bad(format!("bad request body: {e}")))
}

/// A position: a FEN (the initial position when absent) and UCI moves played from it.
#[derive(Deserialize, Debug, Default, Clone)]
#[serde(deny_unknown_fields)]
pub struct At {
    #[serde(default)]
    pub fen: Option<String>,
    #[serde(default)]
    pub moves: Vec<String>,
}

impl At {
    pub fn game(&self) -> Result<Game, ApiError> {
        if self.moves.len() > MAX_MOVES {
            return Err(ApiError::bad(format!(
                "at most {MAX_MOVES} moves may be replayed, got {}",
                self.moves.len()
            )));
        }
        let fen = self.fen.as_deref().map(str::trim).filter(|f| !f.is_empty());
        let mut game = Game::from_optional_fen(fen)?;
        for m in &self.moves {
            game.play_text(m)?;
        }
        Ok(game)
    }
}

fn uci_standard(m: Move) -> String {
    m.to_uci(CastlingMode::Standard).to_string()
}

fn side(c: Color) -> &'static str {
    match c {
        Color::White => "white",
        Color::Black => "black",
    }
}

/// The position of `game` as the page draws it: FEN, side to move, legal moves (UCI, SAN, from
/// and to squares; castling as the king's move), the moves so far in SAN, check, the game's end,
/// and the PGN.
pub fn position_json(game: &Game) -> Value {
    let pos = game.position();
    let legal: Vec<Value> = pos
        .legal_moves()
        .iter()
        .map(|&m| {
            let u = uci_standard(m);
            json!({
                "uci": u,
                "san": san(pos, m),
                "from": &u[0..2],
                "to": &u[2..4],
                "promotion": m.promotion().map(|r| r.char().to_string()),
            })
        })
        .collect();
    let mut replay = game.start().clone();
    let mut sans = Vec::with_capacity(game.moves().len());
    for &m in game.moves() {
        sans.push(san(&replay, m));
        replay.play_unchecked(m);
    }
    let end = rules_end(game);
    let result = end.as_ref().map_or(Outcome::Unfinished, |e| e.outcome);
    let pgn = crate::core::pgn::write(
        game,
        &[
            ("Event", "Rookery Lab".to_string()),
            ("Site", "Rookery Lab".to_string()),
            ("Date", crate::core::pgn::today()),
            ("Round", "-".to_string()),
            ("White", "?".to_string()),
            ("Black", "?".to_string()),
        ],
        result.pgn(),
        end.as_ref().map(|e| e.reason.as_str()),
    );
    json!({
        "fen": game.fen(),
        "start_fen": crate::core::game::fen_of(game.start()),
        "moves": game.moves().iter().map(|&m| uci_standard(m)).collect::<Vec<_>>(),
        "san": sans,
        "turn": side(pos.turn()),
        "check": pos.is_check(),
        "legal": legal,
        "over": end.map(|e| json!({ "result": e.outcome.pgn(), "reason": e.reason })),
        "pgn": pgn,
    })
}

/// `POST /api/play`: the position after `move` (UCI or SAN).
#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
pub struct PlayRequest {
    #[serde(default)]
    pub fen: Option<String>,
    #[serde(default)]
    pub moves: Vec<String>,
    #[serde(rename = "move")]
    pub mv: String,
}

pub fn play(req: &PlayRequest) -> ApiResult {
    let mut game = At {
        fen: req.fen.clone(),
        moves: req.moves.clone(),
    }
    .game()?;
    if let Some(end) = rules_end(&game) {
        return Err(ApiError::bad(format!("the game is over: {}", end.reason)));
    }
    game.play_text(&req.mv)?;
    Ok(position_json(&game))
}

/// Which engine and how long, as a search request gives them.
#[derive(Deserialize, Debug, Default, Clone)]
#[serde(deny_unknown_fields)]
pub struct SearchRequest {
    #[serde(default)]
    pub fen: Option<String>,
    #[serde(default)]
    pub moves: Vec<String>,
    #[serde(default = "default_engine")]
    pub engine: String,
    #[serde(default)]
    pub depth: Option<u32>,
    /// Milliseconds.
    #[serde(default)]
    pub movetime: Option<u64>,
    #[serde(default)]
    pub nodes: Option<u64>,
    /// Play at about this Elo (the strong engine only).
    #[serde(default)]
    pub elo: Option<u32>,
}

fn default_engine() -> String {
    "rookery".into()
}

impl SearchRequest {
    /// Reads a request from a query string's pairs (`GET /api/search?...`); moves are separated
    /// by spaces or commas.
    pub fn from_query(pairs: &[(String, String)]) -> Result<SearchRequest, ApiError> {
        let mut req = SearchRequest {
            engine: default_engine(),
            ..SearchRequest::default()
        };
        fn number<T: std::str::FromStr>(key: &str, v: &str) -> Result<T, ApiError> {
            v.trim()
                .parse()
                .map_err(|_| ApiError::bad(format!("{key} must be a whole number, got '{v}'")))
        }
        for (k, v) in pairs {
            match k.as_str() {
                "fen" => req.fen = Some(v.clone()),
                "moves" => {
                    req.moves = v
                        .split([' ', ','])
                        .filter(|s| !s.is_empty())
                        .map(str::to_string)
                        .collect()
                }
                "engine" => req.engine = v.clone(),
                "depth" if !v.is_empty() => req.depth = Some(number(k, v)?),
                "movetime" if !v.is_empty() => req.movetime = Some(number(k, v)?),
                "nodes" if !v.is_empty() => req.nodes = Some(number(k, v)?),
                "elo" if !v.is_empty() => req.elo = Some(number(k, v)?),
                "depth" | "movetime" | "nodes" | "elo" => {}
                _ => return Err(ApiError::bad(format!("unknown parameter '{k}'"))),
            }
        }
        Ok(req)
    }

    pub fn game(&self) -> Result<Game, ApiError> {
        At {
            fen: self.fen.clone(),
            moves: self.moves.clone(),
        }
        .game()
    }

    /// Checks the limits and the engine's name; the engine is made by `Lab::engine`.
    pub fn check(&self) -> Result<(), ApiError> {
        if !registry::is_known(&self.engine) {
            return Err(registry::unknown(&self.engine).into());
        }
        if let Some(d) = self.depth
            && !(1..=MAX_DEPTH).contains(&d)
        {
            return Err(ApiError::bad(format!(
                "depth must be 1 to {MAX_DEPTH}, got {d}"
            )));
        }
        if let Some(t) = self.movetime
            && (t == 0 || t > MAX_MOVETIME.as_millis() as u64)
        {
            return Err(ApiError::bad(format!(
                "movetime must be 1 to {} ms, got {t}",
                MAX_MOVETIME.as_millis()
            )));
        }
        if let Some(n) = self.nodes
            && (n == 0 || n > MAX_NODES)
        {
            return Err(ApiError::bad(format!(
                "nodes must be 1 to {MAX_NODES}, got {n}"
            )));
        }
        if let Some(e) = self.elo
            && !(1000..=3000).contains(&e)
        {
            return Err(ApiError::bad(format!("elo must be 1000 to 3000, got {e}")));
        }
        Ok(())
    }

    /// The limits: those asked for, or the engine's own; never past the server's bounds.
    pub fn limits(&self, engine: &dyn Engine, stop: Arc<AtomicBool>) -> Limits {
        let mut limits = if self.depth.is_none() && self.movetime.is_none() && self.nodes.is_none()
        {
            engine.default_limits()
        } else {
            Limits {
                depth: self.depth,
                movetime: self.movetime.map(Duration::from_millis),
                nodes: self.nodes,
                ..Limits::default()
            }
        };
        limits.movetime = Some(limits.movetime.unwrap_or(MAX_MOVETIME).min(MAX_MOVETIME));
        limits.nodes = Some(limits.nodes.unwrap_or(MAX_NODES).min(MAX_NODES));
        limits.stop = Some(stop);
        limits
    }
}

/// Engines as the server makes them: the book and tables the command line gave.
#[derive(Clone, Default)]
pub struct Makers {
    pub options: EngineOptions,
    pub settings: Settings,
}

impl Makers {
    pub fn engine(&self, name: &str, elo: Option<u32>) -> Result<Box<dyn Engine>, ApiError> {
        let mut e = registry::create(name, &self.options)?;
        e.configure(&Settings {
            limit_elo: elo,
            ..self.settings.clone()
        })?;
        Ok(e)
    }
}

/// One iteration (or the final analysis) as the page shows it.
pub fn analysis_json(pos: &Chess, a: &Analysis) -> Value {
    let secs = a.elapsed.as_secs_f64();
    let mut line = pos.clone();
    let mut pv_san = Vec::new();
    for &m in &a.pv {
        if !line.is_legal(m) {
            break;
        }
        pv_san.push(san(&line, m));
        line.play_unchecked(m);
    }
    json!({
        "best": a.best.map(uci_standard),
        "best_san": a.best.filter(|&m| pos.is_legal(m)).map(|m| san(pos, m)),
        "score": a.score,
        "mate": a.score.and_then(mate_moves),
        "depth": a.depth,
        "seldepth": a.seldepth,
        "nodes": a.nodes,
        "time_ms": (secs * 1000.0).round() as u64,
        "nps": if secs > 0.0 { (a.nodes as f64 / secs) as u64 } else { 0 },
        "pv": a.pv.iter().map(|&m| uci_standard(m)).collect::<Vec<_>>(),
        "pv_san": pv_san,
        "from_book": a.from_book,
        "moves": a.moves.iter().take(64).map(|s| json!({
            "uci": uci_standard(s.mv),
            "san": if pos.is_legal(s.mv) { san(pos, s.mv) } else { String::new() },
            "score": s.score,
        })).collect::<Vec<_>>(),
    })
}

/// `POST /api/eval`: the hand-crafted evaluation term by term, and the built-in net's score
/// beside it (a net has no terms to show).
pub fn eval(at: &At) -> ApiResult {
    use crate::eval::hce::{Parts, evaluate_board};
    let game = at.game()?;
    let pos = game.position();
    let mut parts = Parts::default();
    let v = evaluate_board(pos.board(), pos.turn(), &mut parts);
    let white_view = |v: i32| if pos.turn() == Color::White { v } else { -v };
    let net = crate::nnue::Network::default_net();
    let nv = net.evaluate_board(pos.board(), pos.turn());
    Ok(json!({
        "fen": game.fen(),
        "value": v,
        "white": white_view(v),
        "terms": parts.0.iter().map(|(n, s)| json!({ "name": n, "mg": s.0, "eg": s.1 })).collect::<Vec<_>>(),
        "net": { "value": nv, "white": white_view(nv), "architecture": net.architecture() },
    }))
}

/// `POST /api/tree`.
#[derive(Deserialize, Debug, Clone)]
#[serde(deny_unknown_fields)]
pub struct TreeRequest {
    #[serde(default)]
    pub fen: Option<String>,
    #[serde(default)]
    pub moves: Vec<String>,
    pub engine: String,
    pub depth: u32,
    /// The node to expand (0, the root, when absent).
    #[serde(default)]
    pub node: Option<usize>,
}

impl TreeRequest {
    /// The game and the tree engine, checked; and the key the recorded tree is cached under.
    pub fn check(&self) -> Result<(Game, TreeEngine, String), ApiError> {
        let engine = TreeEngine::parse(&self.engine)?;
        if !(1..=MAX_TREE_DEPTH).contains(&self.depth) {
            return Err(ApiError::bad(format!(
                "tree depth must be 1 to {MAX_TREE_DEPTH}, got {}",
                self.depth
            )));
        }
        let game = At {
            fen: self.fen.clone(),
            moves: self.moves.clone(),
        }
        .game()?;
        let key = format!(
            "{}|{}|{}|{}",
            engine.name(),
            self.depth,
            crate::core::game::fen_of(game.start()),
            game.moves()
                .iter()
                .map(|&m| uci_standard(m))
                .collect::<Vec<_>>()
                .join(" ")
        );
        Ok((game, engine, key))
    }
}

fn node_json(n: &TreeNode, id: usize) -> Value {
    json!({
        "id": id,
        "san": n.label,
        "uci": n.mv.map(uci_standard),
        "ply": n.ply,
        "value": n.value,
        "alpha": n.window.map(|w| w.0),
        "beta": n.window.map(|w| w.1),
        "pruned": n.pruned,
        "children": n.children.len(),
    })
}

/// One node of a recorded tree with its children (each with its own child count), and the tree's
/// totals.
pub fn tree_json(tree: &Tree, node: usize) -> ApiResult {
    let n = tree.nodes.get(node).ok_or_else(|| {
        ApiError::bad(format!(
            "no node {node}: the tree has nodes 0 to {}",
            tree.nodes.len().saturating_sub(1)
        ))
    })?;
    let mut path = Vec::new();
    let mut at = Some(node);
    while let Some(i) = at {
        path.push(i);
        at = tree.nodes[i].parent;
    }
    path.reverse();
    Ok(json!({
        "engine": tree.engine.name(),
        "depth": tree.depth,
        "fen": tree.fen,
        "positions": tree.size.positions(),
        "pruned": tree.size.pruned,
        "per_depth": tree.size.per_ply,
        "best": tree.analysis.best.map(uci_standard),
        "score": tree.analysis.score,
        "path": path.iter().map(|&i| json!({ "id": i, "san": tree.nodes[i].label })).collect::<Vec<_>>(),
        "node": node_json(n, node),
        "children": n.children.iter().map(|&c| node_json(&tree.nodes[c], c)).collect::<Vec<_>>(),
    }))
}

/// `POST /api/ladder`: every rung on one position.
#[derive(Deserialize, Debug, Clone, Default)]
#[serde(deny_unknown_fields)]
pub struct LadderRequest {
    #[serde(default)]
    pub fen: Option<String>,
    #[serde(default)]
    pub moves: Vec<String>,
    /// Depth of the fixed-depth rungs (minimax at most 4).
    #[serde(default)]
    pub depth: Option<u32>,
    /// Milliseconds for the iterative rungs.
    #[serde(default)]
    pub movetime: Option<u64>,
}

/// The rungs that search to a fixed depth (or not at all); the others deepen until their time
/// is up.
pub fn fixed_depth(name: &str) -> bool {
    !registry::deepens(name)
}

impl LadderRequest {
    pub fn check(&self) -> Result<(Game, u32, Duration), ApiError> {
        let depth = self.depth.unwrap_or(3);
        if !(1..=6).contains(&depth) {
            return Err(ApiError::bad(format!(
                "ladder depth must be 1 to 6, got {depth}"
            )));
        }
        let ms = self.movetime.unwrap_or(200);
        if !(1..=2_000).contains(&ms) {
            return Err(ApiError::bad(format!(
                "ladder movetime must be 1 to 2000 ms, got {ms}"
            )));
        }
        let game = At {
            fen: self.fen.clone(),
            moves: self.moves.clone(),
        }
        .game()?;
        if rules_end(&game).is_some() {
            return Err(ApiError::bad("the game is over in this position"));
        }
        Ok((game, depth, Duration::from_millis(ms)))
    }
}

/// Runs every rung on `game` (fixed-depth rungs to `depth`, minimax to at most 4; the others for
/// `movetime`), stopping early when `stop` is raised.
pub fn ladder(
    makers: &Makers,
    game: &Game,
    depth: u32,
    movetime: Duration,
    stop: &Arc<AtomicBool>,
) -> ApiResult {
    let pos = game.position();
    let mut rows = Vec::new();
    for info in registry::ENGINES {
        let mut engine = makers.engine(info.name, None)?;
        let mut limits = if fixed_depth(info.name) {
            let d = if info.name == "minimax" {
                depth.min(4)
            } else {
                depth
            };
            Limits {
                depth: Some(d),
                movetime: Some(Duration::from_secs(10)),
                ..Limits::default()
            }
        } else {
            Limits {
                movetime: Some(movetime),
                ..Limits::default()
            }
        };
        limits.stop = Some(stop.clone());
        let a = engine.analyse(game, &limits);
        let mut row = analysis_json(pos, &a);
        row["name"] = json!(info.name);
        row["idea"] = json!(info.idea);
        row["limit"] = json!(match info.name {
            "random" | "book" => "no search".to_string(),
            "greedy" | "greedy-incremental" => "one ply".to_string(),
            _ if fixed_depth(info.name) => format!("depth {}", limits.depth.unwrap_or(depth)),
            _ => format!("{} ms", movetime.as_millis()),
        });
        if let Some(obj) = row.as_object_mut() {
            obj.remove("moves");
        }
        rows.push(row);
    }
    Ok(json!({ "fen": game.fen(), "rungs": rows }))
}

/// `GET /api/engines`.
pub fn engines() -> Value {
    json!({
        "engines": registry::ENGINES.iter().map(|e| json!({
            "name": e.name,
            "idea": e.idea,
            "tree": TreeEngine::parse(e.name).is_ok(),
            "fixed_depth": fixed_depth(e.name),
        })).collect::<Vec<_>>(),
        "limits": {
            "max_depth": MAX_DEPTH,
            "max_movetime_ms": MAX_MOVETIME.as_millis() as u64,
            "max_nodes": MAX_NODES,
            "max_tree_depth": MAX_TREE_DEPTH,
            "max_tree_nodes": MAX_TREE_NODES,
        },
        "version": env!("CARGO_PKG_VERSION"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_list_legal_moves_with_castling_as_the_king_move() {
        let at = At {
            fen: Some("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1".into()),
            moves: vec![],
        };
        let v = position_json(&at.game().unwrap());
        let legal = v["legal"].as_array().unwrap();
        assert!(
            legal
                .iter()
                .any(|m| m["uci"] == "e1g1" && m["san"] == "O-O" && m["to"] == "g1")
        );
        assert_eq!(v["turn"], "white");
        assert!(v["over"].is_null());
    }

    #[test]
    fn bad_requests_say_what_is_wrong() {
        let e = At {
            fen: Some("nonsense".into()),
            moves: vec![],
        }
        .game()
        .unwrap_err();
        assert_eq!(e.status, 400);
        assert!(e.message.contains("invalid FEN"));
        let req = SearchRequest {
            engine: "deep-thought".into(),
            ..SearchRequest::default()
        };
        assert!(req.check().unwrap_err().message.contains("unknown engine"));
        let q = vec![("depth".to_string(), "x".to_string())];
        assert!(
            SearchRequest::from_query(&q)
                .unwrap_err()
                .message
                .contains("depth")
        );
        assert!(parse_body::<At>(b"{\"fen\": 3}").is_err());
        assert!(parse_body::<At>(b"{\"colour\": 1}").is_err());
        assert!(parse_body::<At>(b"").is_ok());
    }
}
