//! `POST /api/review`: the strong engine annotates every move of a game, streamed as it goes.
//!
//! Each position of the game is searched once (a fixed number of nodes, the same engine and hash
//! table throughout). A move's cost is the drop in the mover's expected score: the best move's
//! score before it against the score after it, each turned into an expected result by the
//! sigmoid fitted to the built-in net's own games, `1 / (1 + exp(-K * cp))` with the K that
//! `rookery data stats` fits to its self-play scores and results. A drop of 0.10 or more is an inaccuracy (`?!`, NAG 6), 0.20 a
//! mistake (`?`, NAG 2), 0.30 a blunder (`??`, NAG 4); the best move is never marked. The whole
//! review comes back as PGN with the NAGs, each move's `[%eval]` and, at a marked move, the better
//! line as a variation, written by `core::pgn` as every game record is. Each judged move is a
//! `MoveRow`, sent as it comes and read back by the summary and the PGN without a JSON detour.

use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use axum::body::Bytes;
use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::Response;
use serde::Serialize;
use serde_json::json;
use shakmaty::{Chess, Color, Move, Position};

use super::api::{Makers, position_request};
use super::events::{self, Emitter};
use super::reply::{ApiError, ApiResult, bounded, error_response, parse_body};
use super::state::Lab;
use crate::core::game::{fen_of, san, uci};
use crate::core::pgn::{Movetext, write_tags};
use crate::core::score::{MATE, format_score, mate_moves};
use crate::core::{Game, Limits};
use crate::driver::rules_end;

/// The sigmoid's scale K: centipawns of the net's search to an expected score, as `rookery data
/// stats` fits it to the nets' self-play (docs/lab.md, "Game review", gives the fit). The
/// hand-crafted evaluation's data fits a larger K: a centipawn of the net is worth less, so the
/// thresholds below are wider in centipawns.
pub const SIGMOID_K: f64 = 0.00565;
/// Drops in expected score that mark a move: inaccuracy, mistake, blunder.
pub const INACCURACY: f64 = 0.10;
pub const MISTAKE: f64 = 0.20;
pub const BLUNDER: f64 = 0.30;
/// Nodes searched per position: the default and the most a request may ask for.
pub const DEFAULT_NODES: u64 = 100_000;
pub const MAX_NODES: u64 = 2_000_000;
/// The longest game reviewed (half-moves), the longest a position may be searched, and the
/// longest a whole review may run.
pub const MAX_PLIES: usize = 400;
pub const MAX_MOVETIME: Duration = Duration::from_secs(2);
pub const MAX_TIME: Duration = Duration::from_secs(300);
/// The largest PGN text accepted.
pub const MAX_PGN_BYTES: usize = 200_000;

position_request! {
    /// `POST /api/review`: a PGN, or a position (`fen`, `moves`) and the game's moves from it.
    #[serde(default)]
    ReviewRequest {
        pub pgn: Option<String>,
    } {
        /// Nodes per position.
        pub nodes: Option<u64>,
    }
}

/// The expected score of a side whose score is `cp` centipawns.
pub fn expected(cp: i32) -> f64 {
    1.0 / (1.0 + (-SIGMOID_K * f64::from(cp)).exp())
}

/// The mark a drop in expected score earns: (word, glyph, NAG).
pub fn judge(drop: f64) -> Option<(&'static str, &'static str, u8)> {
    if drop >= BLUNDER {
        Some(("blunder", "??", 4))
    } else if drop >= MISTAKE {
        Some(("mistake", "?", 2))
    } else if drop >= INACCURACY {
        Some(("inaccuracy", "?!", 6))
    } else {
        None
    }
}

/// The checked request: the game, its PGN tags, the nodes per position.
pub struct Checked {
    pub game: Game,
    pub tags: Vec<(String, String)>,
    pub nodes: u64,
}

