//! `rookery datagen`: self-play positions labelled with the game's result and the search's score,
//! for tuning the evaluation (see `datagen`); `--pgn` labels the positions of a game collection.

use std::io::Write;

use clap::Args;

use super::args::evaluation;
use crate::core::bytes::checksum;
use crate::data::store::ChunkWriter;
use crate::datagen::{self, Config, EpdSink, INTERRUPTED, VERIFY_NODES, Verify};
use crate::engine::Evaluation;
use crate::error::Error;

#[derive(Args, Debug)]
pub struct DatagenArgs {
    /// Where the data goes: a directory of binary chunks with a manifest (32-byte records), or
    /// a file ending in `.epd` for EPD lines. Appended to: a second run with the same seed goes
    /// on with the next games
    #[arg(long, value_name = "DIR|FILE.epd")]
    pub out: String,
    /// The evaluation the games are played with: net (the learned one) or hce (hand-crafted)
    #[arg(long, default_value = "net")]
    pub eval: String,
    /// The net for `--eval net` [default: the built-in net]
    #[arg(long, value_name = "FILE")]
    pub net: Option<String>,
    /// Games to play
    #[arg(long, conflicts_with = "positions")]
    pub games: Option<u64>,
    /// Positions to write (whole games, so a few more)
    #[arg(long)]
    pub positions: Option<u64>,
    /// Nodes a move: a hard limit, or with --soft-nodes a soft one
    #[arg(long, default_value_t = 5_000)]
    pub nodes: u64,
    /// A fixed depth a move instead of nodes
    #[arg(long, conflicts_with = "nodes")]
    pub depth: Option<u32>,
    /// Make --nodes a soft limit: each search ends with the iteration that passes it, never
    /// past --hard-nodes
    #[arg(long, conflicts_with = "depth")]
    pub soft_nodes: bool,
    /// The hard cap of each search with --soft-nodes [default: 8 x --nodes]
    #[arg(long, value_name = "N", requires = "soft_nodes")]
    pub hard_nodes: Option<u64>,
    /// Score each start (opening and random plies) with a short search and draw another when
    /// |score| is above CP centipawns; with no value 1000, 0 turns the check off
    #[arg(long, value_name = "CP", num_args = 0..=1, default_missing_value = "1000")]
    pub verify: Option<i32>,
    /// Nodes of the verification search [default: 10000]
    #[arg(long, value_name = "N", requires = "verify")]
    pub verify_nodes: Option<u64>,
    /// Games at once
    #[arg(long, default_value_t = 1, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..))]
    pub threads: usize,
    /// Seed of every random choice: the same seed gives the same data
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Openings to start from (EPD or PGN) [default: the initial position]
    #[arg(long, value_name = "FILE")]
    pub openings: Option<String>,
    /// Random plies after the opening
    #[arg(long, default_value_t = 8)]
    pub random_plies: u32,
    /// Hash table per thread in MB (small: searches of a few thousand nodes fill little of
    /// it, and a table that stays in the cache plays more games a second)
    #[arg(long, default_value_t = 2, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..))]
    pub hash: usize,
    /// Label the positions of this PGN file instead of playing games
    #[arg(long, value_name = "FILE")]
    pub pgn: Option<String>,
}

#[cfg(unix)]
extern "C" fn on_interrupt(_: libc::c_int) {
    INTERRUPTED.store(true, std::sync::atomic::Ordering::Relaxed);
}

fn catch_ctrl_c() {
    #[cfg(unix)]
    // SAFETY: the handler only stores to an atomic, which is async-signal-safe.
    unsafe {
        libc::signal(
            libc::SIGINT,
            on_interrupt as extern "C" fn(libc::c_int) as libc::sighandler_t,
        );
    }
}

fn clock(secs: f64) -> String {
    let s = secs.max(0.0) as u64;
    format!("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
}

pub fn run(args: DatagenArgs) -> Result<i32, Error> {
    let eval = evaluation(&args.eval, args.net.as_deref())?;
    let epd = args.out.ends_with(".epd") || args.pgn.is_some();
    if !epd {
        return run_binary(args, eval);
    }
    let existing = match std::fs::read_to_string(&args.out) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(Error::io(&args.out, e)),
    };
    let first = datagen::resume_point(&existing, args.seed)
        .map_err(|e| Error::Invalid(format!("{}: {e}", args.out)))?;
    let mut out = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&args.out)
        .map_err(|e| Error::io(&args.out, e))?;
    if let Some(pgn) = &args.pgn {
        let text = crate::core::memory::read_text(pgn.as_ref(), crate::core::memory::MAX_INPUT)
            .map_err(|e| Error::io(pgn, e))?;
        let (games, positions) = datagen::from_pgn(&text, &mut out)?;
        println!(
            "{positions} positions from {games} games of {pgn} written to {}",
            args.out
        );
        return Ok(0);
    }
    let cfg = config(&args, eval)?;
    if first > 0 {
        println!(
            "{}: going on from game {first} of seed {}",
            args.out, args.seed
        );
    }
    generate(&args, &cfg, first, &mut EpdSink(out))
}

/// Binary data: a directory of chunks with a manifest.
fn run_binary(args: DatagenArgs, eval: Evaluation) -> Result<i32, Error> {
    let cfg = config(&args, eval)?;
    let command = std::env::args().collect::<Vec<_>>().join(" ");
    let commit = option_env!("ROOKERY_COMMIT").unwrap_or("unknown");
    let games = games_key(&args, &cfg)?;
    let (mut writer, first) = ChunkWriter::open(&args.out, args.seed, &command, commit, &games)?;
    if first > 0 {
        println!(
            "{}: going on from game {first} of seed {} ({} positions so far)",
            args.out,
            args.seed,
            writer.manifest().total_positions()
        );
    }
    let code = generate(&args, &cfg, first, &mut writer)?;
    writer.save()?;
    Ok(code)
}

