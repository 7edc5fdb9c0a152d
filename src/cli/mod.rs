//! The command line: one subcommand per tool, and the dispatch to it. The arguments and helpers
//! that several commands share are in `args`. Every command returns `Result`; `main` prints an
//! error as one line on stderr and exits with code 2.

pub mod analyse;
pub mod args;
pub mod book;
pub mod data;
pub mod datagen;
pub mod epd;
pub mod fake;
pub mod game;
pub mod ladder;
pub mod matches;
pub mod mate;
pub mod perft;
pub mod play;
#[cfg(feature = "lab")]
pub mod serve;
pub mod tb;
pub mod train;
pub mod tree;
pub mod tune;

use clap::{Parser, Subcommand};

use crate::error::Error;
use crate::registry;

#[derive(Parser, Debug)]
#[command(
    name = "rookery",
    version,
    about = "Rookery: a chess engine. `rookery play` plays it in the terminal; with no command it is a UCI \
engine for chess GUIs (Arena, cutechess, En Croissant, lichess-bot). Beside it: the tutorial's ladder of small \
engines, and the tools to measure them",
    long_about = None
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Play against Rookery (or any engine of the ladder) in the terminal
    Play(play::PlayArgs),
    /// Speak UCI on standard input and output (what chess GUIs launch; also the default)
    Uci,
    /// List the engines of the ladder and the idea each adds
    Engines,
    /// Let two engines play one game
    Game(game::GameArgs),
    /// Score every legal move of a position with an engine
    #[command(alias = "analyze")]
    Analyse(analyse::AnalyseArgs),
    /// Count leaf positions of the move tree (the rules' self-test)
    Perft(perft::PerftArgs),
    /// Show the search tree of minimax, alphabeta or negamax: positions per depth, Graphviz DOT
    Tree(tree::TreeArgs),
    /// Search a fixed set of 50 positions to a fixed depth: the node count is the engine's
    /// signature, the speed is measured beside it (last line: `<nodes> nodes <nps> nps`)
    Bench {
        /// Search depth
        #[arg(default_value_t = crate::bench::DEFAULT_DEPTH)]
        depth: u32,
        /// The evaluation: net (the learned one) or hce (hand-crafted)
        #[arg(long, default_value = "net")]
        eval: String,
        /// The net for `--eval net` [default: the built-in net]
        #[arg(long, value_name = "FILE")]
        net: Option<String>,
        /// The net's vector instructions: portable, avx2 or avx512 [default: the widest the
        /// CPU runs]
        #[arg(long, value_name = "SET")]
        simd: Option<String>,
    },
    /// Build or inspect Polyglot opening books
    Book {
        #[command(subcommand)]
        command: book::BookCommand,
    },
    /// Play a match or tournament between engines (ladder engines and UCI/xboard programs):
    /// W/D/L, Elo with error bar, LOS, SPRT, PGN and JSON
    Match(matches::MatchArgs),
    /// What each technique buys: every rung's nodes to a fixed depth, and a short match
    /// against the rung below with Elo and error bar
    Ladder(ladder::LadderArgs),
    /// Prove a forced mate in N moves (no evaluation, only checkmate), or that there is none
    Mate(mate::MateArgs),
    /// Run an EPD test suite (bm/am moves, STS c0 points) through an engine
    // A suite searches every position: the shared book options do not apply, and are not shown.
    #[command(
        mut_arg("book", |a| a.hide(true)),
        mut_arg("no_book", |a| a.hide(true)),
        mut_arg("weighted", |a| a.hide(true)),
        mut_arg("min_weight", |a| a.hide(true))
    )]
    Epd(epd::EpdArgs),
    /// [test only] A scripted engine that crashes, hangs or cheats on request: the match
    /// runner's tests play against it; not an engine to use
    #[command(name = "fake-engine", hide = true)]
    FakeEngine(fake::FakeArgs),
    /// Rookery Lab: play, watch and take apart every engine in the browser (a local web server)
    #[cfg(feature = "lab")]
    Serve(serve::ServeArgs),
    /// Self-play positions labelled with result and score, for tuning the evaluation
    Datagen(datagen::DatagenArgs),
    /// Training data: statistics, conversion from EPD, shuffle, dedup, split, concatenation
    Data {
        #[command(subcommand)]
        command: data::DataCommand,
    },
    /// Train a network (the learned evaluation) on self-play data and export it quantised
    Train(train::TrainArgs),
    /// Fit every evaluation parameter to labelled positions and write them as Rust source
    Tune(tune::TuneArgs),
    /// Every search and time parameter with its default, range and step, in OpenBench's SPSA
    /// input format (`name, int, default, min, max, c_end, r_end`); `--table` for a table with
    /// what each does
    Params {
        /// A table with each parameter's meaning instead of the SPSA input
        #[arg(long)]
        table: bool,
    },
    /// Endgame tablebases: probe a position
    Tb {
        #[command(subcommand)]
        command: tb::TbCommand,
    },
}