pub fn check(req: &ReviewRequest) -> Result<Checked, ApiError> {
    let nodes = req.nodes.unwrap_or(DEFAULT_NODES);
    bounded("review nodes", nodes, 1..=MAX_NODES, "")?;
    let (game, tags) = match &req.pgn {
        Some(text) => {
            if req.fen.is_some() || !req.moves.is_empty() {
                return Err(ApiError::bad(
                    "give either a pgn or a position (fen, moves), not both",
                ));
            }
            if text.len() > MAX_PGN_BYTES {
                return Err(ApiError::bad(format!(
                    "the PGN is longer than {MAX_PGN_BYTES} bytes"
                )));
            }
            let pgn = crate::core::pgn::read_games(text)
                .into_iter()
                .next()
                .ok_or_else(|| ApiError::bad("the PGN has no game"))?;
            if let Some(e) = &pgn.error {
                return Err(ApiError::bad(format!(
                    "the PGN's half-move {} cannot be read: {e}",
                    pgn.moves.len() + 1
                )));
            }
            if pgn.moves.len() > MAX_PLIES {
                return Err(ApiError::bad(format!(
                    "at most {MAX_PLIES} half-moves can be reviewed, the game has {}",
                    pgn.moves.len()
                )));
            }
            let mut game = Game::new(pgn.start.clone());
            for &m in &pgn.moves {
                game.play(m)?;
            }
            (game, pgn.tags)
        }
        None => {
            if req.moves.len() > MAX_PLIES {
                return Err(ApiError::bad(format!(
                    "at most {MAX_PLIES} half-moves can be reviewed, the game has {}",
                    req.moves.len()
                )));
            }
            let game = req.game()?;
            (game, Vec::new())
        }
    };
    if game.moves().is_empty() {
        return Err(ApiError::bad("the game has no moves to review"));
    }
    Ok(Checked { game, tags, nodes })
}

/// One judged move, as the `move` event and the answer's `moves` carry it. Scores are White's
/// point of view; the expected scores the mover's.
#[derive(Clone, Debug, Serialize)]
pub struct MoveRow {
    pub ply: usize,
    pub number: u32,
    pub color: &'static str,
    pub san: String,
    pub uci: String,
    pub fen_before: String,
    pub fen_after: String,
    pub best: Option<String>,
    pub best_san: Option<String>,
    pub best_line: Vec<String>,
    pub depth: u32,
    pub score_before: i32,
    pub score_after: i32,
    pub mate_after: Option<i32>,
    pub expected_before: f64,
    pub expected_after: f64,
    pub drop: f64,
    pub judgement: Option<&'static str>,
    pub glyph: Option<&'static str>,
    pub nag: Option<u8>,
    /// The moves of `best_line`, for the PGN's variation.
    #[serde(skip)]
    pub better: Vec<Move>,
}

/// What the engine thinks of one position, from the side to move's point of view.
#[derive(Clone, Debug)]
struct Seen {
    score: i32,
    best: Option<Move>,
    pv: Vec<Move>,
    depth: u32,
}

fn white_view(pos: &Chess, score: i32) -> i32 {
    if pos.turn() == Color::White {
        score
    } else {
        -score
    }
}

/// A score as `[%eval]` writes it, White's point of view: `0.35`, `-1.20`, `#3`, `#-2`.
fn eval_tag(white: i32) -> String {
    match mate_moves(white) {
        Some(m) => format!("#{m}"),
        None => format!("{:.2}", f64::from(white) / 100.0),
    }
}

fn san_line(pos: &Chess, moves: &[Move], limit: usize) -> Vec<String> {
    let mut p = pos.clone();
    let mut out = Vec::new();
    for &m in moves.iter().take(limit) {
        if !p.is_legal(m) {
            break;
        }
        out.push(san(&p, m));
        p.play_unchecked(m);
    }
    out
}

