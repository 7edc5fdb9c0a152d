//! `rookery bench`: the engine's signature. A fixed list of 50 positions searched to a fixed depth
//! with one thread and a cleared 16 MB hash table each; the total node count identifies the
//! search exactly (same binary, same count, every run) and the speed is reported beside it. The
//! last line reads `<nodes> nodes <nps> nps`, as OpenBench expects.
//!
//! Positions: the start position, the Bratko-Kopec test (24) and Kaufman's test (25), from the
//! project's shared EPD suites (sources in data/README.md of the shared set).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use crate::core::game::parse_fen;
use crate::core::{Game, Limits};
use crate::engine::{Engine, Evaluation, Settings};
use crate::error::Error;
use crate::search::engine::Rookery;

/// Default bench depth.
pub const DEFAULT_DEPTH: u32 = 11;

pub const POSITIONS: [&str; 50] = [
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "1k1r4/pp1b1R2/3q2pp/4p3/2B5/4Q3/PPP2B2/2K5 b - - 0 1",
    "3r1k2/4npp1/1ppr3p/p6P/P2PPPP1/1NR5/5K2/2R5 w - - 0 1",
    "2q1rr1k/3bbnnp/p2p1pp1/2pPp3/PpP1P1P1/1P2BNNP/2BQ1PRK/7R b - - 0 1",
    "rnbqkb1r/p3pppp/1p6/2ppP3/3N4/2P5/PPP1QPPP/R1B1KB1R w KQkq - 0 1",
    "r1b2rk1/2q1b1pp/p2ppn2/1p6/3QP3/1BN1B3/PPP3PP/R4RK1 w - - 0 1",
    "2r3k1/pppR1pp1/4p3/4P1P1/5P2/1P4K1/P1P5/8 w - - 0 1",
    "1nk1r1r1/pp2n1pp/4p3/q2pPp1N/b1pP1P2/B1P2R2/2P1B1PP/R2Q2K1 w - - 0 1",
    "4b3/p3kp2/6p1/3pP2p/2pP1P2/4K1P1/P3N2P/8 w - - 0 1",
    "2kr1bnr/pbpq4/2n1pp2/3p3p/3P1P1B/2N2N1Q/PPP3PP/2KR1B1R w - - 0 1",
    "3rr1k1/pp3pp1/1qn2np1/8/3p4/PP1R1P2/2P1NQPP/R1B3K1 b - - 0 1",
    "2r1nrk1/p2q1ppp/bp1p4/n1pPp3/P1P1P3/2PBB1N1/4QPPP/R4RK1 w - - 0 1",
    "r3r1k1/ppqb1ppp/8/4p1NQ/8/2P5/PP3PPP/R3R1K1 b - - 0 1",
    "r2q1rk1/4bppp/p2p4/2pP4/3pP3/3Q4/PP1B1PPP/R3R1K1 w - - 0 1",
    "rnb2r1k/pp2p2p/2pp2p1/q2P1p2/8/1Pb2NP1/PB2PPBP/R2Q1RK1 w - - 0 1",
    "2r3k1/1p2q1pp/2b1pr2/p1pp4/6Q1/1P1PP1R1/P1PN2PP/5RK1 w - - 0 1",
    "r1bqkb1r/4npp1/p1p4p/1p1pP1B1/8/1B6/PPPN1PPP/R2Q1RK1 w kq - 0 1",
    "r2q1rk1/1ppnbppp/p2p1nb1/3Pp3/2P1P1P1/2N2N1P/PPB1QP2/R1B2RK1 b - - 0 1",
    "r1bq1rk1/pp2ppbp/2np2p1/2n5/P3PP2/N1P2N2/1PB3PP/R1B1QRK1 b - - 0 1",
    "3rr3/2pq2pk/p2p1pnp/8/2QBPP2/1P6/P5PP/4RRK1 b - - 0 1",
    "r4k2/pb2bp1r/1p1qp2p/3pNp2/3P1P2/2N3P1/PPP1Q2P/2KRR3 w - - 0 1",
    "3rn2k/ppb2rpp/2ppqp2/5N2/2P1P3/1P5Q/PB3PPP/3RR1K1 w - - 0 1",
    "2r2rk1/1bqnbpp1/1p1ppn1p/pP6/N1P1P3/P2B1N1P/1B2QPP1/R2R2K1 b - - 0 1",
    "r1bqk2r/pp2bppp/2p5/3pP3/P2Q1P2/2N1B3/1PP3PP/R4RK1 b kq - 0 1",
    "r2qnrnk/p2b2b1/1p1p2pp/2pPpp2/1PP1P3/PRNBB3/3QNPPP/5RK1 w - - 0 1",
    "rn1qkb1r/pp2pppp/5n2/3p1b2/3P4/2N1P3/PP3PPP/R1BQKBNR w KQkq - 0 1",
    "rn1qkb1r/pp2pppp/5n2/3p1b2/3P4/1QN1P3/PP3PPP/R1B1KBNR b KQkq - 0 1",
    "r1bqk2r/ppp2ppp/2n5/4P3/2Bp2n1/5N1P/PP1N1PP1/R2Q1RK1 b kq - 0 1",
    "r1bqrnk1/pp2bp1p/2p2np1/3p2B1/3P4/2NBPN2/PPQ2PPP/1R3RK1 w - - 0 1",
    "rnbqkb1r/ppp1pppp/5n2/8/3PP3/2N5/PP3PPP/R1BQKBNR b KQkq - 0 1",
    "rnbq1rk1/pppp1ppp/4pn2/8/1bPP4/P1N5/1PQ1PPPP/R1B1KBNR b KQ - 0 1",
    "r4rk1/3nppbp/bq1p1np1/2pP4/8/2N2NPP/PP2PPB1/R1BQR1K1 b - - 0 1",
    "rn1qkb1r/pb1p1ppp/1p2pn2/2p5/2PP4/5NP1/PP2PPBP/RNBQK2R w KQkq c6 0 1",
    "r1bq1rk1/1pp2pbp/p1np1np1/3Pp3/2P1P3/2N1BP2/PP4PP/R1NQKB1R b KQ - 0 1",
    "rnbqr1k1/1p3pbp/p2p1np1/2pP4/4P3/2N5/PP1NBPPP/R1BQ1RK1 w - - 0 1",
    "rnbqkb1r/pppp1ppp/5n2/4p3/4PP2/2N5/PPPP2PP/R1BQKBNR b KQkq f3 0 1",
    "r1bqk1nr/pppnbppp/3p4/8/2BNP3/8/PPP2PPP/RNBQK2R w KQkq - 0 1",
    "rnbq1b1r/ppp2kpp/3p1n2/8/3PP3/8/PPP2PPP/RNBQKB1R b KQ d3 0 1",
    "rnbqkb1r/pppp1ppp/3n4/8/2BQ4/5N2/PPP2PPP/RNB2RK1 b kq - 0 1",
    "r2q1rk1/2p1bppp/p2p1n2/1p2P3/4P1b1/1nP1BN2/PP3PPP/RN1QR1K1 w - - 0 1",
    "r1bqkb1r/2pp1ppp/p1n5/1p2p3/3Pn3/1B3N2/PPP2PPP/RNBQ1RK1 b kq - 0 1",
    "r2qkbnr/2p2pp1/p1pp4/4p2p/4P1b1/5N1P/PPPP1PP1/RNBQ1RK1 w kq - 0 1",
    "r1bqkb1r/pp3ppp/2np1n2/4p1B1/3NP3/2N5/PPP2PPP/R2QKB1R w KQkq e6 0 1",
    "rn1qk2r/1b2bppp/p2ppn2/1p6/3NP3/1BN5/PPP2PPP/R1BQR1K1 w kq - 0 1",
    "r1b1kb1r/1pqpnppp/p1n1p3/8/3NP3/2N1B3/PPP1BPPP/R2QK2R w KQkq - 0 1",
    "r1bqnr2/pp1ppkbp/4N1p1/n3P3/8/2N1B3/PPP2PPP/R2QK2R b KQ - 0 1",
    "r3kb1r/pp1n1ppp/1q2p3/n2p4/3P1Bb1/2PB1N2/PPQ2PPP/RN2K2R w KQkq - 0 1",
    "r1bq1rk1/pppnnppp/4p3/3pP3/1b1P4/2NB3N/PPP2PPP/R1BQK2R w KQ - 0 1",
    "r2qkbnr/ppp1pp1p/3p2p1/3Pn3/4P1b1/2N2N2/PPP2PPP/R1BQKB1R w KQkq - 0 1",
    "rn2kb1r/pp2pppp/1qP2n2/8/6b1/1Q6/PP1PPPBP/RNB1K1NR b KQkq - 0 1",
];

