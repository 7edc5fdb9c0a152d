//! What the Lab's board answers, apart from HTTP: a position (`At`) and the requests that name
//! one, parsed into these types, checked, and answered with JSON values: the position as the page
//! draws it, a move played, a search's analysis, the engine list. The bounds of a search are here;
//! every mistake is an `ApiError` (`reply.rs`) with the status and a sentence for the user.
//!
//! Every request that names a position takes it as `At` does (`fen`, `moves`) and is declared
//! with `position_request!`, so the two fields and their replay are written once.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use serde::Deserialize;
use serde_json::{Value, json};
use shakmaty::{CastlingMode, Chess, Color, Move, Position};

use super::kept::{TrainedNets, is_trained_name};
use super::reply::{ApiError, ApiResult, bounded};
use crate::core::game::san;
use crate::core::score::mate_moves;
use crate::core::{Game, Limits};
use crate::driver::{Outcome, rules_end};
use crate::engine::{Analysis, Engine, EngineOptions, Evaluation, Settings};
use crate::registry;
use crate::tree::TreeEngine;

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
        replay(self.fen.as_deref(), &self.moves)
    }
}

/// The game a request's `fen` (the initial position when absent or blank) and `moves` (UCI or
/// SAN, at most `MAX_MOVES`) name.
pub fn replay(fen: Option<&str>, moves: &[String]) -> Result<Game, ApiError> {
    if moves.len() > MAX_MOVES {
        return Err(ApiError::bad(format!(
            "at most {MAX_MOVES} moves may be replayed, got {}",
            moves.len()
        )));
    }
    let fen = fen.map(str::trim).filter(|f| !f.is_empty());
    let mut game = Game::from_optional_fen(fen)?;
    for m in moves {
        game.play_text(m)?;
    }
    Ok(game)
}

/// Declares a request body that names a position as `At` does: the struct with its own fields
/// before `fen` and `moves` (the first braces) and after them (the second), unknown fields
/// refused, and `game()`, the position replayed.
macro_rules! position_request {
    ($(#[$meta:meta])* $name:ident { $($before:tt)* } { $($after:tt)* }) => {
        #[derive(serde::Deserialize, Debug, Clone, Default)]
        $(#[$meta])*
        #[serde(deny_unknown_fields)]
        pub struct $name {
            $($before)*
            #[serde(default)]
            pub fen: Option<String>,
            #[serde(default)]
            pub moves: Vec<String>,
            $($after)*
        }

        impl $name {
            /// The position the request names.
            pub fn game(&self) -> Result<$crate::core::Game, $crate::lab::reply::ApiError> {
                $crate::lab::api::replay(self.fen.as_deref(), &self.moves)
            }
        }
    };
}
pub(crate) use position_request;

pub fn uci_standard(m: Move) -> String {
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

position_request! {
    /// `POST /api/play`: the position after `move` (UCI or SAN).
    PlayRequest {} {
        #[serde(rename = "move")]
        pub mv: String,
    }
}

pub fn play(req: &PlayRequest) -> ApiResult {
    let mut game = req.game()?;
    if let Some(end) = rules_end(&game) {
        return Err(ApiError::bad(format!("the game is over: {}", end.reason)));
    }
    game.play_text(&req.mv)?;
    Ok(position_json(&game))
}

position_request! {
    /// Which engine and how long, as a search request gives them.
    #[serde(default)]
    SearchRequest {} {
        #[serde(default = "default_engine")]
        pub engine: String,
        pub depth: Option<u32>,
        /// Milliseconds.
        pub movetime: Option<u64>,
        pub nodes: Option<u64>,
        /// Play at about this Elo (the strong engine only).
        pub elo: Option<u32>,
    }
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

    /// Checks the limits and the engine's name; the engine is made by `Lab::engine`.
    pub fn check(&self) -> Result<(), ApiError> {
        if !is_engine(&self.engine) {
            return Err(registry::unknown(&self.engine).into());
        }
        let max_ms = MAX_MOVETIME.as_millis() as u64;
        self.depth
            .map(|d| bounded("depth", d, 1..=MAX_DEPTH, ""))
            .transpose()?;
        self.movetime
            .map(|t| bounded("movetime", t, 1..=max_ms, " ms"))
            .transpose()?;
        self.nodes
            .map(|n| bounded("nodes", n, 1..=MAX_NODES, ""))
            .transpose()?;
        self.elo
            .map(|e| bounded("elo", e, 1000..=3000, ""))
            .transpose()?;
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

/// Engines as the server makes them: the book and tables the command line gave, and the nets
/// trained in the Lab (`trained-1` ...: `rookery`'s search on that net), with the folder of data
/// sets the Train view offers.
#[derive(Clone)]
pub struct Makers {
    pub options: EngineOptions,
    pub settings: Settings,
    pub trained: Arc<TrainedNets>,
    pub train_data: PathBuf,
}

impl Default for Makers {
    fn default() -> Makers {
        Makers {
            options: EngineOptions::default(),
            settings: Settings::default(),
            trained: Arc::default(),
            train_data: super::kept::default_data_dir(),
        }
    }
}

impl Makers {
    pub fn engine(&self, name: &str, elo: Option<u32>) -> Result<Box<dyn Engine>, ApiError> {
        let mut settings = Settings {
            limit_elo: elo,
            ..self.settings.clone()
        };
        let mut e = if is_trained_name(name) {
            let kept = self.trained.get(name).ok_or_else(|| {
                ApiError::bad(format!(
                    "no net is kept as '{}' yet: train one in the Train view",
                    name.trim()
                ))
            })?;
            settings.eval = Evaluation::Net(kept.net);
            registry::create("rookery", &self.options)?
        } else {
            registry::create(name, &self.options)?
        };
        e.configure(&settings)?;
        Ok(e)
    }
}

/// True for an engine the Lab knows: a rung of the ladder or a trained net's name.
pub fn is_engine(name: &str) -> bool {
    registry::is_known(name) || is_trained_name(name)
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

/// The rungs that search to a fixed depth (or not at all); the others deepen until their time
/// is up.
pub fn fixed_depth(name: &str) -> bool {
    !registry::deepens(name) && !is_trained_name(name)
}

/// Refuses a position where the game is already over.
pub fn game_on(game: &Game) -> Result<(), ApiError> {
    match rules_end(game) {
        Some(_) => Err(ApiError::bad("the game is over in this position")),
        None => Ok(()),
    }
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
    use crate::lab::reply::parse_body;

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
        // A search request without an engine asks the strong one.
        let req = parse_body::<SearchRequest>(b"{\"depth\": 3}").unwrap();
        assert_eq!((req.engine.as_str(), req.depth), ("rookery", Some(3)));
        assert!(parse_body::<SearchRequest>(b"{\"engin\": \"x\"}").is_err());
    }
}