/// Reviews `game`, sending `start`, then `move` for each move as soon as it is judged.
pub fn review(
    makers: &Makers,
    checked: &Checked,
    emitter: &Emitter,
    stop: &Arc<AtomicBool>,
) -> ApiResult {
    let started = Instant::now();
    let game = &checked.game;
    let mut engine = makers.engine("rookery", None)?;
    engine.new_game();
    let limits = Limits {
        nodes: Some(checked.nodes),
        movetime: Some(MAX_MOVETIME),
        stop: Some(stop.clone()),
        ..Limits::default()
    };
    let sans = {
        let mut p = game.start().clone();
        game.moves()
            .iter()
            .map(|&m| {
                let s = san(&p, m);
                p.play_unchecked(m);
                s
            })
            .collect::<Vec<_>>()
    };
    emitter.send(
        "start",
        &json!({
            "start_fen": fen_of(game.start()),
            "plies": game.moves().len(),
            "san": sans,
            "nodes": checked.nodes,
        }),
    );
    let mut cur = Game::new(game.start().clone());
    let mut seen_before: Option<Seen> = None;
    let mut rows: Vec<MoveRow> = Vec::new();
    let mut stopped: Option<&str> = None;
    let mut nodes_total = 0u64;
    for i in 0..=game.moves().len() {
        stopped = emitter.halt(started, MAX_TIME, "the review's time limit");
        if stopped.is_some() {
            break;
        }
        let seen = match rules_end(&cur) {
            Some(end) => Seen {
                score: if end.termination == crate::core::game::Termination::Checkmate {
                    -MATE
                } else {
                    0
                },
                best: None,
                pv: Vec::new(),
                depth: 0,
            },
            None => {
                let a = engine.analyse(&cur, &limits);
                nodes_total += a.nodes;
                Seen {
                    score: a.score.unwrap_or(0),
                    best: a.best,
                    pv: a.pv.clone(),
                    depth: a.depth,
                }
            }
        };
        if let Some(before) = seen_before.take() {
            let ply = i - 1;
            let mv = game.moves()[ply];
            let pos_before = game_position(game, ply);
            let after = cur.position();
            let mover = pos_before.turn();
            let e_before = expected(before.score);
            let e_after = expected(-seen.score);
            let drop = (e_before - e_after).max(0.0);
            let is_best = before.best == Some(mv);
            let mark = if is_best { None } else { judge(drop) };
            let best_line = san_line(&pos_before, &before.pv, 6);
            let row = MoveRow {
                ply: ply + 1,
                number: pos_before.fullmoves().get(),
                color: if mover == Color::White {
                    "white"
                } else {
                    "black"
                },
                san: sans[ply].clone(),
                uci: uci(mv),
                fen_before: fen_of(&pos_before),
                fen_after: fen_of(after),
                best: before.best.map(uci),
                best_san: before
                    .best
                    .filter(|&m| pos_before.is_legal(m))
                    .map(|m| san(&pos_before, m)),
                better: before.pv[..best_line.len()].to_vec(),
                best_line,
                depth: before.depth,
                score_before: white_view(&pos_before, before.score),
                score_after: white_view(after, seen.score),
                mate_after: mate_moves(white_view(after, seen.score)),
                expected_before: e_before,
                expected_after: e_after,
                drop,
                judgement: mark.map(|m| m.0),
                glyph: mark.map(|m| m.1),
                nag: mark.map(|m| m.2),
            };
            emitter.send("move", &row);
            rows.push(row);
        }
        seen_before = Some(seen);
        if i < game.moves().len() {
            cur.play(game.moves()[i])?;
        }
    }
    let count = |color: &str, what: &str| {
        rows.iter()
            .filter(|r| r.color == color && r.judgement == Some(what))
            .count()
    };
    let summary = json!({
        "white": { "inaccuracies": count("white", "inaccuracy"), "mistakes": count("white", "mistake"), "blunders": count("white", "blunder") },
        "black": { "inaccuracies": count("black", "inaccuracy"), "mistakes": count("black", "mistake"), "blunders": count("black", "blunder") },
    });
    let secs = started.elapsed().as_secs_f64();
    Ok(json!({
        "start_fen": fen_of(game.start()),
        "moves": rows,
        "summary": summary,
        "pgn": annotated_pgn(checked, &rows),
        "nodes": checked.nodes,
        "nodes_total": nodes_total,
        "time_ms": (secs * 1000.0).round() as u64,
        "stopped": stopped,
        "thresholds": { "inaccuracy": INACCURACY, "mistake": MISTAKE, "blunder": BLUNDER, "k": SIGMOID_K },
    }))
}

/// The position before half-move `ply` of `game`.
fn game_position(game: &Game, ply: usize) -> Chess {
    let mut p = game.start().clone();
    for &m in &game.moves()[..ply] {
        p.play_unchecked(m);
    }
    p
}

