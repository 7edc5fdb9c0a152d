//! `POST /api/tournament`: a round robin between rungs of the ladder, played by the server one
//! game at a time on one search slot (so the Lab's other views keep the other slot), streamed
//! game by game: the crosstable, each rung's Elo against the field and against the rung below it,
//! and every game's PGN. `GET /api/tournament/reference`: the ladder's measured results, for a
//! short run to be read against.
//!
//! Elo is the logistic model's: a score `p` means `-400 log10(1/p - 1)`. Its 95% interval is the
//! Wilson score interval of `p` over the games, turned into Elo the same way; a pairing won (or
//! lost) every time has no finite Elo, only the bound its interval gives ("> +X"). The counting,
//! the Elo, the interval and the round robin's pairings are `core::stats`, the same the match
//! runner uses; this file only plays the games and words the results for the page.

use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::body::Bytes;
use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::Response;
use serde::Deserialize;
use serde_json::{Value, json};
use shakmaty::{Chess, Move, Position};

use super::api::{At, Makers, fixed_depth};
use super::events::{self, Emitter};
use super::kept::TRAINED;
use super::reply::{ApiError, ApiResult, bounded, error_response, parse_body};
use super::state::Lab;
use crate::core::game::{Termination, fen_of, parse_move};
use crate::core::stats::{Wdl, colours, elo, round_robin, wilson};
use crate::core::{Game, Limits};
use crate::driver::{Header, Outcome, pgn_record, play_out};
use crate::registry;

/// Games in one tournament, games per pairing, and the longest a tournament may run.
pub const MAX_GAMES: u32 = 500;
pub const MAX_GAMES_PER_PAIRING: u32 = 100;
pub const MAX_TIME: Duration = Duration::from_secs(600);
/// Bounds of the per-move limits.
pub const MAX_DEPTH: u32 = 4;
pub const MAX_NODES: u64 = 1_000_000;
pub const MAX_MOVETIME_MS: u64 = 2_000;
/// A game still going after this many half-moves is drawn (default and bounds).
pub const DEFAULT_MAX_PLIES: u32 = 200;
pub const MAX_PLIES: u32 = 600;
/// Custom openings a request may give.
pub const MAX_OPENINGS: usize = 100;

/// The built-in openings: well-known first moves, two games (one each way) on each.
pub const OPENINGS: &[(&str, &str)] = &[
    ("Italian Game", "e4 e5 Nf3 Nc6 Bc4 Bc5"),
    ("Ruy Lopez", "e4 e5 Nf3 Nc6 Bb5 a6"),
    ("Sicilian Defence", "e4 c5 Nf3 d6 d4 cxd4"),
    ("French Defence", "e4 e6 d4 d5 Nc3 Nf6"),
    ("Caro-Kann Defence", "e4 c6 d4 d5 Nc3 dxe4"),
    ("Queen's Gambit Declined", "d4 d5 c4 e6 Nc3 Nf6"),
    ("King's Indian Defence", "d4 Nf6 c4 g6 Nc3 Bg7"),
    ("English Opening", "c4 e5 Nc3 Nf6 g3 d5"),
    ("Slav Defence", "d4 d5 c4 c6 Nf3 Nf6"),
    ("Scandinavian Defence", "e4 d5 exd5 Qxd5 Nc3 Qa5"),
];

