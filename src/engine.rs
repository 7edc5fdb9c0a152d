//! One interface for every engine, from the random mover to the strong engine: given a game
//! (position and history) and limits, return an analysis. The CLI, the UCI loop and the match
//! runner only ever see `dyn Engine`.

use std::sync::Arc;
use std::time::Duration;

use serde::Serialize;
use shakmaty::Move;

use crate::book::{Book, BookPolicy};
use crate::core::{Game, Limits};
use crate::error::Error;
use crate::ladder::{self, FixedDepth};
use crate::tb::Syzygy;
use crate::tb::dtm::DtmTables;

/// How a score relates to the true value of a move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Bound {
    Exact,
    /// The move is at least this good (it caused a cut-off).
    Lower,
    /// The move is at most this good (it was refuted without an exact score).
    Upper,
}

impl Bound {
    /// What a fail-soft search result `score` says about the true value, given the window
    /// `alpha..beta` it was searched with.
    pub fn from_window(score: i32, alpha: i32, beta: i32) -> Bound {
        if score >= beta {
            Bound::Lower
        } else if score > alpha {
            Bound::Exact
        } else {
            Bound::Upper
        }
    }
}

/// A root move and what the engine learned about it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ScoredMove {
    pub mv: Move,
    /// Centipawns from the side to move's point of view; `None` when the engine does not score
    /// moves (random mover, book).
    pub score: Option<i32>,
    pub bound: Bound,
    /// The book weight, when the move came from an opening book.
    pub weight: Option<u16>,
}

impl ScoredMove {
    pub fn unscored(mv: Move) -> ScoredMove {
        ScoredMove {
            mv,
            score: None,
            bound: Bound::Exact,
            weight: None,
        }
    }

    pub fn scored(mv: Move, score: i32, bound: Bound) -> ScoredMove {
        ScoredMove {
            mv,
            score: Some(score),
            bound,
            weight: None,
        }
    }
}

/// What an engine returns for a position.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Analysis {
    /// The move to play; `None` only when the game is over (no legal move).
    pub best: Option<Move>,
    /// The score of the best move, side to move's point of view.
    pub score: Option<i32>,
    /// The principal variation, starting with the best move.
    pub pv: Vec<Move>,
    /// The root moves considered, best first.
    pub moves: Vec<ScoredMove>,
    /// Depth of the deepest completed search, in plies.
    pub depth: u32,
    /// Deepest ply reached, quiescence included.
    pub seldepth: u32,
    /// Positions visited.
    pub nodes: u64,
    pub elapsed: Duration,
    /// True if the move came from an opening book.
    pub from_book: bool,
    /// The principal variations, best first (more than one with MultiPV).
    pub lines: Vec<PvLine>,
    /// Per mille of the hash table in use by this search.
    pub hashfull: u32,
    /// Tablebase probes that answered.
    pub tbhits: u64,
}

/// One principal variation of a MultiPV search.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PvLine {
    /// Side to move's point of view.
    pub score: i32,
    pub bound: Bound,
    pub pv: Vec<Move>,
}

/// What an engine tells its caller while it searches.
#[derive(Debug)]
pub enum Report<'a> {
    /// An iteration finished (or, for long searches, failed high or low): the analysis so far.
    Iteration(&'a Analysis),
    /// The root move being searched, for long searches (`currmove`, counted from 1).
    CurrentMove { depth: u32, mv: Move, number: usize },
}

/// Settings the UCI options change at run time.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Settings {
    /// Hash table size in megabytes.
    pub hash_mb: usize,
    /// Search threads.
    pub threads: usize,
    /// Play at about this Elo (UCI_LimitStrength with UCI_Elo), or at full strength.
    pub limit_elo: Option<u32>,
    /// Syzygy tables, opened.
    pub syzygy: Option<Syzygy>,
    /// Probe the tables in the search only this many plies from the horizon or more.
    pub syzygy_probe_depth: u32,
    /// Probe only positions with at most this many pieces (kings included).
    pub syzygy_probe_limit: u32,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            hash_mb: 16,
            threads: 1,
            limit_elo: None,
            syzygy: None,
            syzygy_probe_depth: 1,
            syzygy_probe_limit: 7,
        }
    }
}

impl Analysis {
    /// Sorts the root moves best first (unscored moves last, in their order), keeping it stable.
    pub fn sort_moves(&mut self) {
        self.moves
            .sort_by_key(|m| std::cmp::Reverse(m.score.unwrap_or(i32::MIN)));
    }
}

/// Every engine implements this.
pub trait Engine: Send {
    /// The user-facing name (`minimax`, `rookery`, ...).
    fn name(&self) -> &'static str;

    /// Analyses the current position of `game` within `limits` and returns the best move.
    fn analyse(&mut self, game: &Game, limits: &Limits) -> Analysis;

