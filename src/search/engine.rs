//! `rookery`, the strong engine, behind the common `Engine` trait: owns the hash table and one
//! worker per thread (each with its own preallocated stacks and histories), starts the helpers
//! for each search (Lazy SMP: every thread searches the same root, sharing only the lock-free
//! table), lets the main thread report and decide when to stop, and plays the answer of the
//! thread that saw furthest (`best_thread`).
//!
//! The helpers are threads spawned for each search and joined at its end, not a pool parked
//! between searches: a spawn costs tens of microseconds against the milliseconds of the
//! shortest search, and scoped threads borrow the table, the stop flags and the workers for
//! exactly one search, so a search that is stopped, or a `quit` during one, leaves no thread
//! behind to wake or shut down.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::thread::JoinHandle;

use shakmaty::{Move, Position};

use super::board::SearchBoard;
use super::tt::Tt;
use super::worker::{
    IterationLimits, MAX_SEARCH_PLY, POLL_NODES, POLL_NODES_SHARED_LIMIT, Shared, TbProbe,
    ThreadResult, Worker,
};
use crate::core::Bound;
use crate::core::memory::{self, MB};
use crate::core::score::{INFINITY, MATE_BOUND};
use crate::core::{Game, Limits, Rng, TimeManager};
use crate::engine::{Analysis, Engine, Evaluation, Report, Reporter, Settings};
use crate::error::Error;

/// A generous bound on what one search thread takes besides the hash table: its histories,
/// stacks and correction tables (about 1.4 MB), its net accumulators (about 0.6 MB) and its
/// thread's stack.
pub const THREAD_BYTES: u64 = 4 * MB;

pub struct Rookery {
    tt: Arc<Tt>,
    /// The hash table's ageing pass, when one runs (see `Tt::new_search`).
    ageing: Option<JoinHandle<()>>,
    workers: Vec<Worker>,
    settings: Settings,
    /// The weakened engine's choices (`UCI_LimitStrength`).
    rng: Rng,
    /// The ladder's `rookery-hce`: the hand-crafted evaluation whatever the settings say.
    hand_crafted: bool,
    /// Ageing passes run before the search instead of beside it, so a search by nodes or depth
    /// gives the same result every time (`set_reproducible`).
    reproducible: bool,
}

impl Rookery {
    /// The strong engine at the default settings: the built-in net, one thread, 16 MB.
    pub fn new(seed: u64) -> Rookery {
        Rookery::with_settings(seed, Settings::default(), false)
    }

    /// The strong engine on the hand-crafted evaluation: the ladder's `rookery-hce`.
    pub fn hand_crafted(seed: u64) -> Rookery {
        let settings = Settings {
            eval: Evaluation::Hce,
            ..Settings::default()
        };
        Rookery::with_settings(seed, settings, true)
    }

    fn with_settings(seed: u64, settings: Settings, hand_crafted: bool) -> Rookery {
        let mut worker = Worker::new(0);
        worker.set_evaluation(&settings.eval);
        Rookery {
            tt: Arc::new(Tt::new(settings.hash_mb)),
            ageing: None,
            workers: vec![worker],
            settings,
            rng: Rng::new(seed),
            hand_crafted,
            reproducible: false,
        }
    }

    /// With `on`, the hash table's ageing pass runs before the search it is due at rather than
    /// on a thread beside it (where its race with the search's writes can change a search by
    /// nodes or depth from one run to the next). Self-play data is made so, to be rebuilt
    /// exactly from its seed; the pass walks the table once every `AGEING_PERIOD` searches,
    /// which in self-play at 16 MB cost no measurable time.
    pub fn set_reproducible(&mut self, on: bool) {
        self.reproducible = on;
    }

    /// The settings in force.
    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// Waits for the ageing pass, if one runs (before the table is emptied or replaced).
    fn finish_ageing(&mut self) {
        if let Some(h) = self.ageing.take() {
            let _ = h.join();
        }
    }