/// The ladder's results against the rung below, as `rookery ladder` measured them with the
/// settings of `REFERENCE_SETTINGS` (which carries the command and its date, as docs/lab.md does):
/// (rung, rung below, wins, draws, losses).
pub const REFERENCE: &[(&str, &str, u32, u32, u32)] = &[
    ("book", "random", 5, 88, 7),
    ("greedy", "book", 97, 3, 0),
    ("greedy-incremental", "greedy", 11, 75, 14),
    ("minimax", "greedy-incremental", 100, 0, 0),
    ("alphabeta", "minimax", 24, 52, 24),
    ("negamax", "alphabeta", 24, 52, 24),
    ("iterative", "negamax", 63, 35, 2),
    ("tt", "iterative", 51, 42, 7),
    ("quiescence", "tt", 47, 39, 14),
    ("pst", "quiescence", 77, 20, 3),
    ("rookery-hce", "pst", 100, 0, 0),
    // Played with the first built-in net, not necessarily the one built in now;
    // docs/results.md logs each net against rookery-hce.
    ("rookery", "rookery-hce", 49, 23, 28),
];
pub const REFERENCE_SETTINGS: &str = "rookery ladder --games 100 --depth 3 --movetime 50 --openings data/2moves_v1.epd (2026-11-24): 100 games a pairing (50 openings, both colours), fixed-depth rungs at depth 3, deepening rungs at 50 ms a move, drawn after 150 moves";

/// Openings: "builtin" (the list above), "start" (the initial position), or positions.
#[derive(Deserialize, Debug, Clone)]
#[serde(untagged)]
pub enum Openings {
    Named(String),
    Positions(Vec<At>),
}

/// `POST /api/tournament`.
#[derive(Deserialize, Debug, Clone, Default)]
#[serde(deny_unknown_fields)]
pub struct TournamentRequest {
    /// Two or more rungs by name.
    pub rungs: Vec<String>,
    /// Games per pairing (2 when absent).
    #[serde(default)]
    pub games: Option<u32>,
    /// Depth of the fixed-depth rungs (2 when absent).
    #[serde(default)]
    pub depth: Option<u32>,
    /// Nodes per move of the deepening rungs (5,000 when absent).
    #[serde(default)]
    pub nodes: Option<u64>,
    /// The most milliseconds any move may take (500 when absent).
    #[serde(default)]
    pub movetime: Option<u64>,
    #[serde(default)]
    pub openings: Option<Openings>,
    /// Half-moves after which a game is drawn.
    #[serde(default)]
    pub max_plies: Option<u32>,
    /// Seed of the engines' random choices (game `n` plays with `seed + n`).
    #[serde(default)]
    pub seed: Option<u64>,
}

/// A starting position with its name.
#[derive(Clone, Debug)]
pub struct Opening {
    pub name: String,
    pub start: Chess,
    pub moves: Vec<Move>,
}

/// The checked settings of a tournament.
#[derive(Clone, Debug)]
pub struct Plan {
    pub rungs: Vec<&'static str>,
    pub games: u32,
    pub depth: u32,
    pub nodes: u64,
    pub movetime: Duration,
    pub openings: Vec<Opening>,
    pub max_plies: u32,
    pub seed: u64,
}

/// One game to play: the players (indices into `rungs`) and the opening.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pairing {
    pub number: usize,
    pub white: usize,
    pub black: usize,
    pub opening: usize,
}

fn opening_from_moves(name: &str, start: Chess, text: &str) -> Result<Opening, ApiError> {
    let mut pos = start.clone();
    let mut moves = Vec::new();
    for word in text.split_whitespace() {
        let m = parse_move(&pos, word).map_err(|e| ApiError::bad(format!("{name}: {e}")))?;
        pos.play_unchecked(m);
        moves.push(m);
    }
    Ok(Opening {
        name: name.to_string(),
        start,
        moves,
    })
}

/// The built-in openings.
pub fn builtin_openings() -> Vec<Opening> {
    OPENINGS
        .iter()
        .filter_map(|(name, moves)| opening_from_moves(name, Chess::default(), moves).ok())
        .collect()
}

