//! The command line: one subcommand per tool. Every command returns `Result`; `main` prints an
//! error as one line on stderr and exits with code 2.

pub mod analyse;
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

use std::sync::Arc;

use clap::{Args, Parser, Subcommand};

use crate::book::{Book, BookPolicy};
use crate::core::{Limits, Rng};
use crate::engine::{Engine, EngineOptions, Settings};
use crate::error::Error;
use crate::options::default_spin;
use crate::registry;
use crate::tb::Syzygy;

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

/// A 30-character progress bar for `fraction` (0 to 1) done: `###...`.
pub fn progress_bar(fraction: f64) -> String {
    (0..30)
        .map(|i| {
            if (i as f64) < fraction * 30.0 {
                '#'
            } else {
                '.'
            }
        })
        .collect()
}

/// Options every command that creates engines shares.
#[derive(Args, Debug, Clone, Default)]
pub struct EngineArgs {
    /// Seed for every random choice: the same seed replays the same game [default: from the clock]
    #[arg(long)]
    pub seed: Option<u64>,
    /// Polyglot book for the engines from `book` upward [default: the built-in book in `play` and `game`, none in `analyse` and `serve`; `epd` always searches]
    #[arg(long, value_name = "FILE")]
    pub book: Option<String>,
    /// Play without an opening book (the `book` engine still uses one)
    #[arg(long, conflicts_with = "book")]
    pub no_book: bool,
    /// Choose book moves in proportion to their weight instead of uniformly
    #[arg(long)]
    pub weighted: bool,
    /// Ignore book moves lighter than this
    #[arg(long, default_value_t = 50, value_name = "N")]
    pub min_weight: u16,
    /// Gaviota tablebase directory: the ladder engines play the endgames it covers by distance
    /// to mate
    #[arg(long, value_name = "DIR", hide = !cfg!(feature = "gaviota"))]
    pub gaviota: Option<String>,
    /// Syzygy tablebase directories, separated by ':' (the strong engine probes them)
    #[arg(long, value_name = "DIRS")]
    pub syzygy: Option<String>,
    /// Probe the tables only this many plies or more from the search horizon
    #[arg(long, default_value_t = default_spin("SyzygyProbeDepth") as u32, value_name = "PLIES")]
    pub syzygy_probe_depth: u32,
    /// Probe only positions with at most this many pieces, kings included
    #[arg(long, default_value_t = default_spin("SyzygyProbeLimit") as u32, value_name = "PIECES")]
    pub syzygy_probe_limit: u32,
    /// The strong engine's evaluation: net (learned) or hce (hand-crafted)
    #[arg(long, default_value = "net", value_name = "net|hce")]
    pub eval: String,
    /// A net file for `--eval net` [default: the built-in net]
    #[arg(long, value_name = "FILE")]
    pub net: Option<String>,
}

impl EngineArgs {
    /// The seed given, or one drawn from the clock (printed by the commands that use it).
    pub fn seed(&self) -> u64 {
        self.seed.unwrap_or_else(Rng::seed_from_time)
    }

    /// The book these options ask for: `None` with `--no-book`.
    pub fn load_book(&self) -> Result<Option<Arc<Book>>, Error> {
        if self.no_book {
            return Ok(None);
        }
        Ok(Some(Arc::new(match &self.book {
            Some(path) => Book::open(path)?,
            None => Book::builtin(),
        })))
    }

    /// The run-time settings these options ask for: the tables opened, or an error saying why not.
    pub fn settings(&self) -> Result<Settings, Error> {
        Ok(Settings {
            syzygy: self.syzygy.as_deref().map(Syzygy::open).transpose()?,
            syzygy_probe_depth: self.syzygy_probe_depth.max(1),
            syzygy_probe_limit: self.syzygy_probe_limit,
            eval: datagen::evaluation(&self.eval, self.net.as_deref())?,
            ..Settings::default()
        })
    }

    /// Creates engine `name` with these options and settings.
    pub fn engine(
        &self,
        name: &str,
        seed: u64,
        book: Option<Arc<Book>>,
    ) -> Result<Box<dyn Engine>, Error> {
        let options = EngineOptions {
            dtm: self
                .gaviota
                .as_deref()
                .map(crate::tb::open_gaviota)
                .transpose()?,
            ..self.options(seed, book)
        };
        let mut e = registry::create(name, &options)?;
        e.configure(&self.settings()?)?;
        Ok(e)
    }

    pub fn options(&self, seed: u64, book: Option<Arc<Book>>) -> EngineOptions {
        EngineOptions {
            seed,
            book,
            dtm: None,
            book_policy: BookPolicy {
                min_weight: self.min_weight,
                weighted: self.weighted,
            },
        }
    }
}

/// Depth and time for a search, as most commands take them.
#[derive(Args, Debug, Clone, Default)]
pub struct SearchArgs {
    /// Search depth in plies, up to 120 [default: the engine's own]
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=MAX_DEPTH as i64))]
    pub depth: Option<u32>,
    /// Time per move in milliseconds (iterative engines)
    #[arg(long, value_name = "MS", value_parser = clap::value_parser!(u64).range(1..))]
    pub movetime: Option<u64>,
}

impl SearchArgs {
    /// The limits asked for, or the engine's defaults when none were given.
    pub fn limits(&self, engine: &dyn Engine) -> Limits {
        if self.depth.is_none() && self.movetime.is_none() {
            return engine.default_limits();
        }
        Limits {
            depth: self.depth,
            movetime: self.movetime.map(std::time::Duration::from_millis),
            ..Limits::default()
        }
    }
}

/// Checks, before any work, that `path` can take the output `option` names: not a directory,
/// in a directory that exists, and writable if it exists already. Nothing is created.
pub fn check_output(path: &str, option: &str) -> Result<(), Error> {
    let p = std::path::Path::new(path);
    if path.is_empty() {
        return Err(Error::Invalid(format!("{option}: an empty path")));
    }
    if p.is_dir() {
        return Err(Error::Invalid(format!(
            "{option} {path}: a directory; give a file name"
        )));
    }
    let parent = p
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(std::path::Path::new("."));
    if !parent.is_dir() {
        return Err(Error::Invalid(format!(
            "{option} {path}: no directory {}",
            parent.display()
        )));
    }
    if p.exists() {
        std::fs::OpenOptions::new()
            .append(true)
            .open(p)
            .map_err(|e| Error::io(path, e))?;
    }
    Ok(())
}

/// The deepest search a command takes: the strong engine's own limit.
pub const MAX_DEPTH: u32 = crate::search::worker::MAX_SEARCH_PLY as u32;

/// The strong engine, used when no engine is named.
pub const DEFAULT_ENGINE: &str = "rookery";

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
            let eval = datagen::evaluation(&eval, net.as_deref())?;
            println!(
                "net inference: {}",
                crate::nnue::simd::in_use().simd().name()
            );
            crate::bench::run_printed(depth, &eval, None, |l| println!("{l}"))?;
            Ok(0)
        }
    }
}