/// Parses the process's command line. `--engine` of `rookery match` is given once per player
/// with several values each; the derive API flattens those, so they are regrouped here from the
/// matches.
pub fn parse() -> Cli {
    use clap::{CommandFactory, FromArgMatches};
    let matches = Cli::command().get_matches();
    let mut cli = Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.exit());
    if let Some(Command::Match(args)) = cli.command.as_mut()
        && let Some(m) = matches.subcommand_matches("match")
        && let Ok(Some(groups)) = m.try_get_occurrences::<String>("engine")
    {
        args.engines = groups.map(|g| g.cloned().collect()).collect();
    }
    cli
}

/// Runs a parsed command line.
pub fn run(cli: Cli) -> Result<i32, Error> {
    match cli.command {
        None | Some(Command::Uci) => {
            println!(
                "{} by the Rookery developers (UCI; `rookery --help` lists the commands)",
                crate::uci::engine_id()
            );
            crate::uci::run(
                std::io::BufReader::new(std::io::stdin()),
                Box::new(std::io::stdout()),
            );
            Ok(0)
        }
        Some(Command::Engines) => {
            for (i, e) in registry::ENGINES.iter().enumerate() {
                println!("{:>2}. {:<19} {}", i + 1, e.name, e.idea);
            }
            Ok(0)
        }
        Some(Command::Play(args)) => play::run(args),
        Some(Command::Game(args)) => game::run(args),
        Some(Command::Analyse(args)) => analyse::run(args),
        Some(Command::Perft(args)) => perft::run(args),
        Some(Command::Tree(args)) => tree::run(args),
        Some(Command::Book { command }) => book::run(command),
        Some(Command::Tb { command }) => tb::run(command),
        Some(Command::Match(args)) => matches::run(args),
        Some(Command::FakeEngine(args)) => fake::run(args),
        Some(Command::Mate(args)) => mate::run(args),
        Some(Command::Ladder(args)) => ladder::run(args),
        Some(Command::Epd(args)) => epd::run(args),
        Some(Command::Datagen(args)) => datagen::run(args),
        Some(Command::Tune(args)) => tune::run(args),
        Some(Command::Data { command }) => data::run(command),
        Some(Command::Train(args)) => train::run(args),
        #[cfg(feature = "lab")]
        Some(Command::Serve(args)) => serve::run(args),
        Some(Command::Params { table }) => {
            use crate::core::params;
            if table {
                println!(
                    "{:<24} {:>7} {:>7} {:>7} {:>5}  meaning",
                    "name", "default", "min", "max", "step"
                );
                for p in params::PARAMS {
                    println!(
                        "{:<24} {:>7} {:>7} {:>7} {:>5}  {}",
                        p.name,
                        params::value(p),
                        p.min,
                        p.max,
                        p.step,
                        p.help.trim()
                    );
                }
            } else {
                print!("{}", params::spsa_input());
            }
            Ok(0)
        }
        Some(Command::Bench {
            depth,
            eval,
            net,
            simd,
        }) => {
            if let Some(name) = simd {
                use crate::nnue::simd;
                simd::Simd::from_name(&name)
                    .and_then(simd::use_simd)
                    .map_err(|e| Error::Invalid(format!("--simd: {e}")))?;
            }
            let eval = args::evaluation(&eval, net.as_deref())?;
            let rows = match &eval {
                crate::engine::Evaluation::Net(net) if net.eight_bit_rows() => {
                    ", 8-bit feature rows"
                }
                crate::engine::Evaluation::Net(_) => ", 16-bit feature rows",
                crate::engine::Evaluation::Hce => "",
            };
            println!(
                "net inference: {}{rows}",
                crate::nnue::simd::in_use().simd().name()
            );
            crate::bench::run_printed(depth, &eval, None, |l| println!("{l}"))?;
            Ok(0)
        }
    }
}
