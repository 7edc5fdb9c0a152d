//! Time management, one policy for every engine: from the limits, a soft target (don't start
//! another iteration past it) and a hard limit (stop in the middle of one) for this move. The
//! clock starts when the request arrived (`Limits::start`, stamped at UCI `go`). Both shrink as
//! the clock nears a reserve that is never spent (`allocate`). The soft target
//! stretches when the best move keeps changing and shrinks when it is stable; the strong engine
//! also scales it by the best move's share of the search (`effort_factor`) and by the fall of its
//! score (`fall_factor`). While pondering neither applies; after a ponderhit both count from that
//! moment.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use crate::core::Limits;
use crate::core::params::{self, hundredths};

/// Milliseconds of clock above the reserve in which the engine spends less the lower it is: room
/// for what the engine cannot see coming, a client or pipe that stalls for 100-200 ms, which the
/// client's clock (from writing `go` to reading `bestmove`) charges to the engine.
const CUSHION_MS: i64 = 500;

#[derive(Debug)]
pub struct TimeManager {
    start: Instant,
    soft: Option<Duration>,
    hard: Option<Duration>,
    /// The time comes from the clock, so the engine may spend less of it (a forced move).
    from_clock: bool,
    pondering: Option<Arc<AtomicBool>>,
}

impl TimeManager {
    pub fn new(limits: &Limits) -> TimeManager {
        let (soft, hard) = Self::allocate(limits);
        TimeManager {
            start: limits.start.unwrap_or_else(Instant::now),
            soft,
            hard,
            from_clock: !limits.infinite && limits.movetime.is_none() && limits.clock.is_some(),
            pondering: limits
                .pondering
                .clone()
                .filter(|p| p.load(Ordering::Relaxed)),
        }
    }

    /// (soft, hard) for this move.
    fn allocate(limits: &Limits) -> (Option<Duration>, Option<Duration>) {
        if limits.infinite {
            return (None, None);
        }
        let overhead = limits.move_overhead;
        if let Some(t) = limits.movetime {
            let t = t.saturating_sub(overhead).max(Duration::from_millis(1));
            return (Some(t), Some(t));
        }
        let Some(clock) = limits.clock else {
            return (None, None);
        };
        // Milliseconds, bounded so the sums below cannot overflow (2^40 ms is 35 years).
        let ms = |d: Duration| d.as_millis().min(1 << 40) as i64;
        let remaining = ms(clock.remaining);
        let inc = ms(clock.increment);
        let over = ms(overhead);
        let moves = i64::from(
            clock
                .moves_to_go
                .unwrap_or(params::tm_moves() as u32)
                .clamp(1, 40),
        );
        // A reserve of 20 overheads stays on the clock: when it runs low the engine spends
        // less than the increment less the overhead, so the clock settles at the reserve
        // instead of draining toward zero, where one stall of the GUI or the machine flags.
        let reserve = 20 * over;
        // The time for the rest of the horizon: what is on the clock above the reserve plus the
        // increments to come, less the overhead every one of those moves will cost.
        let horizon = (remaining - reserve + inc * (moves - 1) - over * moves).max(1);
        let soft = horizon / moves;
        // Never more than a fraction of what is actually on the clock.
        let on_clock = (remaining - over).max(1);
        let cap = if moves == 1 {
            on_clock * 7 / 10
        } else {
            on_clock * i64::from(params::tm_move_max()) / 100
        };
        // Never into the reserve: above it, at most what leaves the reserve on the clock once
        // this move's increment comes; at or below it, at most three quarters of what the
        // increment brings back (a twentieth of the clock without one), so the clock grows back
        // toward the reserve instead of draining (a soft target stretched for an unstable best
        // move reaches the hard limit).
        let above = remaining - reserve + inc - over;
        let below = if inc > over {
            ((inc - over) * 3 / 4).min(on_clock / 4)
        } else {
            on_clock / 20
        };
        let hard = (soft * i64::from(params::tm_hard_ratio()) / 100)
            .min(cap)
            .min(above.max(below))
            .max(1);
        // In the cushion above the reserve, both shrink in proportion to how deep the clock is
        // into it, the hard limit down to a quarter of the allowance at the reserve: a clock
        // that something outside the engine keeps draining (a client that stalls, whose clock
        // charges the stall to the engine) settles inside the cushion, a stall or two above the
        // reserve, instead of at the reserve, one stall away from a flag.
        let depth = (remaining - reserve).clamp(0, CUSHION_MS);
        let hard = hard.min((hard * depth / CUSHION_MS).max(below / 4)).max(1);
        let soft = (soft * depth / CUSHION_MS).max(1).min(hard);
        (
            Some(Duration::from_millis(soft as u64)),
            Some(Duration::from_millis(hard as u64)),
        )
    }