    /// Starts a search's generation in the table, and an ageing pass on a thread of its own
    /// when one is due: the pass walks the whole table, which must not hold up the search.
    fn new_search(&mut self) {
        let running = self.ageing.as_ref().is_some_and(|h| !h.is_finished());
        if !running {
            self.finish_ageing();
        }
        if self.tt.new_search(running) {
            if self.reproducible {
                self.tt.age();
                return;
            }
            let tt = self.tt.clone();
            match std::thread::Builder::new()
                .name("rookery-tt-ageing".into())
                .spawn(move || tt.age())
            {
                Ok(h) => self.ageing = Some(h),
                // No thread to be had: age here (rare; the table is still correct).
                Err(_) => self.tt.age(),
            }
        }
    }

    /// Replaces the hash table with one of `mb` megabytes, or keeps the one there is when that
    /// much memory cannot be had. The old table is freed before the new one is allocated, so
    /// resident memory stays near Hash, and the check counts its memory as free.
    fn resize_table(&mut self, mb: usize) -> Result<(), Error> {
        self.finish_ageing();
        let old_mb = self.tt.size_mb();
        let what = format!("a hash table of {mb} MB");
        let kept = |e: Error| Error::Memory(format!("{e}; the hash table stays at {old_mb} MB"));
        memory::check(&what, mb as u64 * MB, old_mb as u64 * MB).map_err(kept)?;
        self.tt = Arc::new(Tt::new(0));
        match Tt::try_new(mb) {
            Ok(t) => {
                self.tt = Arc::new(t);
                Ok(())
            }
            Err(e) => {
                self.tt = Arc::new(Tt::new(old_mb));
                Err(kept(e))
            }
        }
    }
}

/// The internal strength level for a `UCI_Elo`. Levels set the node budget and the noise below;
/// the mapping is fitted to games against Debian's Stockfish 15.1 at its own `UCI_Elo`, at 10 s +
/// 0.1 s per move (a match at each of four levels, docs/strength.md, "UCI_Elo"): level L played
/// like Stockfish's 0.844 L - 196.
fn strength_level(elo: u32) -> f64 {
    (f64::from(elo) + 196.0) / 0.844
}

/// Nodes per move at a playing strength: doubling every 130 levels, from 20 at level 1000.
pub fn strength_nodes(elo: u32) -> u64 {
    let x = (strength_level(elo) - 1000.0) / 130.0;
    (20.0 * 2f64.powf(x)) as u64
}

/// How far (centipawns) the weakened engine's judgement wanders: none from level 2800 on.
pub fn strength_noise(elo: u32) -> i32 {
    ((2800.0 - strength_level(elo)) / 6.0).max(0.0) as i32
}

impl Rookery {
    /// Plays at about `elo`: a search limited in nodes, four candidate lines, and a choice among
    /// them by score plus a random error that grows as the strength falls. The candidates are the
    /// engine's own best four, so weak play is imprecision, not random blunders.
    fn search_weakened(
        &mut self,
        game: &Game,
        limits: &Limits,
        elo: u32,
        report: Reporter<'_>,
    ) -> Analysis {
        let budget = strength_nodes(elo);
        let weak = Limits {
            nodes: Some(limits.nodes.map_or(budget, |n| n.min(budget))),
            multipv: limits.multipv.max(4),
            ..limits.clone()
        };
        let saved = self.settings.limit_elo.take();
        let mut a = self.search(game, &weak, &mut |r| {
            if let Report::CurrentMove { .. } = r {
                report(r)
            }
        });
        self.settings.limit_elo = saved;
        let noise = strength_noise(elo);
        let mut best: Option<(i32, usize)> = None;
        for (i, l) in a.lines.iter().enumerate() {
            let err = if noise > 0 {
                self.rng.below(2 * noise as u64 + 1) as i32 - noise
            } else {
                0
            };
            if best.is_none_or(|(s, _)| l.score + err > s) {
                best = Some((l.score + err, i));
            }
        }
        if let Some((_, i)) = best {
            let chosen = a.lines.remove(i);
            a.best = chosen.pv.first().copied();
            a.score = Some(chosen.score);
            a.pv = chosen.pv.clone();
            a.lines.insert(0, chosen);
        }
        report(Report::Iteration(&a));
        a
    }
}

