//! `rookery mate`: prove a forced mate in N (or that there is none), with the solution line and
//! the positions searched; or, with `--suite`, solve every position of an EPD file.

use std::time::Instant;

use clap::Args;

use crate::core::game::{parse_fen, san_line};
use crate::epd;
use crate::error::Error;
use crate::mate::Solver;

#[derive(Args, Debug)]
pub struct MateArgs {
    /// The problem position
    #[arg(long, required_unless_present = "suite")]
    pub fen: Option<String>,
    /// Longest mate to look for, in moves
    #[arg(long, default_value_t = 3)]
    pub moves: u32,
    /// Solve every position of an EPD file (a mate within --moves must exist in each)
    #[arg(long, value_name = "FILE", conflicts_with = "fen")]
    pub suite: Option<String>,
}

pub fn run(args: MateArgs) -> Result<i32, Error> {
    let start = Instant::now();
    let mut solver = Solver::default();
    if let Some(path) = &args.suite {
        let records = epd::read(path)?;
        let mut unsolved = Vec::new();
        for r in &records {
            if solver.solve(&r.pos, args.moves).is_none() {
                unsolved.push(r.id());
            }
        }
        println!(
            "Solved {}/{} within {} moves; {} positions searched in {} ms",
            records.len() - unsolved.len(),
            records.len(),
            args.moves,
            solver.nodes,
            start.elapsed().as_millis()
        );
        if !unsolved.is_empty() {
            println!("Unsolved: {}", unsolved.join(", "));
            return Ok(1);
        }
        return Ok(0);
    }
    let fen = args.fen.as_deref().unwrap_or_default();
    let pos = parse_fen(fen)?;
    let found = solver.solve(&pos, args.moves);
    let ms = start.elapsed().as_millis();
    match found {
        Some(sol) => {
            println!("Mate in {}: {}", sol.moves, san_line(&pos, &sol.line));
            println!("Positions searched: {} in {ms} ms", solver.nodes);
            Ok(0)
        }
        None => {
            println!("No mate in {} or fewer moves", args.moves);
            println!("Positions searched: {} in {ms} ms", solver.nodes);
            Ok(1)
        }
    }
}
