//! `rookery game`: two engines play one game; moves in SAN as they are played, the result and the
//! reason at the end, optionally the board after every move and a PGN file.

use std::io::Write;

use clap::Args;
use shakmaty::{Color, Position};

use super::args::{EngineArgs, SearchArgs};
use crate::core::Game;
use crate::core::draw::draw;
use crate::core::game::san;
use crate::driver::{GameEnd, Header, play_out, save_pgn};
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

pub fn run(args: GameArgs) -> Result<i32, Error> {
    if let Some(path) = &args.pgn {
        super::args::check_output(path, "--pgn")?;
    }
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let (game, end, seed) = play_game(&args, &mut out)?;
    if let Some(path) = &args.pgn {
        let header = Header {
            event: "Rookery engine game".into(),
            site: "rookery game".into(),
            round: "1".into(),
            white: args.white.clone(),
            black: args.black.clone(),
            extra: vec![("Seed", seed.to_string())],
        };
        save_pgn(path, &game, &header, &end)?;
        writeln!(out, "Game saved to {path}").map_err(|e| Error::io("stdout", e))?;
    }
    Ok(0)
}

/// Plays the game, printing as it goes; returns the game, its result and the seed used.
pub fn play_game(args: &GameArgs, out: &mut dyn Write) -> Result<(Game, GameEnd, u64), Error> {
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
    writeln!(out, "\nResult: {} ({})", end.outcome.pgn(), end.reason).map_err(io)?;
    Ok((game, end, seed))
}
