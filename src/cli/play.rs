//! `rookery play`: a person plays an engine in the terminal. Moves as people type them (SAN, UCI,
//! long algebraic, `0-0`, a promotion without its piece for a queen); `moves`, `undo`, `hint`,
//! `resign`, `help`; `quit` or `exit` leave after a yes. One board a move, before the person's.

use std::io::{BufRead, Write};

use clap::{Args, ValueEnum};
use shakmaty::{Color, Position};

use super::args::{DEFAULT_ENGINE, EngineArgs, SearchArgs};
use crate::core::draw::draw;
use crate::core::game::{parse_human_move, san, san_line};
use crate::core::score::format_score;
use crate::core::{Game, Rng, Termination};
use crate::driver::{GameEnd, Header, rules_end, save_pgn};
use crate::error::Error;

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum SideChoice {
    White,
    Black,
    Random,
}

#[derive(Args, Debug)]
pub struct PlayArgs {
    /// The engine to play against (see `rookery engines`)
    #[arg(long, default_value = DEFAULT_ENGINE)]
    pub engine: String,
    /// Your colour
    #[arg(long, value_enum, default_value_t = SideChoice::White)]
    pub color: SideChoice,
    /// Start from this position instead of the initial one
    #[arg(long)]
    pub fen: Option<String>,
    /// Write the game to this PGN file when it ends
    #[arg(long, value_name = "FILE")]
    pub pgn: Option<String>,
    /// Draw the board with letters instead of Unicode pieces
    #[arg(long)]
    pub ascii: bool,
    #[command(flatten)]
    pub search: SearchArgs,
    #[command(flatten)]
    pub engine_args: EngineArgs,
}

const HELP: &str = "Enter a move as you would write it: Nf3, exd5, O-O or 0-0, e8=Q (or e8: a queen),\n\
g1f3, d2-d4. Commands: moves (list the legal moves), undo (take back your last move),\n\
hint (ask the engine), resign, help, quit or exit (leave the game).";

pub fn run(args: PlayArgs) -> Result<i32, Error> {
    let stdin = std::io::stdin();
    let mut input = stdin.lock();
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    play(args, &mut input, &mut out)
}

