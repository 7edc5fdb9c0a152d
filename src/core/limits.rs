//! What the caller allows a search: depth, nodes, a fixed time per move, or a clock; plus a stop
//! flag another thread may raise. `Stopper` turns limits into a cheap "should I stop?" test.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// A chess clock as seen by the side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Clock {
    pub remaining: Duration,
    pub increment: Duration,
    /// Moves until the next time control; `None` for sudden death with increment.
    pub moves_to_go: Option<u32>,
}

impl Clock {
    /// A simple budget for one move: an even share of the time left plus most of the increment,
    /// never more than half of what is left, with a safety margin.
    pub fn budget(&self) -> Duration {
        let moves = u64::from(self.moves_to_go.unwrap_or(30).clamp(1, 50));
        let left = self.remaining.as_millis() as u64;
        let share = left / moves + self.increment.as_millis() as u64 * 3 / 4;
        let cap = left.saturating_sub(50) / 2;
        Duration::from_millis(share.min(cap).max(1))
    }
}

#[derive(Clone, Debug, Default)]
pub struct Limits {
    /// Plies to search (for fixed-depth engines, the depth; for iterative ones, the last iteration).
    pub depth: Option<u32>,
    /// Positions to visit at most.
    pub nodes: Option<u64>,
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
}

impl Limits {
    pub fn depth(depth: u32) -> Limits {
        Limits {
            depth: Some(depth),
            ..Limits::default()
        }
    }

    pub fn movetime_ms(ms: u64) -> Limits {
        Limits {
            movetime: Some(Duration::from_millis(ms)),
            ..Limits::default()
        }
    }

    /// True if neither depth nor time nor nodes nor clock bound the search.
    pub fn is_unbounded(&self) -> bool {
        self.depth.is_none()
            && self.nodes.is_none()
            && self.movetime.is_none()
            && self.clock.is_none()
    }

    /// The time this move may take, if any limit gives one.
    pub fn time_budget(&self) -> Option<Duration> {
        if self.infinite {
            return None;
        }
        let overhead = self.move_overhead;
        match (self.movetime, self.clock) {
            (Some(t), _) => Some(t.saturating_sub(overhead).max(Duration::from_millis(1))),
            (None, Some(c)) => Some(
                Clock {
                    remaining: c.remaining.saturating_sub(overhead),
                    ..c
                }
                .budget(),
            ),
            (None, None) => None,
        }
    }
}

/// Decides when a search must stop: checked at every node, it looks at the clock only every
/// 1024 nodes so the test costs almost nothing.
#[derive(Debug)]
pub struct Stopper {
    start: Instant,
    budget: Option<Duration>,
    deadline: Option<Instant>,
    pondering: Option<Arc<AtomicBool>>,
    max_nodes: Option<u64>,
    flag: Option<Arc<AtomicBool>>,
    stopped: bool,
}

impl Stopper {
    pub fn new(limits: &Limits) -> Stopper {
        let start = Instant::now();
        let budget = limits.time_budget();
        let pondering = limits
            .pondering
            .clone()
            .filter(|p| p.load(Ordering::Relaxed));
        Stopper {
            start,
            budget,
            deadline: if pondering.is_some() {
                None
            } else {
                budget.map(|t| start + t)
            },
            pondering,
            max_nodes: limits.nodes,
            flag: limits.stop.clone(),
            stopped: false,
        }
    }

    /// After a ponderhit the time budget starts counting from now.
    fn check_ponderhit(&mut self) {
        if let Some(p) = &self.pondering
            && !p.load(Ordering::Relaxed)
        {
            self.pondering = None;
            self.deadline = self.budget.map(|t| Instant::now() + t);
        }
    }

    /// True once the search must end; stays true.
    pub fn should_stop(&mut self, nodes: u64) -> bool {
        if self.stopped {
            return true;
        }
        if self.max_nodes.is_some_and(|n| nodes >= n) {
            self.stopped = true;
        } else if nodes.is_multiple_of(1024) {
            self.check_ponderhit();
            self.stopped = self.deadline.is_some_and(|d| Instant::now() >= d)
                || self
                    .flag
                    .as_ref()
                    .is_some_and(|f| f.load(Ordering::Relaxed));
        }
        self.stopped
    }

    pub fn stopped(&self) -> bool {
        self.stopped
    }

    pub fn elapsed(&self) -> Duration {
        self.start.elapsed()
    }

    /// True if less than half the budget is left: not worth starting another iteration.
    pub fn past_half(&mut self) -> bool {
        self.check_ponderhit();
        match (self.deadline, self.budget) {
            (Some(d), Some(budget)) => d.saturating_duration_since(Instant::now()) * 2 <= budget,
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn node_limit_stops() {
        let mut s = Stopper::new(&Limits {
            nodes: Some(10),
            ..Limits::default()
        });
        assert!(!s.should_stop(9));
        assert!(s.should_stop(10));
        assert!(s.should_stop(0));
    }

    #[test]
    fn flag_stops() {
        let flag = Arc::new(AtomicBool::new(false));
        let mut s = Stopper::new(&Limits {
            stop: Some(flag.clone()),
            ..Limits::default()
        });
        assert!(!s.should_stop(1024));
        flag.store(true, Ordering::Relaxed);
        assert!(s.should_stop(2048));
    }

    #[test]
    fn clock_budget_is_safe() {
        let c = Clock {
            remaining: Duration::from_millis(100),
            increment: Duration::ZERO,
            moves_to_go: None,
        };
        assert!(c.budget() <= Duration::from_millis(25));
        let c = Clock {
            remaining: Duration::from_secs(60),
            increment: Duration::from_secs(1),
            moves_to_go: Some(1),
        };
        assert!(c.budget() <= Duration::from_secs(30));
    }
}
