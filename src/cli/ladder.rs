//! `rookery ladder`: what each technique buys. Every rung searches the same positions to the same
//! depth (nodes and time), then plays a short match against the rung below it (Elo with its
//! error bar); one table for all.

use std::time::{Duration, Instant};

use clap::Args;

use crate::core::stats::Wdl;
use crate::core::{Game, Limits};
use crate::engine::EngineOptions;
use crate::error::Error;
use crate::registry::{self, ENGINES, EngineInfo};
use crate::tournament::player::{Kind, Limit, PlayerSpec};
use crate::tournament::runner::{self, Adjudication, Config, Schedule};

#[derive(Args, Debug)]
pub struct LadderArgs {
    /// Games of each rung against the rung below (two per opening, colours swapped)
    #[arg(long, default_value_t = 20)]
    pub games: u32,
    /// Depth for the fixed-depth rungs, in games and in the node count
    #[arg(long, default_value_t = 3)]
    pub depth: u32,
    /// Milliseconds a move for the iterative rungs (iterative, tt, quiescence, pst, rookery)
    #[arg(long, default_value_t = 100, value_name = "MS")]
    pub movetime: u64,
    /// Only these rungs, comma-separated (each still plays the one listed before it)
    #[arg(long, value_delimiter = ',')]
    pub rungs: Vec<String>,
    /// Openings for the matches (EPD or PGN) [default: the built-in sample]
    #[arg(long, value_name = "FILE")]
    pub openings: Option<String>,
    /// Games at once
    #[arg(long, default_value_t = 1, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..))]
    pub concurrency: usize,
    /// Adjudicate a draw after this many moves
    #[arg(long, default_value_t = 150)]
    pub maxmoves: u32,
    /// Seed for the openings' order and every random choice
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

/// Positions every rung searches for the node count: the tutorial's middlegame, an open
/// middlegame, a tactical one, an endgame (Bratko-Kopec 1, 2 and 12; the tutorial's position).
const POSITIONS: [&str; 4] = [
    "r1bqrnk1/pp2bppp/2p2n2/3p2B1/3P4/2NBPN2/PPQ2PPP/R4RK1 w - - 7 11",
    "1k1r4/pp1b1R2/3q2pp/4p3/2B5/4Q3/PPP2B2/2K5 b - - 0 1",
    "3r1k2/4npp1/1ppr3p/p6P/P2PPPP1/1NR5/5K2/2R5 w - - 0 1",
    "r3r1k1/ppqb1ppp/8/4p1NQ/8/2P5/PP3PPP/R3R1K1 b - - 0 1",
];

/// Built-in openings: a few balanced positions after two moves each (2moves_v1.epd,
/// official-stockfish/books, CC0).
const OPENINGS: [&str; 6] = [
    "rn1qkbnr/ppp1pppp/8/3p1b2/2P5/1P6/P2PPPPP/RNBQKBNR w KQkq - 0 3",
    "rnbqkbnr/1p1ppppp/p1p5/8/8/4PQ2/PPPP1PPP/RNB1KBNR w KQkq - 0 3",
    "rnbqkbnr/p2ppppp/8/1pp5/8/4P3/PPPPNPPP/RNBQKB1R w KQkq - 0 3",
    "rnbqkbnr/pp1pppp1/2p5/7p/4P1Q1/8/PPPP1PPP/RNB1KBNR w KQkq - 0 3",
    "rnbqkb1r/pppppppp/5n2/8/3P4/8/PPP1PPPP/RNBQKBNR w KQkq - 1 2",
    "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2",
];

fn limit(name: &str, args: &LadderArgs) -> Limit {
    if registry::deepens(name) {
        Limit::MoveTime(Duration::from_millis(args.movetime))
    } else {
        Limit::Depth(args.depth)
    }
}

pub fn run(args: LadderArgs) -> Result<i32, Error> {
    let rungs: Vec<&'static EngineInfo> = if args.rungs.is_empty() {
        ENGINES.iter().collect()
    } else {
        args.rungs
            .iter()
            .map(|r| {
                ENGINES
                    .iter()
                    .find(|e| e.name == r.trim())
                    .ok_or_else(|| registry::unknown(r))
            })
            .collect::<Result<_, _>>()?
    };
    let mut openings = match &args.openings {
        Some(path) => runner::load_openings(path)?,
        None => OPENINGS
            .iter()
            .enumerate()
            .map(|(i, f)| {
                Ok(runner::Opening {
                    start: crate::core::game::parse_fen(f)?,
                    moves: Vec::new(),
                    name: format!("built-in #{}", i + 1),
                })
            })
            .collect::<Result<_, Error>>()?,
    };
    runner::shuffle(&mut openings, args.seed);
    println!(
        "{:<20} {:>12} {:>10}  {:<36}  idea",
        "rung", "nodes", "time", "vs the rung below (Elo 95%)"
    );
    let mut previous: Option<&'static EngineInfo> = None;
    for rung in rungs {
        // Nodes and time to the fixed depth on the fixed positions (one thread, no book).
        let mut e = registry::create(rung.name, &EngineOptions::default())?;
        let (mut nodes, start) = (0, Instant::now());
        for fen in POSITIONS {
            e.new_game();
            nodes += e
                .analyse(&Game::from_fen(fen)?, &Limits::depth(args.depth))
                .nodes;
        }
        let time = start.elapsed();
        let versus =
            previous.map(|below| (below.name, play(rung.name, below.name, &args, &openings)));
        let vs = versus.map_or(String::from("-"), |(below, r)| {
            format!(
                "{below}: +{} ={} -{} {}",
                r.wins,
                r.draws,
                r.losses,
                elo_text(&r)
            )
        });
        println!(
            "{:<20} {:>12} {:>8}ms  {:<36}  {}",
            rung.name,
            nodes,
            time.as_millis(),
            vs,
            rung.idea
        );
        previous = Some(rung);
    }
    println!(
        "\nNodes: searches to depth {} on {} positions. Games: {} a pair, fixed-depth rungs at depth {}, iterative rungs at {} ms a move.",
        args.depth,
        POSITIONS.len(),
        args.games,
        args.depth,
        args.movetime
    );
    Ok(0)
}