/// The game loop, on any input and output (tests drive it with strings).
pub fn play(args: PlayArgs, input: &mut dyn BufRead, out: &mut dyn Write) -> Result<i32, Error> {
    if let Some(path) = &args.pgn {
        super::args::check_output(path, "--pgn")?;
    }
    let mut game = Game::from_optional_fen(args.fen.as_deref())?;
    let seed = args.engine_args.seed();
    let book = args.engine_args.load_book()?;
    let mut engine = args.engine_args.engine(&args.engine, seed, book)?;
    let limits = args.search.limits(engine.as_ref());
    let human = match args.color {
        SideChoice::White => Color::White,
        SideChoice::Black => Color::Black,
        SideChoice::Random => {
            if Rng::new(seed).below(2) == 0 {
                Color::White
            } else {
                Color::Black
            }
        }
    };
    let io = |e: std::io::Error| Error::io("terminal", e);
    writeln!(
        out,
        "Rookery: you play {} against {} (seed {seed}). Type 'help' for commands.",
        if human == Color::White {
            "White"
        } else {
            "Black"
        },
        engine.name()
    )
    .map_err(io)?;

    // One board a move: before the person's turn, with the engine's reply on it, and at the end.
    let mut redraw = true;
    let ending = loop {
        let end = rules_end(&game);
        if redraw && (end.is_some() || game.position().turn() == human) {
            writeln!(
                out,
                "\n{}",
                draw(game.position(), human, game.last_move(), args.ascii)
            )
            .map_err(io)?;
            redraw = false;
        }
        if let Some(end) = end {
            break end;
        }
        if game.position().turn() != human {
            writeln!(out, "{} is thinking...", engine.name()).map_err(io)?;
            out.flush().map_err(io)?;
            let analysis = engine.analyse(&game, &limits);
            let Some(m) = analysis.best else {
                return Err(Error::Invalid("the engine found no move".into()));
            };
            let text = san(game.position(), m);
            let detail = if analysis.from_book {
                "book move".to_string()
            } else {
                // Scores are shown from White's side, as boards in GUIs show them.
                let white_view = |v: i32| {
                    if game.position().turn() == Color::White {
                        v
                    } else {
                        -v
                    }
                };
                format!(
                    "eval {} for White, depth {}, {} nodes, {} ms",
                    analysis
                        .score
                        .map_or("-".to_string(), |v| format_score(white_view(v))),
                    analysis.depth,
                    analysis.nodes,
                    analysis.elapsed.as_millis()
                )
            };
            writeln!(out, "{} plays {text} ({detail})", engine.name()).map_err(io)?;
            game.play(m)?;
            redraw = true;
            continue;
        }
        let check = if game.position().is_check() {
            " (you are in check)"
        } else {
            ""
        };
        write!(out, "Your move{check}: ").map_err(io)?;
        out.flush().map_err(io)?;
        let mut line = String::new();
        if input.read_line(&mut line).map_err(io)? == 0 {
            writeln!(out).map_err(io)?;
            break left_game();
        }
        match line.trim().to_ascii_lowercase().as_str() {
            "" => writeln!(out, "Type a move (e4, Nf3, O-O), or 'help'.").map_err(io)?,
            "quit" | "exit" | "q" => {
                write!(out, "Leave this game unfinished? (y/n) ").map_err(io)?;
                out.flush().map_err(io)?;
                let mut answer = String::new();
                let read = input.read_line(&mut answer).map_err(io)?;
                if read == 0 || matches!(answer.trim().to_ascii_lowercase().as_str(), "y" | "yes") {
                    if read == 0 {
                        writeln!(out).map_err(io)?;
                    }
                    break left_game();
                }
                writeln!(out, "Playing on.").map_err(io)?;
            }
            "help" | "?" => writeln!(out, "{HELP}").map_err(io)?,
            "moves" => {
                let pos = game.position();
                let list: Vec<String> = pos.legal_moves().iter().map(|&m| san(pos, m)).collect();
                writeln!(out, "Legal moves: {}", list.join(" ")).map_err(io)?;
            }
            "undo" => {
                // Back to the person's previous turn: their move and the engine's reply.
                let mut undone = 0;
                while game.undo().is_some() {
                    undone += 1;
                    if game.position().turn() == human {
                        break;
                    }
                }
                if undone == 0 {
                    writeln!(out, "Nothing to undo.").map_err(io)?;
                } else if game.position().turn() != human {
                    // The engine moved first in this game; it moves again from the start.
                    writeln!(out, "Back at the start.").map_err(io)?;
                } else {
                    writeln!(out, "Took back {undone} half-move(s).").map_err(io)?;
                }
                redraw = undone > 0;
            }
            "hint" => {
                let analysis = engine.analyse(&game, &limits);
                match analysis.best {
                    Some(m) => {
                        let why = match analysis.score {
                            _ if analysis.from_book => "book move".to_string(),
                            Some(v) => format!(
                                "score {} for you; line {}",
                                format_score(v),
                                san_line(game.position(), &analysis.pv)
                            ),
                            None => "no score".to_string(),
                        };
                        writeln!(out, "Hint: {} ({why})", san(game.position(), m)).map_err(io)?;
                    }
                    None => writeln!(out, "No legal move.").map_err(io)?,
                }
            }
            "resign" => break GameEnd::resignation(human),
            _ => match parse_human_move(game.position(), &line) {
                Ok(m) => {
                    writeln!(out, "You play {}.", san(game.position(), m)).map_err(io)?;
                    game.play(m)?;
                    redraw = true;
                }
                Err(e) => writeln!(
                    out,
                    "{e}. Type 'moves' for the legal moves, 'help' for commands."
                )
                .map_err(io)?,
            },
        }
    };
    writeln!(
        out,
        "Game over: {} ({})",
        ending.outcome.pgn(),
        ending.reason
    )
    .map_err(io)?;
    if !game.moves().is_empty() {
        writeln!(out, "{}", game.san_moves()).map_err(io)?;
    }
    if let Some(path) = &args.pgn {
        let (white, black) = if human == Color::White {
            ("Human".to_string(), format!("Rookery {}", engine.name()))
        } else {
            (format!("Rookery {}", engine.name()), "Human".to_string())
        };
        let header = Header {
            event: "Rookery terminal game".into(),
            site: "rookery play".into(),
            round: "-".into(),
            white,
            black,
            extra: vec![("Seed", seed.to_string())],
        };
        save_pgn(path, &game, &header, &ending)?;
        writeln!(out, "Game saved to {path}").map_err(io)?;
    }
    Ok(0)
}

fn left_game() -> GameEnd {
    GameEnd::unfinished(Termination::Unfinished, "game left unfinished")
}