    /// Restarts the clock if a ponderhit happened since the last look.
    fn check_ponderhit(&mut self) -> bool {
        match &self.pondering {
            Some(p) if p.load(Ordering::Relaxed) => true,
            Some(_) => {
                self.pondering = None;
                self.start = Instant::now();
                false
            }
            None => false,
        }
    }

    /// The time was budgeted from the clock (not a fixed `movetime`), so it may be saved.
    pub fn from_clock(&self) -> bool {
        self.from_clock
    }

    pub fn elapsed(&self) -> Duration {
        self.start.elapsed()
    }

    /// Past the hard limit: stop now.
    pub fn hard_expired(&mut self) -> bool {
        if self.check_ponderhit() {
            return false;
        }
        self.hard.is_some_and(|h| self.start.elapsed() >= h)
    }

    /// Past the soft target, scaled by `stretch` (1.0 normal, more when the best move is unstable):
    /// don't start another iteration. Only time from the clock is scaled: a fixed `movetime` is
    /// spent to the end, as it has nothing to save time for.
    pub fn soft_expired(&mut self, stretch: f64) -> bool {
        if self.check_ponderhit() {
            return false;
        }
        let stretch = if self.from_clock { stretch } else { 1.0 };
        self.soft
            .is_some_and(|s| self.start.elapsed().as_secs_f64() >= s.as_secs_f64() * stretch)
    }
}

/// How the soft target scales with the share of the root's nodes the best move took (`best` of
/// `total`): about 0.65 when it took nearly all of them (the other moves were refuted at once),
/// 1.0 at a 73% share, up to 1.8 when it took under a tenth (the search is torn between moves).
pub fn effort_factor(best: u64, total: u64) -> f64 {
    if total == 0 {
        return 1.0;
    }
    let share = (best as f64 / total as f64).clamp(0.0, 1.0);
    ((hundredths(params::effort_base()) - share) * hundredths(params::effort_scale())).clamp(
        hundredths(params::effort_min()),
        hundredths(params::effort_max()),
    )
}

/// How the soft target scales with the fall of the best score since the last iteration (in
/// centipawns, from the side to move's view): 1.0 for none (or a rise), up to 1.5 for a fall of a
/// pawn or more, so a move that is going wrong is searched longer.
pub fn fall_factor(fall: i32) -> f64 {
    1.0 + f64::from(fall.clamp(0, params::fall_max())) / f64::from(params::fall_divisor())
}

/// Decides when a search must stop: checked at every node, it asks the time manager only every
/// 1024 nodes so the test costs almost nothing. The ladder's searches use it.
#[derive(Debug)]
pub struct Stopper {
    time: TimeManager,
    max_nodes: Option<u64>,
    flag: Option<Arc<AtomicBool>>,
    stopped: bool,
}

