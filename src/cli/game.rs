//! `rookery game`: two engines play one game; moves in SAN as they are played, the result and the
//! reason at the end, optionally the board after every move and a PGN file.

use std::io::Write;

use clap::Args;
use shakmaty::{Color, Position};

use super::board::draw;
use super::play::describe;
use super::{EngineArgs, SearchArgs};
use crate::core::game::san;
use crate::core::{Game, Termination, pgn};
use crate::engine::play_out;
use crate::error::Error;

#[derive(Args, Debug)]
pub struct GameArgs {
    /// The engine playing White
    #[arg(long)]
    pub white: String,
    /// The engine playing Black
    #[arg(long)]
    pub black: String,
    /// Start from this position
    #[arg(long)]
    pub fen: Option<String>,
    /// Stop the game (unfinished, `*`) after this many half-moves
    #[arg(long, default_value_t = 400, value_name = "N")]
    pub max_plies: usize,
    /// Write the game to this PGN file
    #[arg(long, value_name = "FILE")]
    pub pgn: Option<String>,
    /// Redraw the board after every move
    #[arg(long)]
    pub show: bool,
    /// Draw the board with letters instead of Unicode pieces
    #[arg(long)]
    pub ascii: bool,
    #[command(flatten)]
    pub search: SearchArgs,
    #[command(flatten)]
    pub engine_args: EngineArgs,
}

/// How an engine game ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameResult {
    pub result: &'static str,
    pub reason: String,
    pub termination: Termination,
}

pub fn run(args: GameArgs) -> Result<i32, Error> {
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let (game, result, seed) = play_game(&args, &mut out)?;
    if let Some(path) = &args.pgn {
        let tags = [
            ("Event", "Rookery engine game".to_string()),
            ("Site", "rookery game".to_string()),
            ("Date", pgn::today()),
            ("Round", "1".to_string()),
            ("White", args.white.clone()),
            ("Black", args.black.clone()),
            (
                "Termination",
                if result.termination.is_normal() {
                    "normal".to_string()
                } else {
                    "unterminated".to_string()
                },
            ),
            ("Seed", seed.to_string()),
        ];
        let text = pgn::write(&game, &tags, result.result, Some(&result.reason));
        std::fs::write(path, text).map_err(|e| Error::io(path, e))?;
        writeln!(out, "Game saved to {path}").map_err(|e| Error::io("stdout", e))?;
    }
    Ok(0)
}

/// Plays the game, printing as it goes; returns the game, its result and the seed used.
pub fn play_game(args: &GameArgs, out: &mut dyn Write) -> Result<(Game, GameResult, u64), Error> {
    let io = |e: std::io::Error| Error::io("stdout", e);
    let mut game = Game::from_optional_fen(args.fen.as_deref())?;
    let seed = args.engine_args.seed();
    let book = args.engine_args.load_book()?;
    // Each side draws from its own stream of the seed.
    let mut white = args.engine_args.engine(&args.white, seed, book.clone())?;
    let mut black = args
        .engine_args
        .engine(&args.black, seed.wrapping_add(1), book)?;
    let white_limits = args.search.limits(white.as_ref());
    let black_limits = args.search.limits(black.as_ref());
    writeln!(out, "{} - {} (seed {seed})", white.name(), black.name()).map_err(io)?;
    let end = play_out(
        &mut game,
        white.as_mut(),
        black.as_mut(),
        (&white_limits, &black_limits),
        args.max_plies,
        |game, analysis| {
            let pos = game.position();
            let m = analysis
                .best
                .expect("play_out passes only analyses with a move");
            let text = san(pos, m);
            if args.show {
                let mut after = pos.clone();
                after.play_unchecked(m);
                writeln!(
                    out,
                    "\n{}. {}{text}\n{}",
                    pos.fullmoves(),
                    if pos.turn() == Color::White {
                        ""
                    } else {
                        "... "
                    },
                    draw(&after, Color::White, Some(m), args.ascii)
                )
                .map_err(io)?;
            } else {
                if pos.turn() == Color::White {
                    write!(out, "{}. {text} ", pos.fullmoves()).map_err(io)?;
                } else {
                    if game.ply() == 0 {
                        write!(out, "{}... ", pos.fullmoves()).map_err(io)?;
                    }
                    write!(out, "{text} ").map_err(io)?;
                }
                out.flush().map_err(io)?;
            }
            Ok(())
        },
    )?;
    let result = GameResult {
        result: end.result,
        reason: match game.outcome() {
            Some((outcome, why)) => describe(outcome, why),
            None => format!("stopped after {} half-moves", args.max_plies),
        },
        termination: end.termination,
    };
    writeln!(out, "\nResult: {} ({})", result.result, result.reason).map_err(io)?;
    Ok((game, result, seed))
}