impl TournamentRequest {
    pub fn check(&self) -> Result<Plan, ApiError> {
        let mut rungs: Vec<&'static str> = Vec::new();
        for r in &self.rungs {
            let name = r.trim().to_ascii_lowercase();
            // A rung of the ladder, or a net trained in the Lab (after the ladder).
            let known = registry::ENGINES
                .iter()
                .map(|e| e.name)
                .chain(TRAINED)
                .find(|n| *n == name)
                .ok_or_else(|| ApiError::from(registry::unknown(r)))?;
            if rungs.contains(&known) {
                return Err(ApiError::bad(format!("rung '{known}' is named twice")));
            }
            rungs.push(known);
        }
        if rungs.len() < 2 {
            return Err(ApiError::bad("a tournament needs two rungs or more"));
        }
        // Ladder order, so "the rung below" is the one before; trained nets come last.
        rungs.sort_by_key(|n| {
            registry::ENGINES
                .iter()
                .map(|e| e.name)
                .chain(TRAINED)
                .position(|e| e == *n)
        });
        let games = self.games.unwrap_or(2);
        bounded("games (per pairing)", games, 1..=MAX_GAMES_PER_PAIRING, "")?;
        let pairs = (rungs.len() * (rungs.len() - 1) / 2) as u32;
        if pairs * games > MAX_GAMES {
            return Err(ApiError::bad(format!(
                "{} games ({pairs} pairings x {games}): at most {MAX_GAMES} in one tournament",
                pairs * games
            )));
        }
        let (depth, nodes) = (self.depth.unwrap_or(2), self.nodes.unwrap_or(5_000));
        let ms = self.movetime.unwrap_or(500);
        let max_plies = self.max_plies.unwrap_or(DEFAULT_MAX_PLIES);
        bounded("tournament depth", depth, 1..=MAX_DEPTH, "")?;
        bounded("tournament nodes", nodes, 1..=MAX_NODES, "")?;
        bounded("tournament movetime", ms, 1..=MAX_MOVETIME_MS, " ms")?;
        bounded("max_plies", max_plies, 10..=MAX_PLIES, "")?;
        let openings = match &self.openings {
            None => builtin_openings(),
            Some(Openings::Named(n)) if n == "builtin" => builtin_openings(),
            Some(Openings::Named(n)) if n == "start" => vec![Opening {
                name: "initial position".into(),
                start: Chess::default(),
                moves: Vec::new(),
            }],
            Some(Openings::Named(n)) => {
                return Err(ApiError::bad(format!(
                    "unknown openings '{n}' (builtin, start, or a list of positions)"
                )));
            }
            Some(Openings::Positions(list)) => {
                if list.is_empty() || list.len() > MAX_OPENINGS {
                    return Err(ApiError::bad(format!(
                        "give 1 to {MAX_OPENINGS} opening positions, got {}",
                        list.len()
                    )));
                }
                let mut out = Vec::new();
                for (i, at) in list.iter().enumerate() {
                    let g = at
                        .game()
                        .map_err(|e| ApiError::bad(format!("opening {}: {}", i + 1, e.message)))?;
                    if crate::driver::rules_end(&g).is_some() {
                        return Err(ApiError::bad(format!(
                            "opening {}: the game is over there",
                            i + 1
                        )));
                    }
                    out.push(Opening {
                        name: format!("position {}", i + 1),
                        start: g.start().clone(),
                        moves: g.moves().to_vec(),
                    });
                }
                out
            }
        };
        Ok(Plan {
            rungs,
            games,
            depth,
            nodes,
            movetime: Duration::from_millis(ms),
            openings,
            max_plies,
            seed: self.seed.unwrap_or(1),
        })
    }
}

/// The games of a round robin: in each cycle every pairing plays one game, colours alternating
/// from cycle to cycle; cycles `2k` and `2k + 1` share an opening.
pub fn schedule(plan: &Plan) -> Vec<Pairing> {
    let pairs = round_robin(plan.rungs.len());
    let mut out = Vec::new();
    for g in 0..plan.games as usize {
        for &pair in &pairs {
            let (white, black) = colours(pair, g);
            out.push(Pairing {
                number: out.len() + 1,
                white,
                black,
                opening: (g / 2) % plan.openings.len().max(1),
            });
        }
    }
    out
}

