//! One interface for every engine, from the random mover to the strong engine: given a game
//! (position and history) and limits, return an analysis. The CLI, the UCI loop and the match
//! runner only ever see `dyn Engine`; `registry` creates them by name. This module names no
//! engine.

use std::sync::Arc;
use std::time::Duration;

use shakmaty::Move;

use crate::book::{Book, BookPolicy};
pub use crate::core::Bound;
use crate::core::{Game, Limits};
use crate::nnue::Network;
use crate::tb::Syzygy;
use crate::tb::dtm::DtmTables;

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
///
/// Every engine fills in `best`, `moves`, `depth`, `nodes` and `elapsed`; the searching ones also
/// `score` and `pv`, and the strong engine the rest.
///
/// ```
/// use rookery::core::{Game, Limits};
/// use rookery::engine::{Bound, EngineOptions};
/// use shakmaty::Position;
///
/// // White mates with Rd8.
/// let game = Game::from_fen("6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1").unwrap();
/// let mut engine = rookery::registry::create("alphabeta", &EngineOptions::default()).unwrap();
/// let analysis = engine.analyse(&game, &Limits::depth(2));
///
/// let best = analysis.best.unwrap();
/// assert_eq!(rookery::core::game::uci(best), "d1d8");
/// assert_eq!(analysis.pv.first(), Some(&best));
/// assert!(analysis.score.unwrap() > 10_000, "a mate scores above any material");
/// assert_eq!(analysis.depth, 2);
/// assert!(analysis.nodes > 0);
/// // The root moves, best first; the best one is exact, the others bounds or exact.
/// assert_eq!(analysis.moves[0].mv, best);
/// assert_eq!(analysis.moves[0].bound, Bound::Exact);
/// assert_eq!(analysis.moves.len(), game.position().legal_moves().len());
/// ```
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
    /// The strong engine's evaluation: a learned net (by default the built-in one), or the
    /// hand-crafted one.
    pub eval: Evaluation,
}

/// Which evaluation the strong engine searches with.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Evaluation {
    /// The hand-crafted evaluation (tuned terms and piece-square tables).
    Hce,
    /// A learned net (the built-in one or one loaded from a file).
    Net(Arc<Network>),
}

impl Evaluation {
    /// The built-in net.
    pub fn builtin_net() -> Evaluation {
        Evaluation::Net(Network::default_net())
    }

    /// `hce` or `net`.
    pub fn name(&self) -> &'static str {
        match self {
            Evaluation::Hce => "hce",
            Evaluation::Net(_) => "net",
        }
    }
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
            eval: Evaluation::builtin_net(),
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

/// Where an engine sends its progress reports while it searches.
pub type Reporter<'a> = &'a mut dyn FnMut(Report<'_>);

/// Every engine implements this: the search is the one required method.
///
/// An engine sees a [`Game`] (the position and the moves that led to it, so it can see
/// repetitions) and [`Limits`], and returns an [`Analysis`]. Everything that drives engines (the
/// command line, UCI, the match runner, the Lab, Python) uses only this trait, so a new engine
/// plugs into all of them.
///
/// ```
/// use rookery::core::{Game, Limits};
/// use rookery::engine::{Analysis, Engine, Report, Reporter, ScoredMove, report_final};
/// use shakmaty::{Chess, Position};
///
/// /// The smallest engine there is: the first legal move.
/// struct FirstMove;
///
/// impl Engine for FirstMove {
///     fn name(&self) -> &'static str {
///         "first-move"
///     }
///
///     fn search(&mut self, game: &Game, _limits: &Limits, report: Reporter<'_>) -> Analysis {
///         let moves = game.position().legal_moves();
///         let analysis = Analysis {
///             best: moves.first().copied(),
///             moves: moves.iter().map(|&m| ScoredMove::unscored(m)).collect(),
///             ..Analysis::default()
///         };
///         // An engine without iterations reports its one result at the end.
///         report_final(analysis, report)
///     }
/// }
///
/// let game = Game::new(Chess::default());
/// let mut engine = FirstMove;
/// let mut reports = 0;
/// let analysis = engine.search(&game, &Limits::default(), &mut |r| {
///     if let Report::Iteration(_) = r {
///         reports += 1;
///     }
/// });
/// assert_eq!(reports, 1);
/// assert_eq!(analysis.moves.len(), 20);
/// assert!(analysis.best.is_some());
/// // `analyse` is `search` without reports.
/// assert_eq!(engine.analyse(&game, &Limits::default()), analysis);
/// ```
pub trait Engine: Send {
    /// The user-facing name (`minimax`, `rookery`, ...).
    fn name(&self) -> &'static str;

    /// Searches the current position of `game` within `limits`, reporting progress to `report`
    /// as it goes, and returns the analysis with the move to play. Engines that search in
    /// iterations report each one; the others report their final analysis once
    /// (`report_final`).
    fn search(&mut self, game: &Game, limits: &Limits, report: Reporter<'_>) -> Analysis;

    /// The search without progress reports.
    fn analyse(&mut self, game: &Game, limits: &Limits) -> Analysis {
        self.search(game, limits, &mut |_| {})
    }

    /// Applies run-time settings (hash size, threads, strength); engines ignore what they lack.
    /// A table or thread count the memory cannot hold is refused (`Error::Memory`, saying what
    /// is kept): the engine goes on with what it had for that setting and applies the others.
    fn configure(&mut self, _settings: &Settings) -> Result<(), crate::error::Error> {
        Ok(())
    }

    /// Forgets everything learned about earlier games (hash tables, histories).
    fn new_game(&mut self) {}

    /// Limits to use when the user gives none: a depth that answers in about a second.
    fn default_limits(&self) -> Limits {
        Limits::depth(3)
    }
}

/// Reports `analysis` as the one (final) iteration and returns it: what engines that do not
/// search in iterations do at the end of `search`.
pub fn report_final(analysis: Analysis, report: Reporter<'_>) -> Analysis {
    report(Report::Iteration(&analysis));
    analysis
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