    /// Like `analyse`, reporting progress to `report` as it goes. Engines that search in
    /// iterations report each one; the default reports the final analysis once.
    fn search(
        &mut self,
        game: &Game,
        limits: &Limits,
        report: &mut dyn FnMut(Report<'_>),
    ) -> Analysis {
        let analysis = self.analyse(game, limits);
        report(Report::Iteration(&analysis));
        analysis
    }

    /// Applies run-time settings (hash size, threads, strength); engines ignore what they lack.
    fn configure(&mut self, _settings: &Settings) {}

    /// Forgets everything learned about earlier games (hash tables, histories).
    fn new_game(&mut self) {}

    /// Limits to use when the user gives none: a depth that answers in about a second.
    fn default_limits(&self) -> Limits {
        Limits::depth(3)
    }
}

/// Settings shared by every engine when it is created.
#[derive(Clone, Debug, Default)]
pub struct EngineOptions {
    /// Seed for every random choice, so a game can be replayed exactly.
    pub seed: u64,
    /// The opening book engines from `book` upward consult; `None` plays without a book.
    pub book: Option<Arc<Book>>,
    pub book_policy: BookPolicy,
    /// Distance-to-mate tables (Gaviota) the ladder engines play endgames from.
    pub dtm: Option<Arc<dyn DtmTables>>,
}

/// A rung of the ladder, as `rookery engines` lists it.
#[derive(Clone, Copy, Debug)]
pub struct EngineInfo {
    pub name: &'static str,
    pub idea: &'static str,
}

/// Every engine, in ladder order.
pub const ENGINES: &[EngineInfo] = &[
    EngineInfo {
        name: "random",
        idea: "a uniformly random legal move",
    },
    EngineInfo {
        name: "book",
        idea: "moves from a Polyglot opening book, else random",
    },
    EngineInfo {
        name: "greedy",
        idea: "one-ply search on material (pawn 1, knight 3, bishop 3, rook 5, queen 9)",
    },
    EngineInfo {
        name: "greedy-incremental",
        idea: "the same choices from each move's material change, without recounting the board",
    },
    EngineInfo {
        name: "minimax",
        idea: "fixed-depth minimax, max/min form",
    },
    EngineInfo {
        name: "alphabeta",
        idea: "alpha-beta cut-offs, still max/min form",
    },
    EngineInfo {
        name: "negamax",
        idea: "alpha-beta in negamax form",
    },
    EngineInfo {
        name: "iterative",
        idea: "iterative deepening: deeper and deeper until the time is up",
    },
    EngineInfo {
        name: "tt",
        idea: "a transposition table: results and best moves remembered by Zobrist hash",
    },
    EngineInfo {
        name: "quiescence",
        idea: "a capture search at the leaves, so no exchange is cut in half",
    },
    EngineInfo {
        name: "pst",
        idea: "the Simplified Evaluation Function: piece-square tables",
    },
    EngineInfo {
        name: "rookery",
        idea: "the strong engine: PVS, pruning, staged move ordering, tapered evaluation, threads",
    },
];

/// Creates an engine by name.
pub fn create(name: &str, options: &EngineOptions) -> Result<Box<dyn Engine>, Error> {
    let name = name.trim().to_ascii_lowercase();
    let engine: Box<dyn Engine> = match name.as_str() {
        "random" => Box::new(ladder::random::RandomMover::new(options)),
        "book" => Box::new(ladder::book::BookMover::new(options)),
        "greedy" => Box::new(ladder::greedy::Greedy::new(options)),
        "greedy-incremental" => {
            Box::new(ladder::greedy_incremental::GreedyIncremental::new(options))
        }
        "minimax" => Box::new(FixedDepth::new(
            "minimax",
            ladder::minimax::DEFAULT_DEPTH,
            ladder::minimax::search,
            options,
        )),
        "alphabeta" => Box::new(FixedDepth::new(
            "alphabeta",
            ladder::alphabeta::DEFAULT_DEPTH,
            ladder::alphabeta::search,
            options,
        )),
        "negamax" => Box::new(FixedDepth::new(
            "negamax",
            ladder::negamax::DEFAULT_DEPTH,
            ladder::negamax::search,
            options,
        )),
        "iterative" => Box::new(ladder::iterative::Iterative::new(options)),
        "tt" => Box::new(ladder::tt::engine(options)),
        "quiescence" => Box::new(ladder::quiescence::engine(options)),
        "pst" => Box::new(ladder::pst::engine(options)),
        "rookery" => return Ok(Box::new(crate::search::engine::Rookery::new(options))),
        _ => return Err(Error::UnknownEngine(name)),
    };
    // The tutorial's engines play the endgames the distance-to-mate tables cover perfectly.
    Ok(match &options.dtm {
        Some(tables) => Box::new(crate::tb::dtm::WithDtm::new(engine, tables.clone())),
        None => engine,
    })
}

/// The names of all engines.
pub fn names() -> impl Iterator<Item = &'static str> {
    ENGINES.iter().map(|e| e.name)
}

/// How a game between two engines ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameEnd {
    /// `1-0`, `0-1`, `1/2-1/2`, or `*` when stopped unfinished.
    pub result: &'static str,
    pub termination: crate::core::Termination,
}

/// Plays `game` on between `white` and `black` until it ends or reaches `max_plies` half-moves,
/// calling `on_move` before each move is played (with the game as it stands and the analysis).
/// An engine that returns no legal move is an error naming it.
pub fn play_out(
    game: &mut Game,
    white: &mut dyn Engine,
    black: &mut dyn Engine,
    limits: (&Limits, &Limits),
    max_plies: usize,
    mut on_move: impl FnMut(&Game, &Analysis) -> Result<(), Error>,
) -> Result<GameEnd, Error> {
    use shakmaty::{Color, Position};
    loop {
        if let Some((outcome, termination)) = game.outcome() {
            return Ok(GameEnd {
                result: outcome.as_str(),
                termination,
            });
        }
        if game.ply() >= max_plies {
            return Ok(GameEnd {
                result: "*",
                termination: crate::core::Termination::MaxPlies,
            });
        }
        let white_to_move = game.position().turn() == Color::White;
        let analysis = if white_to_move {
            white.analyse(game, limits.0)
        } else {
            black.analyse(game, limits.1)
        };
        let Some(m) = analysis.best.filter(|&m| game.position().is_legal(m)) else {
            let name = if white_to_move {
                white.name()
            } else {
                black.name()
            };
            return Err(Error::Invalid(format!("{name} returned no legal move")));
        };
        on_move(game, &analysis)?;
        game.play(m)?;
    }
}
