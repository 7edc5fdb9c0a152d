//! `rookery book build` and `rookery book probe`.

use crate::book::Book;
use crate::book::build::{BuildOptions, build};
use crate::core::game::{parse_fen, san, uci};
use crate::core::pgn;
use crate::error::Error;
use clap::Subcommand;

#[derive(Subcommand, Debug)]
pub enum BookCommand {
    /// Build a Polyglot book from the games of a PGN file
    Build {
        /// The games
        #[arg(long, value_name = "FILE")]
        pgn: String,
        /// The book to write
        #[arg(long, value_name = "FILE")]
        out: String,
        /// Half-moves of each game that go into the book
        #[arg(long, default_value_t = BuildOptions::default().max_plies, value_name = "N")]
        max_plies: usize,
        /// Leave out moves played in fewer games than this
        #[arg(long, default_value_t = BuildOptions::default().min_games, value_name = "N")]
        min_games: u32,
    },
    /// List a book's moves for a position
    Probe {
        /// The book [default: the built-in book]
        #[arg(long, value_name = "FILE")]
        book: Option<String>,
        /// The position [default: the initial position]
        #[arg(long)]
        fen: Option<String>,
    },
}

pub fn run(command: BookCommand) -> Result<i32, Error> {
    match command {
        BookCommand::Build {
            pgn: path,
            out,
            max_plies,
            min_games,
        } => {
            super::args::check_output(&out, "--out")?;
            let games = pgn::read_file(&path)?;
            if games.is_empty() {
                return Err(Error::Invalid(format!("{path}: no games found")));
            }
            let broken = games.iter().filter(|g| g.error.is_some()).count();
            let (bytes, report) = build(
                &games,
                BuildOptions {
                    max_plies,
                    min_games,
                },
            );
            std::fs::write(&out, &bytes).map_err(|e| Error::io(&out, e))?;
            println!(
                "{} games read ({} with a result used, {} without one skipped, {} cut short by a bad move)",
                games.len(),
                report.games_used,
                report.games_skipped,
                broken
            );
            println!(
                "{} entries ({} bytes) written to {out}",
                report.entries,
                bytes.len()
            );
            Ok(0)
        }
        BookCommand::Probe { book, fen } => {
            let book = match &book {
                Some(p) => Book::open(p)?,
                None => Book::builtin(),
            };
            let pos = match &fen {
                Some(f) => parse_fen(f)?,
                None => shakmaty::Chess::default(),
            };
            let entries = book.entries(&pos);
            if entries.is_empty() {
                println!("No book moves for this position.");
                return Ok(0);
            }
            let total: u64 = entries.iter().map(|e| u64::from(e.weight)).sum();
            println!("{:<8} {:<6} {:>7} {:>7}", "move", "uci", "weight", "share");
            for e in &entries {
                let share = if total > 0 {
                    100.0 * f64::from(e.weight) / total as f64
                } else {
                    0.0
                };
                println!(
                    "{:<8} {:<6} {:>7} {:>6.1}%",
                    san(&pos, e.mv),
                    uci(e.mv),
                    e.weight,
                    share
                );
            }
            Ok(0)
        }
    }
}
