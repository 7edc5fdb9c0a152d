//! `rookery`, the strong engine, behind the common `Engine` trait: owns the hash table and one
//! worker per thread (each with its own preallocated stacks and histories), starts the helpers
//! for each search (Lazy SMP: every thread searches the same root, sharing only the lock-free
//! table), and lets the main thread report and decide when to stop.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use shakmaty::{Move, Position};

use super::board::Board;
use super::time::TimeManager;
use super::tt::Tt;
use super::worker::{IterationLimits, MAX_PLY, Shared, Worker};
use crate::core::{Game, Limits};
use crate::engine::{Analysis, Engine, EngineOptions, Report, Settings};
use crate::ladder::book::Opening;

pub struct Rookery {
    tt: Tt,
    workers: Vec<Worker>,
    settings: Settings,
    opening: Opening,
}

impl Rookery {
    pub fn new(options: &EngineOptions) -> Rookery {
        let settings = Settings::default();
        Rookery {
            tt: Tt::new(settings.hash_mb),
            workers: vec![Worker::new(0)],
            settings,
            opening: Opening::new(options),
        }
    }

    /// The settings in force.
    pub fn settings(&self) -> &Settings {
        &self.settings
    }
}

impl Engine for Rookery {
    fn name(&self) -> &'static str {
        "rookery"
    }

    fn analyse(&mut self, game: &Game, limits: &Limits) -> Analysis {
        self.search(game, limits, &mut |_| {})
    }

    fn search(
        &mut self,
        game: &Game,
        limits: &Limits,
        report: &mut dyn FnMut(Report<'_>),
    ) -> Analysis {
        if let Some(a) = self.opening.book_move(game) {
            report(Report::Iteration(&a));
            return a;
        }
        let root = Board::new(game.position().clone());
        let mut moves: Vec<Move> = root.pos.legal_moves().to_vec();
        if !limits.searchmoves.is_empty() {
            moves.retain(|m| limits.searchmoves.contains(m));
        }
        if moves.is_empty() {
            return Analysis::default();
        }
        self.tt.new_search();
        let stop = AtomicBool::new(false);
        let nodes: Vec<AtomicU64> = (0..self.workers.len()).map(|_| AtomicU64::new(0)).collect();
        let shared = Shared {
            tt: &self.tt,
            stop: &stop,
            external_stop: limits.stop.as_deref(),
            nodes: &nodes,
            node_limit: limits.nodes,
        };
        let iteration_limits = IterationLimits {
            max_depth: limits
                .depth
                .map_or(MAX_PLY as i32, |d| (d as i32).clamp(1, MAX_PLY as i32)),
            multipv: limits.multipv.max(1),
            mate: limits.mate,
        };
        for w in &mut self.workers {
            w.prepare(game, &moves);
            w.time = None;
        }
        self.workers[0].time = Some(TimeManager::new(limits));
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
        main.analysis(&shared, iteration_limits.multipv)
    }

    fn configure(&mut self, settings: &Settings) {
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
