//! Benchmarks the tutorial timed: greedy against greedy-incremental on its three positions, perft
//! from the start position, and the search rungs at depths 3 and 4 on its middlegame position
//! (their node counts are printed once before timing).

use std::hint::black_box;
use std::time::Instant;

use criterion::{Criterion, criterion_group, criterion_main};
use rookery::core::trace::NoTrace;
use rookery::core::{Game, Limits};
use rookery::engine::EngineOptions;
use rookery::ladder::{alphabeta, minimax, negamax};
use rookery::perft::perft;
use rookery::registry;

const POSITIONS: [(&str, &str); 3] = [
    ("endgame", "8/8/4kpp1/3p1b2/p6P/2B5/6P1/6K1 b - - 0 47"),
    (
        "tactical",
        "r4k1r/1b2bPR1/p4n2/3p4/4P2P/1q2B2B/PpP5/1K4R1 w - - 0 26",
    ),
    ("promotion", "Kn2rn1k/1p2P3/8/8/8/8/8/8 w - - 0 1"),
];
const MIDDLEGAME: &str = "r1bqrnk1/pp2bppp/2p2n2/3p2B1/3P4/2NBPN2/PPQ2PPP/R4RK1 w - - 7 11";

fn greedy(c: &mut Criterion) {
    let mut group = c.benchmark_group("greedy");
    for (name, fen) in POSITIONS {
        let game = Game::from_fen(fen).unwrap();
        for engine_name in ["greedy", "greedy-incremental"] {
            let mut e = registry::create(engine_name, &EngineOptions::default()).unwrap();
            group.bench_function(format!("{engine_name}/{name}"), |b| {
                b.iter(|| black_box(e.analyse(&game, &Limits::depth(1))))
            });
        }
    }
    group.finish();
}

fn perft_start(c: &mut Criterion) {
    let pos = shakmaty::Chess::default();
    let mut group = c.benchmark_group("perft");
    group.sample_size(10);
    group.bench_function("start/4", |b| b.iter(|| black_box(perft(&pos, 4))));
    group.finish();
}

/// One search at `depth` by name: the fixed-depth rungs directly, `tt` through its engine.
fn search(name: &str, game: &Game, depth: u32) -> u64 {
    let limits = Limits::depth(depth);
    match name {
        "minimax" => minimax::search(game, &limits, depth, &mut NoTrace).nodes,
        "alphabeta" => alphabeta::search(game, &limits, depth, &mut NoTrace).nodes,
        "negamax" => negamax::search(game, &limits, depth, &mut NoTrace).nodes,
        _ => {
            let mut e = registry::create(name, &EngineOptions::default()).unwrap();
            e.analyse(game, &limits).nodes
        }
    }
}

fn searches(c: &mut Criterion) {
    let game = Game::from_fen(MIDDLEGAME).unwrap();
    let rungs = ["minimax", "alphabeta", "negamax", "tt"];
    eprintln!("{:<10} {:>6} {:>10} {:>10}", "rung", "depth", "nodes", "ms");
    for depth in [3, 4] {
        for name in rungs {
            let start = Instant::now();
            let nodes = search(name, &game, depth);
            eprintln!(
                "{name:<10} {depth:>6} {nodes:>10} {:>10.1}",
                start.elapsed().as_secs_f64() * 1e3
            );
        }
    }
    let mut group = c.benchmark_group("search");
    group.sample_size(10);
    for depth in [3, 4] {
        for name in rungs {
            group.bench_function(format!("{name}/depth{depth}"), |b| {
                b.iter(|| black_box(search(name, &game, depth)))
            });
        }
    }
    group.finish();
}

criterion_group!(benches, greedy, perft_start, searches);
criterion_main!(benches);
