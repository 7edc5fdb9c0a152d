//! `rookery`, the strong engine, behind the common `Engine` trait: owns the hash table and one
//! worker per thread (each with its own preallocated stacks and histories), starts the helpers
//! for each search (Lazy SMP: every thread searches the same root, sharing only the lock-free
//! table), and lets the main thread report and decide when to stop.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use shakmaty::{Move, Position};

use super::board::SearchBoard;
use super::tt::Tt;
use super::worker::{IterationLimits, MAX_SEARCH_PLY, Shared, TbProbe, Worker};
use crate::core::{Game, Limits, Rng, TimeManager};
use crate::engine::{Analysis, Engine, Evaluation, Report, Reporter, Settings};

pub struct Rookery {
    tt: Tt,
    workers: Vec<Worker>,
    settings: Settings,
    /// The weakened engine's choices (`UCI_LimitStrength`).
    rng: Rng,
    /// The ladder's `rookery-nnue`: the learned evaluation whatever the settings say (the
    /// built-in net unless they name another).
    learned: bool,
}

impl Rookery {
    pub fn new(seed: u64) -> Rookery {
        let settings = Settings::default();
        Rookery {
            tt: Tt::new(settings.hash_mb),
            workers: vec![Worker::new(0)],
            settings,
            rng: Rng::new(seed),
            learned: false,
        }
    }

    /// The strong engine on the learned evaluation: the ladder's `rookery-nnue`.
    pub fn learned(seed: u64) -> Rookery {
        let mut r = Rookery::new(seed);
        r.learned = true;
        r.configure(&Settings::default());
        r
    }

    /// The settings in force.
    pub fn settings(&self) -> &Settings {
        &self.settings
    }
}

/// The internal strength level for a `UCI_Elo`. Levels set the node budget and the noise below;
/// the mapping is fitted to games against Debian's Stockfish 15.1 at its own `UCI_Elo`, at 10 s +
/// 0.1 s per move (140 games at four levels, see README): level L played like Stockfish's
/// 0.844 L - 196.
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
        if self.learned {
            "rookery-nnue"
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
        self.tt.new_search();
        let stop = AtomicBool::new(false);
        let nodes: Vec<AtomicU64> = (0..self.workers.len()).map(|_| AtomicU64::new(0)).collect();
        let tbhits: Vec<AtomicU64> = (0..self.workers.len()).map(|_| AtomicU64::new(0)).collect();
        let shared = Shared {
            tt: &self.tt,
            stop: &stop,
            external_stop: limits.stop.as_deref(),
            nodes: &nodes,
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
                s.spawn(move || {
                    h.iterate(shared, root, iteration_limits, &mut |_| {});
                    h.publish_nodes(shared);
                });
            }
            main.iterate(&shared, &root, iteration_limits, report);
            main.publish_nodes(&shared);
            stop.store(true, Ordering::Relaxed);
        });
        let mut analysis = main.analysis(&shared, iteration_limits.multipv);
        complete_pv(&self.tt, &root, &mut analysis.pv);
        analysis
    }

    fn configure(&mut self, settings: &Settings) {
        let learned;
        let settings = if self.learned && settings.eval == Evaluation::Hce {
            learned = Settings {
                eval: Evaluation::builtin_net(),
                ..settings.clone()
            };
            &learned
        } else {
            settings
        };
        if settings.hash_mb != self.settings.hash_mb {
            // Free the old table before allocating the new one: resident size stays near Hash.
            self.tt = Tt::new(0);
            self.tt = Tt::new(settings.hash_mb.max(1));
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
            self.tt.clear();
        }
        for w in &mut self.workers {
            w.set_evaluation(&settings.eval);
        }
        self.settings = settings.clone();
    }

    fn new_game(&mut self) {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::Bound;
    use shakmaty::uci::UciMove;

    fn uci(pos: &shakmaty::Chess, s: &str) -> Move {
        s.parse::<UciMove>().unwrap().to_move(pos).unwrap()
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
}