impl Stopper {
    pub fn new(limits: &Limits) -> Stopper {
        Stopper {
            time: TimeManager::new(limits),
            max_nodes: limits.nodes,
            flag: limits.stop.clone(),
            stopped: false,
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
            self.stopped = self.time.hard_expired()
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
        self.time.elapsed()
    }

    /// Past the time manager's target for this move: not worth starting another iteration.
    pub fn no_new_iteration(&mut self) -> bool {
        self.time.soft_expired(1.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::Clock;

    fn clock(ms: u64, inc: u64, mtg: Option<u32>) -> Limits {
        Limits {
            clock: Some(Clock {
                remaining: Duration::from_millis(ms),
                increment: Duration::from_millis(inc),
                moves_to_go: mtg,
            }),
            move_overhead: Duration::from_millis(10),
            ..Limits::default()
        }
    }

    #[test]
    fn never_more_than_the_clock_allows() {
        for (ms, inc, mtg) in [
            (50, 0, None),
            (1000, 10, None),
            (60_000, 0, Some(1)),
            (100, 5000, None),
            (20, 0, Some(3)),
        ] {
            let (soft, hard) = TimeManager::allocate(&clock(ms, inc, mtg));
            let (soft, hard) = (soft.unwrap(), hard.unwrap());
            assert!(soft <= hard, "{ms} {inc}");
            assert!(
                hard.as_millis() as u64 <= ms.saturating_sub(10).max(1),
                "{ms} {inc}: {hard:?}"
            );
        }
        let (soft, _) = TimeManager::allocate(&clock(60_000, 1000, None));
        assert!(soft.unwrap() >= Duration::from_millis(2000));
        // A low clock with an increment spends less than the increment less the overhead, so
        // it grows back.
        for ms in [30, 60, 100] {
            let (soft, _) = TimeManager::allocate(&clock(ms, 10, None));
            assert!(soft.unwrap() < Duration::from_millis(5), "{ms}: {soft:?}");
        }
        // In the cushion above the reserve (200 ms here, the cushion 500 ms above it) a move
        // spends less than the increment brings, the less the deeper; above it, more.
        let mut last = Duration::ZERO;
        for ms in [250, 300, 400, 500] {
            let (soft, _) = TimeManager::allocate(&clock(ms, 50, None));
            let soft = soft.unwrap();
            assert!(
                soft + Duration::from_millis(10) < Duration::from_millis(50),
                "{ms}: {soft:?}"
            );
            assert!(soft > last, "{ms}: {soft:?}");
            last = soft;
        }
        let (soft, _) = TimeManager::allocate(&clock(900, 50, None));
        assert!(soft.unwrap() > Duration::from_millis(60), "{soft:?}");
    }

    /// A client that stalls on every fifth move, 150 ms charged to the engine as a client's
    /// clock charges it, at 5 s + 0.05 s, with each move taking its whole hard limit plus the
    /// overhead (the worst a search can do within its limits): the clock never gets near zero.
    /// Without the cushion it drained to the reserve, where a stall took it 81 ms below zero.
    #[test]
    fn the_cushion_absorbs_a_stalling_client() {
        let mut left: i64 = 5_000;
        let mut least = left;
        for mv in 1..=300 {
            let (_, hard) = TimeManager::allocate(&clock(left as u64, 50, None));
            let stall = if mv % 5 == 0 { 150 } else { 0 };
            left -= hard.unwrap().as_millis() as i64 + 10 + stall;
            least = least.min(left);
            left += 50;
        }
        assert!(least > 100, "least {least} ms");
    }

    /// Each move takes its whole hard limit plus the overhead, and the increment comes back:
    /// the worst a search can do within its limits. With an increment above the overhead the
    /// clock never drops below the reserve (or below where it started, when it started below
    /// it), and from below it grows back.
    #[test]
    fn the_reserve_is_never_spent() {
        for (start, inc) in [(5_000, 50), (60_000, 100), (1_000, 15), (150, 50), (30, 20)] {
            let mut left: i64 = start;
            let floor = start.min(200);
            for mv in 0..300 {
                let (_, hard) = TimeManager::allocate(&clock(left as u64, inc as u64, None));
                left = left - hard.unwrap().as_millis() as i64 - 10 + inc;
                assert!(left >= floor, "{start}+{inc}, move {mv}: {left} ms left");
            }
            if start < 200 {
                assert!(left > start, "{start}+{inc}: grows back, to {left}");
            }
        }
        // 150 ms left, below the reserve of 200: a short move, well under what the
        // increment brings back.
        let (soft, hard) = TimeManager::allocate(&clock(150, 50, None));
        assert!(hard.unwrap() <= Duration::from_millis(30), "{hard:?}");
        assert!(soft <= hard);
        // Absurd clocks do not overflow.
        let (soft, hard) =
            TimeManager::allocate(&clock(u64::MAX / 2, u64::MAX / 2, Some(u32::MAX)));
        assert!(soft.unwrap() <= hard.unwrap());
    }

    #[test]
    fn the_clock_runs_from_the_request() {
        // A request that arrived 50 ms ago with 30 ms to spend is already out of time, however
        // late the engine starts on it (after a book probe or the tablebase filter, say).
        let limits = Limits {
            movetime: Some(Duration::from_millis(30)),
            start: Some(Instant::now() - Duration::from_millis(50)),
            ..Limits::default()
        };
        let mut tm = TimeManager::new(&limits);
        assert!(tm.hard_expired());
        assert!(tm.elapsed() >= Duration::from_millis(50));
        // Without a stamp, the clock starts with the time manager.
        let mut fresh = TimeManager::new(&Limits::movetime_ms(1000));
        assert!(!fresh.hard_expired());
    }

    #[test]
    fn pondering_has_no_deadline_until_ponderhit() {
        let flag = Arc::new(AtomicBool::new(true));
        let mut limits = clock(10, 0, None);
        limits.pondering = Some(flag.clone());
        let mut tm = TimeManager::new(&limits);
        std::thread::sleep(Duration::from_millis(5));
        assert!(!tm.hard_expired());
        flag.store(false, Ordering::Relaxed);
        assert!(!tm.hard_expired(), "the clock restarts at ponderhit");
    }

    #[test]
    fn a_move_that_took_most_of_the_effort_gets_less_time() {
        assert_eq!(effort_factor(0, 0), 1.0);
        let mut last = f64::INFINITY;
        for pct in 0..=100u64 {
            let f = effort_factor(pct, 100);
            assert!((0.5..=1.8).contains(&f), "{pct}%: {f}");
            assert!(f <= last, "not falling at {pct}%");
            last = f;
        }
        assert!(effort_factor(95, 100) < 0.75);
        assert!(effort_factor(30, 100) > 1.5);
        assert!((effort_factor(73, 100) - 1.0).abs() < 0.01);
    }

    #[test]
    fn a_falling_score_gets_more_time() {
        assert_eq!(fall_factor(-300), 1.0, "a rise");
        assert_eq!(fall_factor(0), 1.0);
        assert_eq!(fall_factor(50), 1.25);
        assert_eq!(fall_factor(100), 1.5);
        assert_eq!(fall_factor(i32::MAX), 1.5, "capped");
    }

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
}