/// The review as PGN: the game's tags, each move with its NAG and `[%eval]`, and at a marked
/// move a comment and the better line as a variation.
pub fn annotated_pgn(checked: &Checked, rows: &[MoveRow]) -> String {
    let game = &checked.game;
    let tag = |name: &str| {
        checked
            .tags
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.clone())
    };
    let result = tag("Result").unwrap_or_else(|| {
        rules_end(game).map_or("*".to_string(), |e| e.outcome.pgn().to_string())
    });
    let mut tags: Vec<(&str, String)> = ["Event", "Site", "Date", "Round", "White", "Black"]
        .into_iter()
        .map(|name| {
            let v = tag(name).unwrap_or_else(|| match name {
                "Event" => "Rookery Lab review".into(),
                "Date" => crate::core::pgn::today(),
                _ => "?".into(),
            });
            (name, v)
        })
        .collect();
    tags.push((
        "Annotator",
        format!("Rookery Lab: rookery, {} nodes a position", checked.nodes),
    ));
    let mut out = String::new();
    write_tags(&mut out, game, &tags, &result);
    let mut text = Movetext::annotated(game.start());
    for (i, &m) in game.moves().iter().enumerate() {
        let before = text.position().clone();
        text.push_move(m);
        let Some(row) = rows.get(i) else {
            continue;
        };
        if let Some(nag) = row.nag {
            text.push_nag(nag);
        }
        let mut comment = if rules_end(&game_prefix(game, i + 1)).is_some() {
            String::new()
        } else {
            format!("[%eval {}]", eval_tag(row.score_after))
        };
        if let Some(word) = row.judgement {
            let best = row.best_san.as_deref().unwrap_or("?");
            let sentence = format!(
                "{}{word}: expected score {:.2} to {:.2} ({} to {}). {best} was better.",
                if comment.is_empty() { "" } else { " " },
                row.expected_before,
                row.expected_after,
                format_score(row.score_before),
                format_score(row.score_after),
            );
            comment.push_str(&capitalise(&sentence));
        }
        if !comment.is_empty() {
            text.push_comment(&comment);
        }
        if row.judgement.is_some() {
            text.push_variation(&before, &row.better);
        }
    }
    text.finish(&mut out, &result);
    out
}

fn capitalise(s: &str) -> String {
    // The judgement opens its sentence (after the eval tag and a space, if any).
    let indent = s.len() - s.trim_start().len();
    let (head, rest) = s.split_at(indent);
    let mut c = rest.chars();
    match c.next() {
        Some(first) => format!("{head}{}{}", first.to_uppercase(), c.as_str()),
        None => s.to_string(),
    }
}

fn game_prefix(game: &Game, plies: usize) -> Game {
    let mut g = Game::new(game.start().clone());
    for &m in &game.moves()[..plies] {
        // The moves were legal when the game was built.
        let _ = g.play(m);
    }
    g
}

pub async fn handler(State(lab): State<Arc<Lab>>, headers: HeaderMap, body: Bytes) -> Response {
    let checked = match parse_body::<ReviewRequest>(&body).and_then(|r| check(&r)) {
        Ok(c) => c,
        Err(e) => return error_response(&e),
    };
    let makers = lab.makers.clone();
    events::run(&lab, events::wants_events(&headers), move |emitter| {
        review(&makers, &checked, emitter, &emitter.stop)
    })
    .await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sigmoid_is_the_one_the_docs_give() {
        let docs = include_str!("../../docs/lab.md");
        assert!(docs.contains(&format!("({SIGMOID_K}")), "K moved");
        assert!((expected(0) - 0.5).abs() < 1e-12);
        assert!((expected(100) + expected(-100) - 1.0).abs() < 1e-12);
        assert!(expected(MATE - 3) > 0.999_999);
        // The thresholds at equality: about 72, 150 and 245 centipawns lost.
        assert!((expected(0) - expected(-72) - INACCURACY).abs() < 0.002);
        assert!((expected(0) - expected(-150) - MISTAKE).abs() < 0.002);
        assert!((expected(0) - expected(-245) - BLUNDER).abs() < 0.002);
        assert_eq!(judge(0.05), None);
        assert_eq!(judge(0.12).unwrap().1, "?!");
        assert_eq!(judge(0.25).unwrap().2, 2);
        assert_eq!(judge(0.9).unwrap().0, "blunder");
    }

    #[test]
    fn requests_are_checked() {
        let bad = |r: ReviewRequest| check(&r).err().map(|e| e.message).unwrap_or_default();
        assert!(
            bad(ReviewRequest {
                pgn: Some("1. e4 e5 2. Ke3".into()),
                ..Default::default()
            })
            .contains("half-move 3 cannot be read")
        );
        assert!(bad(ReviewRequest::default()).contains("no moves"));
        assert!(
            bad(ReviewRequest {
                moves: vec!["e2e4".into()],
                nodes: Some(0),
                ..Default::default()
            })
            .contains("nodes must be")
        );
        assert!(
            bad(ReviewRequest {
                pgn: Some("1. e4".into()),
                moves: vec!["e2e4".into()],
                ..Default::default()
            })
            .contains("not both")
        );
    }
}