/// Elo for a score, where it is finite (`None` at 0% and 100%).
fn finite_elo(p: f64) -> Option<f64> {
    Some(elo(p)).filter(|e| e.is_finite())
}

/// W/D/L, score, Elo and its 95% interval as the page shows them; at 0% or 100% the Elo is a
/// bound.
pub fn wdl_json(r: &Wdl) -> Value {
    let n = r.games();
    if n == 0 {
        return json!({ "wins": 0, "draws": 0, "losses": 0, "games": 0, "score": null,
            "elo": null, "low": null, "high": null, "text": "-" });
    }
    let p = r.score();
    let (lo, hi) = wilson(p, n);
    let (e, low, high) = (finite_elo(p), finite_elo(lo), finite_elo(hi));
    // Whole Elo, and no "-0".
    let whole = |v: f64| if v.abs() < 0.5 { 0.0 } else { v.round() };
    let round = |x: Option<f64>| x.map(whole);
    let sign = |v: f64| {
        let v = whole(v);
        format!("{}{v:.0}", if v > 0.0 { "+" } else { "" })
    };
    let text = match (e, low, high) {
        (Some(e), Some(l), Some(h)) => format!("{} ({} to {})", sign(e), sign(l), sign(h)),
        (Some(e), _, _) => sign(e),
        (None, Some(l), _) if p >= 1.0 => format!("> {}", sign(l)),
        (None, _, Some(h)) => format!("< {}", sign(h)),
        _ => "-".into(),
    };
    json!({
        "wins": r.wins, "draws": r.draws, "losses": r.losses, "games": n,
        "score": p, "elo": round(e), "low": round(low), "high": round(high), "text": text,
    })
}

/// The results so far: `table[i][j]` is rung `i` against rung `j`.
pub struct Table {
    pub rungs: Vec<&'static str>,
    pub table: Vec<Vec<Wdl>>,
}

