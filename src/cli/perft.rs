//! `rookery perft`: leaf counts of the move tree, for one position (optionally divided by root
//! move) or for a whole EPD suite of known counts.

use std::time::Instant;

use clap::Args;

use crate::core::game::{parse_fen, uci};
use crate::error::Error;
use crate::perft::{divide, parse_suite, perft};

#[derive(Args, Debug)]
pub struct PerftArgs {
    /// Depth in plies (not needed with --suite)
    #[arg(required_unless_present = "suite")]
    pub depth: Option<u32>,
    /// The position [default: the initial position]
    #[arg(long, conflicts_with = "suite")]
    pub fen: Option<String>,
    /// Print the count below each root move
    #[arg(long, conflicts_with = "suite")]
    pub divide: bool,
    /// Check every position of an EPD perft suite (`FEN ;D1 n ;D2 n ...`)
    #[arg(long, value_name = "FILE")]
    pub suite: Option<String>,
    /// With --suite: check depths up to this one only
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub max_depth: Option<u32>,
}

pub fn run(args: PerftArgs) -> Result<i32, Error> {
    if let Some(path) = &args.suite {
        return run_suite(path, args.max_depth.or(args.depth).unwrap_or(u32::MAX));
    }
    let depth = crate::perft::check_depth(args.depth.unwrap_or(1))?;
    let pos = match &args.fen {
        Some(f) => parse_fen(f)?,
        None => shakmaty::Chess::default(),
    };
    let start = Instant::now();
    let nodes = if args.divide {
        let mut total = 0;
        for (m, n) in divide(&pos, depth) {
            println!("{}: {n}", uci(m));
            total += n;
        }
        println!();
        total
    } else {
        perft(&pos, depth)
    };
    let secs = start.elapsed().as_secs_f64();
    println!(
        "Time: {} ms, {:.0} nodes/s",
        (secs * 1000.0) as u64,
        nodes as f64 / secs.max(1e-9)
    );
    println!("Nodes searched: {nodes}");
    Ok(0)
}

fn run_suite(path: &str, max_depth: u32) -> Result<i32, Error> {
    let text = crate::core::memory::read_text(path.as_ref(), crate::core::memory::MAX_INPUT)
        .map_err(|e| Error::io(path, e))?;
    let cases = parse_suite(&text)?;
    if cases.is_empty() {
        return Err(Error::Invalid(format!("{path}: no positions")));
    }
    let start = Instant::now();
    let (mut passed, mut failed) = (0, 0);
    for (i, case) in cases.iter().enumerate() {
        let pos = parse_fen(&case.fen)?;
        let name = case.id.clone().unwrap_or_else(|| format!("#{}", i + 1));
        let mut problems = Vec::new();
        let mut checked = 0;
        for &(depth, expected) in case.counts.iter().filter(|(d, _)| *d <= max_depth) {
            let got = perft(&pos, depth);
            checked = checked.max(depth);
            if got != expected {
                problems.push(format!("D{depth} expected {expected}, got {got}"));
            }
        }
        if problems.is_empty() {
            passed += 1;
            println!("pass {name} (to depth {checked}) {}", case.fen);
        } else {
            failed += 1;
            println!("FAIL {name} {}: {}", case.fen, problems.join("; "));
        }
    }
    println!(
        "{passed} passed, {failed} failed ({} positions, {:.1} s)",
        cases.len(),
        start.elapsed().as_secs_f64()
    );
    Ok(if failed == 0 { 0 } else { 1 })
}
