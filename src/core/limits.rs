//! What the caller allows a search: depth, nodes, a fixed time per move, or a clock; plus a stop
//! flag another thread may raise. `core::time` turns them into decisions.

use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

/// A chess clock as seen by the side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Clock {
    pub remaining: Duration,
    pub increment: Duration,
    /// Moves until the next time control; `None` for sudden death with increment.
    pub moves_to_go: Option<u32>,
}

/// What a search may spend. Any combination may be given; the search ends at the first limit
/// reached. With none at all, an engine searches to its own default depth (or until stopped, for
/// the strong engine with `infinite`).
///
/// ```
/// use std::sync::Arc;
/// use std::sync::atomic::{AtomicBool, Ordering};
/// use std::time::Duration;
///
/// use rookery::core::{Clock, Game, Limits};
/// use rookery::engine::EngineOptions;
///
/// let game = Game::from_fen("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3").unwrap();
/// let mut engine = rookery::registry::create("rookery", &EngineOptions::default()).unwrap();
///
/// // A depth, a node budget, or a fixed time a move.
/// assert_eq!(engine.analyse(&game, &Limits::depth(4)).depth, 4);
/// let budget = Limits { nodes: Some(5_000), ..Limits::default() };
/// assert!(engine.analyse(&game, &budget).nodes <= 5_000 + 1_000);
/// let quick = engine.analyse(&game, &Limits::movetime_ms(50));
/// assert!(quick.elapsed < Duration::from_millis(1_000));
///
/// // A clock: the engine decides how much of it this move gets.
/// let clock = Limits {
///     clock: Some(Clock {
///         remaining: Duration::from_secs(1),
///         increment: Duration::from_millis(10),
///         moves_to_go: None,
///     }),
///     ..Limits::default()
/// };
/// assert!(engine.analyse(&game, &clock).elapsed < Duration::from_secs(1));
///
/// // Until stopped: another thread raises the flag.
/// let stop = Arc::new(AtomicBool::new(false));
/// let infinite = Limits { infinite: true, stop: Some(stop.clone()), ..Limits::default() };
/// let stopper = std::thread::spawn(move || {
///     std::thread::sleep(Duration::from_millis(100));
///     stop.store(true, Ordering::Relaxed);
/// });
/// assert!(engine.analyse(&game, &infinite).best.is_some());
/// stopper.join().unwrap();
/// ```
#[derive(Clone, Debug, Default)]
pub struct Limits {
    /// Plies to search (for fixed-depth engines, the depth; for iterative ones, the last iteration).
    pub depth: Option<u32>,
    /// Positions to visit at most.
    pub nodes: Option<u64>,
    /// Positions after which no new iteration starts: the search ends with the iteration that
    /// passes this count (`nodes`, if given, still stops it in the middle of one). The strong
    /// engine honours it; `rookery datagen --soft-nodes` plays its games with it.
    pub soft_nodes: Option<u64>,
    /// Time for this move.
    pub movetime: Option<Duration>,
    /// The clock, from which the engine decides its own time.
    pub clock: Option<Clock>,
    /// Search until stopped.
    pub infinite: bool,
    /// Raised by another thread to end the search early.
    pub stop: Option<Arc<AtomicBool>>,
    /// While this flag is up the engine is pondering: no time limit applies. When it falls
    /// (`ponderhit`), the time limits start counting.
    pub pondering: Option<Arc<AtomicBool>>,
    /// Give every root move an exact score (analysis), not just the best one.
    pub score_all_moves: bool,
    /// Principal variations to report (UCI `MultiPV`); 0 and 1 both mean one.
    pub multipv: usize,
    /// Search only these root moves (UCI `searchmoves`); empty means all.
    pub searchmoves: Vec<shakmaty::Move>,
    /// Stop once a mate in this many moves is found (UCI `go mate`).
    pub mate: Option<u32>,
    /// Time kept back for communication on every move (UCI `Move Overhead`).
    pub move_overhead: Duration,
    /// When the request arrived (UCI `go`): the clock runs from here, so a book probe or the
    /// tablebase root filter counts against it. `None`: from when the engine starts on it.
    pub start: Option<Instant>,
}

impl Limits {
    pub fn depth(depth: u32) -> Limits {
        Limits {
            depth: Some(depth),
            ..Limits::default()
        }
    }

    /// A hard count of positions to visit.
    pub fn nodes(nodes: u64) -> Limits {
        Limits {
            nodes: Some(nodes),
            ..Limits::default()
        }
    }

    pub fn movetime_ms(ms: u64) -> Limits {
        Limits {
            movetime: Some(Duration::from_millis(ms)),
            ..Limits::default()
        }
    }

    /// The depth to search: the one asked for, else 2N plies for a mate in N (the ladder's
    /// searches have no other way to look for a mate).
    pub fn depth_or_mate(&self) -> Option<u32> {
        self.depth.or(self.mate.map(|m| m.saturating_mul(2)))
    }
}
