//! `rookery epd FILE`: runs a test suite through any engine at a fixed time, depth or node count
//! per position. A position is solved when the engine's move is one of `bm` and none of `am`;
//! suites with STS-style `c0` points are scored by points too. `--cmd` tests another program
//! (UCI or xboard) the same way, so a suite figure can be set beside another engine's on the same
//! machine.

use std::io::Write;
use std::time::Duration;

use clap::Args;
use serde::Serialize;

use super::args::{DEFAULT_ENGINE, EngineArgs};
use crate::core::game::{san, uci};
use crate::core::{Game, Limits};
use crate::engine::{Engine, Settings};
use crate::epd;
use crate::error::Error;
use crate::options::default_spin;
use crate::tournament::player::{self, Player};

#[derive(Args, Debug)]
pub struct EpdArgs {
    /// The EPD file
    pub file: String,
    /// The engine to test
    #[arg(long, default_value = DEFAULT_ENGINE)]
    pub engine: String,
    /// A program to test instead of a Rookery engine, with its arguments (`--cmd /usr/games/glaurung`)
    #[arg(long, value_name = "COMMAND", conflicts_with = "engine")]
    pub cmd: Option<String>,
    /// The program's protocol: uci or xboard [default: uci]
    #[arg(long, value_name = "PROTO", requires = "cmd")]
    pub proto: Option<String>,
    /// An option for the program (a UCI setoption), repeatable: `--option Threads=1`
    #[arg(long = "option", value_name = "NAME=VALUE", requires = "cmd")]
    pub options: Vec<String>,
    /// Time per position in milliseconds [default: 1000 unless --depth or --nodes]
    #[arg(long, value_name = "MS")]
    pub movetime: Option<u64>,
    /// Depth per position
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    pub depth: Option<u32>,
    /// Nodes per position
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    pub nodes: Option<u64>,
    /// Search threads (the strong engine)
    #[arg(long, default_value_t = default_spin("Threads") as usize, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..))]
    pub threads: usize,
    /// Hash table in MB (the strong engine)
    #[arg(long, default_value_t = default_spin("Hash") as usize, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..))]
    pub hash: usize,
    /// Only the first N positions
    #[arg(long, value_name = "N")]
    pub limit: Option<usize>,
    /// Write every position's result as JSON to this file
    #[arg(long, value_name = "FILE")]
    pub json: Option<String>,
    #[command(flatten)]
    pub engine_args: EngineArgs,
}

#[derive(Serialize)]
struct Entry {
    id: String,
    fen: String,
    played: Option<String>,
    best: Vec<String>,
    avoid: Vec<String>,
    solved: bool,
    points: Option<u32>,
    max_points: Option<u32>,
    score: Option<i32>,
    depth: u32,
    /// Positions the engine visited (`null` for a program that does not say).
    nodes: Option<u64>,
}

/// What answers the suite: a Rookery engine, or a program over UCI or xboard.
enum Subject {
    Engine(Box<dyn Engine>),
    Program(Box<dyn Player>),
}

/// An answer to one position.
struct Answer {
    best: Option<shakmaty::Move>,
    score: Option<i32>,
    depth: u32,
    nodes: Option<u64>,
}

impl Subject {
    fn answer(&mut self, pos: &shakmaty::Chess, limits: &Limits) -> Result<Answer, Error> {
        match self {
            Subject::Engine(engine) => {
                engine.new_game();
                let a = engine.analyse(&Game::new(pos.clone()), limits);
                Ok(Answer {
                    best: a.best,
                    score: a.score,
                    depth: a.depth,
                    nodes: Some(a.nodes),
                })
            }
            Subject::Program(p) => {
                let name = p.name().to_string();
                let fault = |f: player::Fault| Error::Invalid(format!("{name}: {f}"));
                p.new_game().map_err(fault)?;
                // A program that has not answered well after its time is killed: the suite
                // stops with the reason rather than wait for ever.
                let give_up = limits.movetime.map_or(Duration::from_secs(600), |t| {
                    2 * t + Duration::from_secs(10)
                });
                let t = p
                    .think(&Game::new(pos.clone()), None, give_up)
                    .map_err(fault)?;
                Ok(Answer {
                    best: t.mv,
                    score: t.score,
                    depth: t.depth,
                    nodes: None,
                })
            }
        }
    }
}

/// The program `--cmd` names, as the match runner would start it.
fn program(args: &EpdArgs, cmd: &str, limits: &Limits) -> Result<Box<dyn Player>, Error> {
    let limit = match (limits.movetime, limits.depth, limits.nodes) {
        (Some(t), None, None) => format!("st={}", t.as_secs_f64()),
        (None, Some(d), None) => format!("depth={d}"),
        (None, None, Some(n)) => format!("nodes={n}"),
        _ => {
            return Err(Error::Invalid(
                "a program takes one limit: --movetime, --depth or --nodes".into(),
            ));
        }
    };
    let mut words = vec![
        format!("cmd={cmd}"),
        format!("proto={}", args.proto.as_deref().unwrap_or("uci")),
        limit,
    ];
    for o in &args.options {
        if !o.contains('=') {
            return Err(Error::Invalid(format!(
                "--option {o}: write NAME=VALUE, as in --option Threads=1"
            )));
        }
        words.push(format!("option.{o}"));
    }
    let spec = super::matches::parse_player(&words, 0, 0)?;
    player::create(&spec).map_err(Error::Invalid)
}