impl Engine for Rookery {
    fn name(&self) -> &'static str {
        if self.hand_crafted {
            "rookery-hce"
        } else {
            "rookery"
        }
    }

    fn search(&mut self, game: &Game, limits: &Limits, report: Reporter<'_>) -> Analysis {
        if let Some(elo) = self.settings.limit_elo {
            return self.search_weakened(game, limits, elo, report);
        }
        let root = SearchBoard::new(game.position().clone());
        let mut moves: Vec<Move> = root.pos.legal_moves().to_vec();
        if !limits.searchmoves.is_empty() {
            moves.retain(|m| limits.searchmoves.contains(m));
        }
        if moves.is_empty() {
            return Analysis::default();
        }
        self.new_search();
        // In the tablebases: search only the moves that keep the result and make the fastest
        // safe progress (the search still picks among them and reports its lines).
        let tb = self.settings.syzygy.as_ref();
        let tb_limit = self.settings.syzygy_probe_limit as usize;
        let mut root_tbhits = 0;
        if let Some(kept) = tb.and_then(|t| t.root_moves(&root.pos, tb_limit)) {
            root_tbhits = moves.len() as u64;
            let filtered: Vec<Move> = moves
                .iter()
                .copied()
                .filter(|m| kept.iter().any(|r| r.mv == *m))
                .collect();
            if !filtered.is_empty() {
                moves = filtered;
            }
        }
        let stop = AtomicBool::new(false);
        let threads = self.workers.len();
        let nodes: Vec<AtomicU64> = (0..threads).map(|_| AtomicU64::new(0)).collect();
        let tbhits: Vec<AtomicU64> = (0..threads).map(|_| AtomicU64::new(0)).collect();
        let searching: Vec<AtomicU32> = (0..=MAX_SEARCH_PLY).map(|_| AtomicU32::new(0)).collect();
        let poll = if threads > 1 && limits.nodes.is_some() {
            POLL_NODES_SHARED_LIMIT
        } else {
            POLL_NODES
        };
        let shared = Shared {
            tt: &self.tt,
            stop: &stop,
            external_stop: limits.stop.as_deref(),
            nodes: &nodes,
            poll_mask: poll - 1,
            searching: &searching,
            node_limit: limits.nodes,
            tb: tb.map(|t| TbProbe {
                tables: t,
                limit: tb_limit,
                depth: self.settings.syzygy_probe_depth as i32,
            }),
            tbhits: &tbhits,
        };
        let iteration_limits = IterationLimits {
            max_depth: limits.depth.map_or(MAX_SEARCH_PLY as i32, |d| {
                (d as i32).clamp(1, MAX_SEARCH_PLY as i32)
            }),
            // Exact scores for every root move (`rookery analyse`) is MultiPV over all of them.
            multipv: if limits.score_all_moves && limits.multipv <= 1 {
                moves.len()
            } else {
                limits.multipv.max(1)
            },
            mate: limits.mate,
            restricted: !limits.searchmoves.is_empty(),
            soft_nodes: limits.soft_nodes,
        };
        for w in &mut self.workers {
            w.prepare(game, &moves);
            w.time = None;
        }
        self.workers[0].time = Some(TimeManager::new(limits));
        self.workers[0].tbhits = root_tbhits;
        let (main, helpers) = self.workers.split_at_mut(1);
        let main = &mut main[0];
        std::thread::scope(|s| {
            for h in helpers.iter_mut() {
                let (shared, root) = (&shared, &root);
                // A worker that cannot have a thread (a limit on threads or memory) is left
                // out: the search runs with fewer.
                let _ = std::thread::Builder::new().spawn_scoped(s, move || {
                    h.iterate(shared, root, iteration_limits, &mut |_| {});
                    h.publish_nodes(shared);
                });
            }
            main.iterate(&shared, &root, iteration_limits, report);
            main.publish_nodes(&shared);
            stop.store(true, Ordering::Relaxed);
        });
        // One line asked for: the thread that saw furthest answers. Several lines (MultiPV, or
        // every move scored) are the main thread's, whose iterations were reported.
        let chosen = if iteration_limits.multipv == 1 && threads > 1 {
            let results: Vec<ThreadResult> = self.workers.iter().map(Worker::result).collect();
            best_thread(&results)
        } else {
            0
        };
        let mut analysis = self.workers[chosen].analysis(&shared, iteration_limits.multipv);
        complete_pv(&self.tt, &root, &mut analysis.pv);
        if chosen != 0 {
            // A helper's answer: its line is reported last, with the search's time, so the last
            // `info` line is the one played (the main thread reported only its own).
            analysis.elapsed = self.workers[0]
                .time
                .as_ref()
                .map_or(analysis.elapsed, |t| t.elapsed());
            if let Some(line) = analysis.lines.first_mut()
                && line.pv.first() == analysis.pv.first()
            {
                line.pv.clone_from(&analysis.pv);
            }
            report(Report::Iteration(&analysis));
        }
        analysis
    }

    fn configure(&mut self, settings: &Settings) -> Result<(), Error> {
        let mut result = Ok(());
        let mut settings = settings.clone();
        // `UCI_Elo`'s scale was measured on the hand-crafted evaluation, so the weakened engine
        // plays on it whatever `Evaluation` says.
        if self.hand_crafted || settings.limit_elo.is_some() {
            settings.eval = Evaluation::Hce;
        }
        let mb = settings.hash_mb.max(1);
        if mb != self.tt.size_mb()
            && let Err(e) = self.resize_table(mb)
        {
            settings.hash_mb = self.tt.size_mb();
            result = Err(e);
        }
        let threads = settings.threads.clamp(1, 256);
        if threads > self.workers.len() {
            let more = (threads - self.workers.len()) as u64;
            let what = format!("{threads} search threads");
            if let Err(e) = memory::check(&what, more * THREAD_BYTES, 0) {
                let kept = self.workers.len();
                settings.threads = kept;
                result = result.and(Err(Error::Memory(format!(
                    "{e}; the engine stays at {kept} thread{}",
                    if kept == 1 { "" } else { "s" }
                ))));
            }
        }
        let threads = settings.threads.clamp(1, 256);
        if threads != self.workers.len() {
            self.workers.truncate(threads);
            while self.workers.len() < threads {
                self.workers.push(Worker::new(self.workers.len()));
            }
        }
        if settings.eval != self.settings.eval {
            // The table keeps static evaluations: another evaluation's are no use.
            self.finish_ageing();
            self.tt.clear();
        }
        for w in &mut self.workers {
            w.set_evaluation(&settings.eval);
        }
        self.settings = settings;
        result
    }

    fn new_game(&mut self) {
        self.finish_ageing();
        self.tt.clear();
        for w in &mut self.workers {
            w.clear();
        }
    }

    fn default_limits(&self) -> Limits {
        Limits::movetime_ms(1000)
    }
}