/// What decides the games besides the seed, as the manifest records it: the evaluation (a net
/// by its checksum), nodes or depth (and a soft limit's cap), the openings (by their file's
/// checksum), random plies, hash size and the opening verification. Threads only share the games
/// out, so they are not part of it. Without a soft limit or verification the text is what it was
/// before either existed, so the data sets made then go on under their recorded commands.
fn games_key(args: &DatagenArgs, cfg: &Config) -> Result<String, Error> {
    let eval = match &cfg.eval {
        Evaluation::Hce => "eval hce".to_string(),
        Evaluation::Net(net) => format!("eval net {:016x}", checksum(&net.to_bytes())),
    };
    let budget = match (cfg.depth, cfg.hard_nodes) {
        (Some(d), _) => format!("depth {d}"),
        (None, None) => format!("nodes {}", cfg.nodes),
        (None, Some(cap)) => format!("soft nodes {}, hard nodes {cap}", cfg.nodes),
    };
    let verify = match cfg.verify {
        Some(v) => format!(", verify {} cp at {} nodes", v.max_score, v.nodes),
        None => String::new(),
    };
    let openings = match &args.openings {
        Some(path) => {
            let bytes =
                crate::core::memory::read_input(path.as_ref(), crate::core::memory::MAX_INPUT)
                    .map_err(|e| Error::io(path, e))?;
            format!("openings {:016x}", checksum(&bytes))
        }
        None => "openings none".to_string(),
    };
    Ok(format!(
        "{eval}, {budget}, {openings}, random plies {}, hash {} MB{verify}",
        cfg.random_plies, cfg.hash_mb
    ))
}

/// The generator's settings from the arguments, checked.
fn config(args: &DatagenArgs, eval: Evaluation) -> Result<Config, Error> {
    if args.games.is_none() && args.positions.is_none() {
        return Err(Error::Invalid("give --games N or --positions N".into()));
    }
    if args.games == Some(0) || args.positions == Some(0) || args.nodes == 0 || args.threads == 0 {
        return Err(Error::Invalid(
            "--games, --positions, --nodes and --threads must be at least 1".into(),
        ));
    }
    let hard_nodes = match (args.soft_nodes, args.hard_nodes) {
        (false, _) => None,
        (true, None) => Some(args.nodes.saturating_mul(8)),
        (true, Some(cap)) if cap < args.nodes => {
            return Err(Error::Invalid(format!(
                "--hard-nodes {cap} is below --nodes {}: the cap must be at least the soft limit",
                args.nodes
            )));
        }
        (true, Some(cap)) => Some(cap),
    };
    if args.verify_nodes == Some(0) {
        return Err(Error::Invalid("--verify-nodes must be at least 1".into()));
    }
    let verify = match args.verify {
        None | Some(0) => None,
        Some(cp) if cp < 0 => {
            return Err(Error::Invalid(format!(
                "--verify {cp}: give a score in centipawns, 0 or more"
            )));
        }
        Some(max_score) => Some(Verify {
            max_score,
            nodes: args.verify_nodes.unwrap_or(VERIFY_NODES),
        }),
    };
    let openings = match &args.openings {
        Some(path) => crate::tournament::runner::load_openings(path)?
            .into_iter()
            .map(|o| (o.start, o.moves))
            .collect(),
        None => Vec::new(),
    };
    let cfg = Config {
        games: args.games,
        positions: args.positions,
        nodes: args.nodes,
        depth: args.depth,
        hard_nodes,
        verify,
        threads: args.threads,
        seed: args.seed,
        openings,
        random_plies: args.random_plies,
        hash_mb: args.hash.max(1),
        eval,
    };
    Ok(cfg)
}

/// Plays the games into `out` with a live progress line.
fn generate(
    args: &DatagenArgs,
    cfg: &Config,
    first: u64,
    out: &mut dyn datagen::Sink,
) -> Result<i32, Error> {
    catch_ctrl_c();
    let target = args.positions.or(args.games).unwrap_or(1) as f64;
    let verifying = cfg.verify.is_some();
    let summary = datagen::run(cfg, first, out, |p| {
        let done = if args.positions.is_some() {
            p.positions
        } else {
            p.games
        } as f64;
        let fraction = (done / target).min(1.0);
        let secs = p.elapsed.as_secs_f64();
        let rate = p.positions as f64 / secs.max(1e-9);
        let left = if fraction > 0.0 {
            secs / fraction - secs
        } else {
            0.0
        };
        let bar = super::args::progress_bar(fraction);
        let rejected = if verifying {
            format!(", {} openings rejected", p.rejected)
        } else {
            String::new()
        };
        eprint!(
            "\r[{bar}] {} games, {} positions{rejected}, {rate:.0} positions/s, {} elapsed, {} left   ",
            p.games,
            p.positions,
            clock(secs),
            clock(left)
        );
        let _ = std::io::stderr().flush();
    })?;
    eprintln!();
    let how = if INTERRUPTED.load(std::sync::atomic::Ordering::Relaxed) {
        "interrupted: "
    } else {
        ""
    };
    let rejected = if verifying {
        let drawn = summary.rejected + summary.games;
        format!(
            "; {} openings rejected by the verification ({:.1}% of {drawn} drawn)",
            summary.rejected,
            100.0 * summary.rejected as f64 / drawn.max(1) as f64
        )
    } else {
        String::new()
    };
    println!(
        "{how}{} positions from {} games written to {}{rejected}",
        summary.positions, summary.games, args.out
    );
    Ok(0)
}