fn elo_text(r: &Wdl) -> String {
    let (e, err) = (r.elo(), r.elo_error());
    // No "-0" for an even score.
    let e = if e.abs() < 0.5 { 0.0 } else { e };
    if e.is_finite() && err.is_finite() {
        format!("{e:+.0} +/- {err:.0}")
    } else if e > 0.0 {
        "all won".into()
    } else if e < 0.0 {
        "all lost".into()
    } else {
        "even".into()
    }
}

/// `upper` against `lower`: `upper`'s results.
fn play(upper: &str, lower: &str, args: &LadderArgs, openings: &[runner::Opening]) -> Wdl {
    let spec = |name: &str, i: u64| PlayerSpec {
        name: name.to_string(),
        kind: Kind::Internal {
            engine: name.to_string(),
        },
        limit: limit(name, args),
        options: Vec::new(),
        threads: 1,
        hash_mb: 16,
        syzygy: None,
        seed: args.seed.wrapping_add(i),
    };
    let cfg = Config {
        players: vec![spec(upper, 1), spec(lower, 2)],
        schedule: Schedule::RoundRobin,
        rounds: 1,
        games: args.games.max(1),
        openings: openings.to_vec(),
        concurrency: args.concurrency.max(1),
        adjudication: Adjudication {
            max_moves: Some(args.maxmoves),
            ..Adjudication::default()
        },
        time_margin: Duration::from_millis(50),
        move_timeout: Duration::from_secs(60),
        event: format!("ladder: {upper} vs {lower}"),
    };
    let mut r = Wdl::default();
    runner::run(&cfg, runner::schedule(&cfg), |p| {
        r.add(if p.job.white == 0 {
            p.white_score
        } else {
            1.0 - p.white_score
        });
        true
    });
    r
}