/// A line cut short to its first move (the last iteration stopped during a fail-high re-search,
/// so only the move is known) takes its reply from the table, so a GUI still gets a ponder move.
fn complete_pv(tt: &Tt, root: &SearchBoard, pv: &mut Vec<Move>) {
    if pv.len() != 1 || !root.pos.is_legal(pv[0]) {
        return;
    }
    let child = root.play(pv[0]);
    if let Some(reply) = tt
        .probe(child.hash)
        .and_then(|e| crate::core::moves::decode_move(&child.pos, e.raw_move))
    {
        pv.push(reply);
    }
}

// A thread's answer is the worker's (`Worker::result`); how two answers compare lives here,
// beside the one choice that uses it.
impl ThreadResult {
    /// A completed iteration stands behind it.
    fn usable(&self) -> bool {
        self.depth > 0 && self.score > -INFINITY
    }

    /// A mate for the side to move that the search proved (a score that is at most this good
    /// proves nothing).
    fn proven_mate(&self) -> bool {
        self.score >= MATE_BOUND && self.bound != Bound::Upper
    }

    /// Whether this answer is to be played rather than `other`: a proven mate first (the
    /// shorter of two), then the deeper completed iteration, then, at equal depth, an answer
    /// that did not fail low over one that did, then the higher score.
    fn beats(&self, other: &ThreadResult) -> bool {
        if !self.usable() {
            return false;
        }
        if !other.usable() {
            return true;
        }
        match (self.proven_mate(), other.proven_mate()) {
            (true, true) => return self.score > other.score,
            (true, false) => return true,
            (false, true) => return false,
            (false, false) => {}
        }
        if self.depth != other.depth {
            return self.depth > other.depth;
        }
        let (low, other_low) = (self.bound == Bound::Upper, other.bound == Bound::Upper);
        if low != other_low {
            return other_low;
        }
        self.score > other.score
    }
}