pub fn run(args: EpdArgs) -> Result<i32, Error> {
    if args.engine_args.book.is_some() || args.engine_args.weighted {
        return Err(Error::Invalid(
            "epd searches every position: --book and --weighted do not apply".into(),
        ));
    }
    if let Some(path) = &args.json {
        super::args::check_output(path, "--json")?;
    }
    let mut records = epd::read(&args.file)?;
    if records.is_empty() {
        return Err(Error::Invalid(format!("{}: no positions", args.file)));
    }
    if let Some(n) = args.limit {
        records.truncate(n);
    }
    let limits = Limits {
        depth: args.depth,
        nodes: args.nodes,
        movetime: match (args.movetime, args.depth, args.nodes) {
            (Some(ms), _, _) => Some(Duration::from_millis(ms)),
            (None, None, None) => Some(Duration::from_secs(1)),
            _ => None,
        },
        ..Limits::default()
    };
    let (mut subject, name) = match &args.cmd {
        Some(cmd) => {
            let p = program(&args, cmd, &limits)?;
            let name = p.name().to_string();
            (Subject::Program(p), name)
        }
        None => {
            let seed = args.engine_args.seed();
            let mut engine = args.engine_args.engine(&args.engine, seed, None)?;
            engine.configure(&Settings {
                threads: args.threads.max(1),
                hash_mb: args.hash.max(1),
                ..args.engine_args.settings()?
            })?;
            (Subject::Engine(engine), args.engine.clone())
        }
    };
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let mut entries = Vec::new();
    let (mut solved, mut scored, mut points, mut max_points) = (0, 0, 0, 0);
    for r in &records {
        let (best, avoid) = match (r.moves("bm"), r.moves("am")) {
            (Ok(b), Ok(a)) => (b, a),
            (Err(e), _) | (_, Err(e)) => {
                writeln!(out, "skipped  {:<16} {e}", r.id()).map_err(|e| Error::io("stdout", e))?;
                continue;
            }
        };
        let table = r.points();
        if best.is_empty() && avoid.is_empty() && table.is_empty() {
            continue;
        }
        let a = subject.answer(&r.pos, &limits)?;
        let played = a.best;
        let ok =
            played.is_some_and(|m| (best.is_empty() || best.contains(&m)) && !avoid.contains(&m));
        let earned = (!table.is_empty()).then(|| {
            played
                .and_then(|m| table.iter().find(|(t, _)| *t == m).map(|(_, p)| *p))
                .unwrap_or(0)
        });
        let top = table.iter().map(|(_, p)| *p).max();
        scored += 1;
        if ok {
            solved += 1;
        } else {
            let shown = played.map_or("(none)".to_string(), |m| san(&r.pos, m));
            writeln!(
                out,
                "unsolved {:<16} played {:<8} wanted {}",
                r.id(),
                shown,
                r.op("bm")
                    .map(|v| v.join(" "))
                    .or_else(|| r.op("am").map(|v| format!("not {}", v.join(" "))))
                    .unwrap_or_default()
            )
            .map_err(|e| Error::io("stdout", e))?;
        }
        points += earned.unwrap_or(0);
        max_points += top.unwrap_or(0);
        entries.push(Entry {
            id: r.id(),
            fen: r.fen.clone(),
            played: played.map(uci),
            best: best.iter().map(|&m| uci(m)).collect(),
            avoid: avoid.iter().map(|&m| uci(m)).collect(),
            solved: ok,
            points: earned,
            max_points: top,
            score: a.score,
            depth: a.depth,
            nodes: a.nodes,
        });
    }
    writeln!(
        out,
        "Solved: {solved}/{scored} ({:.1}%) with {} at {}",
        100.0 * f64::from(solved) / f64::from(scored.max(1)),
        name,
        describe(&limits)
    )
    .map_err(|e| Error::io("stdout", e))?;
    if max_points > 0 {
        writeln!(out, "Points: {points}/{max_points}").map_err(|e| Error::io("stdout", e))?;
    }
    if let Some(path) = &args.json {
        let text = serde_json::to_string_pretty(&entries)
            .map_err(|e| Error::Invalid(format!("JSON: {e}")))?;
        std::fs::write(path, text).map_err(|e| Error::io(path, e))?;
    }
    Ok(0)
}

fn describe(l: &Limits) -> String {
    let mut parts = Vec::new();
    if let Some(t) = l.movetime {
        parts.push(format!("{} ms", t.as_millis()));
    }
    if let Some(d) = l.depth {
        parts.push(format!("depth {d}"));
    }
    if let Some(n) = l.nodes {
        parts.push(format!("{n} nodes"));
    }
    parts.join(", ")
}