impl Table {
    pub fn new(rungs: &[&'static str]) -> Table {
        Table {
            rungs: rungs.to_vec(),
            table: vec![vec![Wdl::default(); rungs.len()]; rungs.len()],
        }
    }

    /// Counts a game: White's points (1, 0.5, 0).
    pub fn add(&mut self, white: usize, black: usize, white_score: f64) {
        self.table[white][black].add(white_score);
        self.table[black][white].add(1.0 - white_score);
    }

    pub fn json(&self) -> Value {
        let rows: Vec<Value> = self
            .rungs
            .iter()
            .enumerate()
            .map(|(i, name)| {
                let mut total = Wdl::default();
                for (j, r) in self.table[i].iter().enumerate() {
                    if j != i {
                        total.merge(*r);
                    }
                }
                let below = (i > 0).then(|| {
                    let mut v = wdl_json(&self.table[i][i - 1]);
                    v["rung"] = json!(self.rungs[i - 1]);
                    v
                });
                json!({
                    "name": name,
                    "idea": registry::ENGINES.iter().find(|e| e.name == *name).map_or(
                        "rookery's search on a net trained in the Lab",
                        |e| e.idea,
                    ),
                    "field": wdl_json(&total),
                    "below": below,
                })
            })
            .collect();
        let cross: Vec<Vec<Value>> = (0..self.rungs.len())
            .map(|i| {
                (0..self.rungs.len())
                    .map(|j| {
                        if i == j {
                            Value::Null
                        } else {
                            wdl_json(&self.table[i][j])
                        }
                    })
                    .collect()
            })
            .collect();
        json!({ "rungs": rows, "crosstable": cross })
    }
}

/// The reference results, with Elo worked out as for a tournament.
pub fn reference() -> Value {
    json!({
        "source": "docs/lab.md, \"Tournament\"",
        "settings": REFERENCE_SETTINGS,
        "rows": REFERENCE.iter().map(|&(rung, below, wins, draws, losses)| {
            let mut v = wdl_json(&Wdl { wins, draws, losses });
            v["rung"] = json!(rung);
            v["below"] = json!(below);
            v
        }).collect::<Vec<_>>(),
    })
}

/// The limits one rung plays with.
fn limits_for(name: &str, plan: &Plan, stop: &Arc<std::sync::atomic::AtomicBool>) -> Limits {
    let mut l = if fixed_depth(name) {
        Limits::depth(plan.depth)
    } else {
        Limits {
            nodes: Some(plan.nodes),
            ..Limits::default()
        }
    };
    l.movetime = Some(plan.movetime);
    l.stop = Some(stop.clone());
    l
}

/// How a rung plays, in words.
fn limit_text(name: &str, plan: &Plan) -> String {
    match name {
        "random" | "book" => "no search".into(),
        "greedy" | "greedy-incremental" => "one ply".into(),
        _ if fixed_depth(name) => format!("depth {}", plan.depth),
        _ => format!("{} nodes", plan.nodes),
    }
}

/// Plays the tournament, sending `start`, then `game` after each game (with the standings).
pub fn run(makers: &Makers, plan: &Plan, emitter: &Emitter) -> ApiResult {
    let started = Instant::now();
    let jobs = schedule(plan);
    let mut table = Table::new(&plan.rungs);
    let mut games: Vec<Value> = Vec::new();
    let mut pgn = String::new();
    let mut stopped: Option<&str> = None;
    let rungs_json: Vec<Value> = plan
        .rungs
        .iter()
        .map(|r| json!({ "name": r, "limit": limit_text(r, plan) }))
        .collect();
    emitter.send(
        "start",
        &json!({
            "rungs": rungs_json,
            "games_total": jobs.len(),
            "openings": plan.openings.iter().map(|o| o.name.clone()).collect::<Vec<_>>(),
        }),
    );
    let stop = emitter.stop.clone();
    let halt = || emitter.halt(started, MAX_TIME, "the tournament's time limit");
    for job in &jobs {
        stopped = halt();
        if stopped.is_some() {
            break;
        }
        let game_started = Instant::now();
        let mut m = makers.clone();
        m.options.seed = plan.seed.wrapping_add(job.number as u64);
        let (wname, bname) = (plan.rungs[job.white], plan.rungs[job.black]);
        let mut white = m.engine(wname, None)?;
        let mut black = m.engine(bname, None)?;
        white.new_game();
        black.new_game();
        let opening = &plan.openings[job.opening];
        let mut game = Game::new(opening.start.clone());
        for &mv in &opening.moves {
            game.play(mv)?;
        }
        let book = game.ply();
        let (lw, lb) = (
            limits_for(wname, plan, &stop),
            limits_for(bname, plan, &stop),
        );
        let played = play_out(
            &mut game,
            white.as_mut(),
            black.as_mut(),
            (&lw, &lb),
            book + plan.max_plies as usize,
            |_, _| {
                // A game in progress ends with the tournament (and is not counted).
                if halt().is_some() {
                    Err(crate::error::Error::Invalid("stopped".into()))
                } else {
                    Ok(())
                }
            },
        );
        stopped = halt();
        if stopped.is_some() {
            break;
        }
        let (outcome, termination, reason) = match played {
            Ok(end) if end.termination == Termination::MaxPlies => (
                Outcome::Draw,
                "adjudication",
                format!("drawn after {} half-moves", plan.max_plies),
            ),
            Ok(end) => (end.outcome, end.pgn_termination(), end.reason),
            Err(e) => {
                // An engine that returns no legal move loses.
                let white_to_move = game.position().turn() == shakmaty::Color::White;
                (
                    Outcome::loss_for(game.position().turn()),
                    "rules infraction",
                    format!("{}: {e}", if white_to_move { wname } else { bname }),
                )
            }
        };
        let white_score = outcome.white_score().unwrap_or(0.5);
        table.add(job.white, job.black, white_score);
        let header = Header {
            event: "Rookery Lab tournament".into(),
            site: "Rookery Lab".into(),
            round: job.number.to_string(),
            white: wname.into(),
            black: bname.into(),
            extra: vec![
                ("Opening", opening.name.clone()),
                ("WhiteLimit", limit_text(wname, plan)),
                ("BlackLimit", limit_text(bname, plan)),
                ("PlyCount", game.ply().to_string()),
            ],
        };
        let record = pgn_record(&game, &header, outcome, termination, &reason);
        pgn.push_str(&record);
        let g = json!({
            "number": job.number,
            "white": wname,
            "black": bname,
            "result": outcome.pgn(),
            "reason": reason,
            "plies": game.ply(),
            "opening": opening.name,
            "start_fen": fen_of(game.start()),
            "time_ms": game_started.elapsed().as_millis() as u64,
        });
        games.push(g.clone());
        let secs = started.elapsed().as_secs_f64();
        emitter.send(
            "game",
            &json!({
                "game": g,
                "pgn": record,
                "played": games.len(),
                "games_total": jobs.len(),
                "games_per_second": games.len() as f64 / secs.max(1e-9),
                "standings": table.json(),
            }),
        );
    }
    let secs = started.elapsed().as_secs_f64();
    Ok(json!({
        "settings": {
            "rungs": rungs_json,
            "games_per_pairing": plan.games,
            "depth": plan.depth,
            "nodes": plan.nodes,
            "movetime_ms": plan.movetime.as_millis() as u64,
            "max_plies": plan.max_plies,
            "seed": plan.seed,
            "openings": plan.openings.iter().map(|o| o.name.clone()).collect::<Vec<_>>(),
        },
        "played": games.len(),
        "games_total": jobs.len(),
        "time_ms": (secs * 1000.0).round() as u64,
        "games_per_second": games.len() as f64 / secs.max(1e-9),
        "standings": table.json(),
        "games": games,
        "pgn": pgn,
        "stopped": stopped,
    }))
}

pub async fn handler(State(lab): State<Arc<Lab>>, headers: HeaderMap, body: Bytes) -> Response {
    let plan = match parse_body::<TournamentRequest>(&body).and_then(|r| r.check()) {
        Ok(p) => p,
        Err(e) => return error_response(&e),
    };
    let makers = lab.makers.clone();
    // A trained net named must be kept now, not found missing at its first game.
    if let Some(missing) = plan
        .rungs
        .iter()
        .find(|r| TRAINED.contains(r) && makers.trained.get(r).is_none())
    {
        return error_response(&ApiError::bad(format!(
            "no net is kept as '{missing}' yet: train one in the Train view"
        )));
    }
    events::run(&lab, events::wants_events(&headers), move |emitter| {
        run(&makers, &plan, emitter)
    })
    .await
}

pub async fn reference_handler() -> Response {
    axum::response::IntoResponse::into_response(axum::Json(reference()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wdl(wins: u32, draws: u32, losses: u32) -> Value {
        wdl_json(&Wdl {
            wins,
            draws,
            losses,
        })
    }

    #[test]
    fn elo_and_its_interval() {
        assert_eq!(finite_elo(0.5), Some(0.0));
        assert!((finite_elo(0.75).unwrap() - 190.849).abs() < 1e-3);
        assert_eq!(finite_elo(1.0), None);
        // Wilson's interval for 8 of 10: 0.490 to 0.943.
        let (lo, hi) = wilson(0.8, 10);
        assert!(
            (lo - 0.4902).abs() < 1e-3 && (hi - 0.9433).abs() < 1e-3,
            "{lo} {hi}"
        );
        // A pairing won every time: a lower bound, no Elo.
        let all = wdl(20, 0, 0);
        assert!(all["elo"].is_null() && all["high"].is_null());
        assert!(all["low"].as_f64().unwrap() > 200.0);
        assert!(all["text"].as_str().unwrap().starts_with("> +"));
        let lost = wdl(0, 0, 4);
        assert!(lost["text"].as_str().unwrap().starts_with("< -"), "{lost}");
        let even = wdl(6, 8, 6);
        assert_eq!(even["elo"], 0.0);
        assert!(even["low"].as_f64().unwrap() < -100.0);
    }

    #[test]
    fn the_schedule_pairs_everyone_both_ways_on_each_opening() {
        let plan = TournamentRequest {
            rungs: vec!["greedy".into(), "random".into(), "pst".into()],
            games: Some(4),
            ..Default::default()
        }
        .check()
        .unwrap();
        assert_eq!(plan.rungs, vec!["random", "greedy", "pst"], "ladder order");
        let jobs = schedule(&plan);
        assert_eq!(jobs.len(), 12);
        for i in 0..3 {
            for j in 0..3 {
                if i != j {
                    let n = jobs.iter().filter(|p| p.white == i && p.black == j).count();
                    assert_eq!(n, 2);
                }
            }
        }
        assert_eq!(jobs[0].opening, jobs[3].opening);
        assert_ne!(jobs[0].opening, jobs[6].opening);
        assert_eq!(builtin_openings().len(), OPENINGS.len());
    }

    #[test]
    fn bad_settings_say_what_is_wrong() {
        let bad = |r: TournamentRequest| r.check().unwrap_err().message;
        let two = || vec!["random".to_string(), "greedy".to_string()];
        assert!(bad(TournamentRequest::default()).contains("two rungs"));
        assert!(
            bad(TournamentRequest {
                rungs: vec!["random".into(), "deep-thought".into()],
                ..Default::default()
            })
            .contains("unknown engine")
        );
        assert!(
            bad(TournamentRequest {
                rungs: vec!["random".into(), "Random".into()],
                ..Default::default()
            })
            .contains("twice")
        );
        assert!(
            bad(TournamentRequest {
                rungs: registry::ENGINES
                    .iter()
                    .map(|e| e.name.to_string())
                    .collect(),
                games: Some(10),
                ..Default::default()
            })
            .contains("at most 500")
        );
        assert!(
            bad(TournamentRequest {
                rungs: two(),
                nodes: Some(0),
                ..Default::default()
            })
            .contains("nodes must be")
        );
        assert!(
            bad(TournamentRequest {
                rungs: two(),
                openings: Some(Openings::Named("eco".into())),
                ..Default::default()
            })
            .contains("unknown openings")
        );
    }

    #[test]
    fn the_reference_has_every_rung_above_the_first() {
        let r = reference();
        let rows = r["rows"].as_array().unwrap();
        assert_eq!(rows.len(), registry::ENGINES.len() - 1);
        for (row, e) in rows.iter().zip(&registry::ENGINES[1..]) {
            assert_eq!(row["rung"], e.name);
            assert_eq!(row["games"], 100);
        }
    }

    #[test]
    fn a_tiny_tournament_plays_every_game() {
        let plan = TournamentRequest {
            rungs: vec!["random".into(), "greedy".into()],
            games: Some(2),
            nodes: Some(200),
            max_plies: Some(40),
            openings: Some(Openings::Named("start".into())),
            ..Default::default()
        }
        .check()
        .unwrap();
        let emitter = Emitter::silent();
        let v = run(&Makers::default(), &plan, &emitter).unwrap();
        assert_eq!(v["played"], 2);
        let cross = &v["standings"]["crosstable"];
        let a = &cross[0][1];
        let b = &cross[1][0];
        assert_eq!(a["games"], 2);
        assert_eq!(a["wins"], b["losses"]);
        assert_eq!(a["draws"], b["draws"]);
        assert_eq!(v["pgn"].as_str().unwrap().matches("[Event ").count(), 2);
        assert!(v["games_per_second"].as_f64().unwrap() > 0.0);
    }
}