/// The thread whose answer is played, from each thread's result (the main thread first): the
/// one that `ThreadResult::beats` all the others, the earliest of equals. A thread that went
/// deeper has seen everything a shallower one saw through the shared table and more; a vote
/// weighted by depth and score could play a shallower thread's move over it.
fn best_thread(results: &[ThreadResult]) -> usize {
    let mut best = 0;
    for (i, r) in results.iter().enumerate().skip(1) {
        if r.beats(&results[best]) {
            best = i;
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::Bound;
    use shakmaty::uci::UciMove;

    fn uci(pos: &shakmaty::Chess, s: &str) -> Move {
        s.parse::<UciMove>().unwrap().to_move(pos).unwrap()
    }

    fn result(depth: i32, score: i32, bound: Bound) -> ThreadResult {
        ThreadResult {
            depth,
            score,
            bound,
        }
    }

    #[test]
    fn the_thread_that_saw_furthest_answers() {
        use crate::core::score::{INFINITY, mate_in, mated_in};
        use Bound::{Exact, Lower, Upper};
        // Deeper wins, whatever the scores.
        assert_eq!(
            best_thread(&[result(10, 80, Exact), result(11, 20, Exact)]),
            1
        );
        assert_eq!(
            best_thread(&[result(12, -50, Exact), result(11, 90, Exact)]),
            0
        );
        // Equal depth: the better score, the earliest of equals.
        let even = [
            result(9, 20, Exact),
            result(9, 45, Exact),
            result(9, 30, Exact),
        ];
        assert_eq!(best_thread(&even), 1);
        assert_eq!(
            best_thread(&[result(9, 20, Exact), result(9, 20, Exact)]),
            0
        );
        // At equal depth an answer that failed low loses to one that did not, even scored higher.
        assert_eq!(
            best_thread(&[result(9, 20, Exact), result(9, 60, Upper)]),
            0
        );
        assert_eq!(
            best_thread(&[result(9, 20, Upper), result(9, 10, Lower)]),
            1
        );
        // A proven mate beats any depth; the shorter of two mates wins.
        assert_eq!(
            best_thread(&[result(20, 300, Exact), result(8, mate_in(9), Exact)]),
            1
        );
        let mates = [
            result(12, mate_in(7), Exact),
            result(9, mate_in(3), Lower),
            result(14, mate_in(5), Exact),
        ];
        assert_eq!(best_thread(&mates), 1);
        // A mate score that is only an upper bound proves nothing: depth decides.
        assert_eq!(
            best_thread(&[result(10, 40, Exact), result(9, mate_in(5), Upper)]),
            0
        );
        // Being mated: the deeper search still decides, and of equal depths the longer mate.
        assert_eq!(
            best_thread(&[result(7, 0, Exact), result(9, mated_in(6), Exact)]),
            1
        );
        assert_eq!(
            best_thread(&[result(9, mated_in(4), Exact), result(9, mated_in(8), Exact)]),
            1
        );
        // A thread with no completed iteration is never played, one with one always is.
        assert_eq!(
            best_thread(&[result(3, -200, Exact), result(0, 500, Exact)]),
            0
        );
        assert_eq!(
            best_thread(&[result(0, -INFINITY, Upper), result(1, -20, Exact)]),
            1
        );
        assert_eq!(best_thread(&[result(0, -INFINITY, Upper)]), 0);
    }

    #[test]
    fn a_one_move_line_takes_its_reply_from_the_table() {
        let tt = Tt::new(1);
        let root = SearchBoard::new(shakmaty::Chess::default());
        let e4 = uci(&root.pos, "e2e4");
        let mut pv = vec![e4];
        complete_pv(&tt, &root, &mut pv);
        assert_eq!(pv.len(), 1, "nothing in the table: the line stays as it is");
        let child = root.play(e4);
        let e5 = uci(&child.pos, "e7e5");
        tt.store(child.hash, Some(e5), 0, 0, 5, Bound::Exact, false);
        complete_pv(&tt, &root, &mut pv);
        assert_eq!(pv, vec![e4, e5]);
        let mut longer = vec![e4, e5, uci(&child.play(e5).pos, "g1f3")];
        complete_pv(&tt, &root, &mut longer);
        assert_eq!(longer.len(), 3, "a full line is left alone");
    }

    /// Searches by nodes from the start position until an ageing pass has been due: the
    /// engine's node counts, and whether a pass was left running beside the search.
    fn searches_past_an_ageing_pass(engine: &mut Rookery) -> (Vec<u64>, bool) {
        let game = Game::new(shakmaty::Chess::default());
        let limits = Limits {
            nodes: Some(300),
            ..Limits::default()
        };
        let mut nodes = Vec::new();
        let mut beside = false;
        for _ in 0..crate::search::tt::AGEING_PERIOD + 2 {
            let a = engine.search(&game, &limits, &mut |_| {});
            nodes.push(a.nodes);
            beside |= engine.ageing.is_some();
        }
        (nodes, beside)
    }

    #[test]
    fn a_reproducible_engine_ages_its_table_between_searches() {
        let mut engine = Rookery::new(1);
        engine.set_reproducible(true);
        let (first, beside) = searches_past_an_ageing_pass(&mut engine);
        assert!(
            !beside,
            "no pass runs beside a reproducible engine's search"
        );
        engine.new_game();
        let (again, _) = searches_past_an_ageing_pass(&mut engine);
        assert_eq!(first, again);
        // A game's engine starts the pass on a thread of its own (where one can be had).
        let mut engine = Rookery::new(1);
        let (_, beside) = searches_past_an_ageing_pass(&mut engine);
        assert!(beside, "the pass runs beside the search by default");
    }
    #[test]
    fn a_soft_node_limit_ends_with_the_iteration_that_passes_it() {
        let game =
            Game::from_fen("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3")
                .unwrap();
        let mut engine = Rookery::new(1);
        engine.set_reproducible(true);
        let mut fresh = |limits: &Limits| {
            engine.new_game();
            engine.search(&game, limits, &mut |_| {})
        };
        let soft = Limits {
            nodes: Some(1_000_000),
            soft_nodes: Some(3_000),
            ..Limits::default()
        };
        let a = fresh(&soft);
        assert!(a.nodes >= 3_000 && a.nodes < 1_000_000, "{}", a.nodes);
        // The same search as one to the depth it finished: no iteration was cut short.
        let deep = fresh(&Limits::depth(a.depth));
        assert_eq!(
            (deep.nodes, deep.best, deep.score),
            (a.nodes, a.best, a.score)
        );
        // A hard count stops in the middle of an iteration, exactly where it says.
        let hard = fresh(&Limits {
            nodes: Some(3_000),
            ..Limits::default()
        });
        assert_eq!(hard.nodes, 3_000);
        assert!(hard.depth <= a.depth);
        // The hard count still caps a soft one.
        let capped = fresh(&Limits {
            nodes: Some(3_000),
            soft_nodes: Some(1_000_000),
            ..Limits::default()
        });
        assert_eq!(capped.nodes, 3_000);
    }
}