/// One position's result.
pub struct BenchLine {
    pub fen: &'static str,
    pub nodes: u64,
    pub elapsed: Duration,
}

/// The deepest bench a command accepts (depth 11 takes a few seconds; 30 would take days).
pub const MAX_DEPTH: u32 = 30;

/// Checks a bench depth: 1 to `MAX_DEPTH`.
pub fn check_depth(depth: u32) -> Result<u32, Error> {
    Error::bounded("bench depth", depth, 1..=MAX_DEPTH, "")
}

/// Runs the bench at `depth`, calling `each` after every position; returns (nodes, time), or
/// `None` when `stop` was raised before the last position was done (the counts are then not
/// the signature, and must not be shown as one).
pub fn run(
    depth: u32,
    eval: &Evaluation,
    stop: Option<Arc<AtomicBool>>,
    mut each: impl FnMut(usize, &BenchLine),
) -> Result<Option<(u64, Duration)>, Error> {
    let mut engine = Rookery::new(0);
    engine.configure(&Settings {
        eval: eval.clone(),
        ..Settings::default()
    })?;
    let stopped = || stop.as_ref().is_some_and(|s| s.load(Ordering::Relaxed));
    let mut total = 0;
    let mut time = Duration::ZERO;
    for (i, fen) in POSITIONS.iter().enumerate() {
        engine.new_game();
        let game = Game::new(parse_fen(fen).expect("bench positions are valid"));
        let start = Instant::now();
        let limits = Limits {
            stop: stop.clone(),
            ..Limits::depth(depth)
        };
        let a = engine.analyse(&game, &limits);
        if stopped() {
            return Ok(None);
        }
        let line = BenchLine {
            fen,
            nodes: a.nodes,
            elapsed: start.elapsed(),
        };
        total += line.nodes;
        time += line.elapsed;
        each(i, &line);
    }
    Ok(Some((total, time)))
}

/// Runs the bench at `depth` and hands each line of its report to `line`: one per position,
/// then the total `<nodes> nodes <nps> nps`, or `interrupted` when `stop` was raised first.
/// `rookery bench` and UCI `bench` print this. The signature is the default engine's (the
/// built-in net); `--eval hce` (UCI: `Evaluation hce`) gives the hand-crafted evaluation's.
pub fn run_printed(
    depth: u32,
    eval: &Evaluation,
    stop: Option<Arc<AtomicBool>>,
    mut line: impl FnMut(&str),
) -> Result<(), Error> {
    let depth = check_depth(depth)?;
    let done = run(depth, eval, stop, |i, l| {
        line(&format!(
            "{:>2} {:>10} nodes {:>6} ms  {}",
            i + 1,
            l.nodes,
            l.elapsed.as_millis(),
            l.fen
        ));
    })?;
    match done {
        Some((nodes, time)) => line(&format!("{nodes} nodes {} nps", nps(nodes, time))),
        None => line("interrupted"),
    }
    Ok(())
}

/// Nodes per second, guarding against a zero time.
pub fn nps(nodes: u64, time: Duration) -> u64 {
    (nodes as f64 / time.as_secs_f64().max(1e-9)) as u64
}
