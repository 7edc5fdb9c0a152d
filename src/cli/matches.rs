//! `rookery match`: engine matches and tournaments, cutechess style. Players are engines of this
//! crate or external UCI/xboard programs; the runner keeps the clocks, adjudicates, plays games in
//! parallel, and reports W/D/L, Elo with its error bar, LOS, draw rate, faults, and SPRT.

use std::io::Write;
use std::time::Duration;

use clap::Args;
use serde::Serialize;

use crate::core::stats::{Sprt, SprtState, Wdl};
use crate::error::Error;
use crate::tb::Syzygy;
use crate::tournament::player::{Kind, Limit, PlayerSpec, Proto};
use crate::tournament::runner::{self, Adjudication, Config, Played, Schedule};

#[derive(Args, Debug)]
pub struct MatchArgs {
    /// A player: `name=N engine=alphabeta depth=4`, `engine=rookery threads=2 hash=64 tc=10+0.1`,
    /// or `name=sf cmd=/usr/games/stockfish proto=uci option.UCI_Elo=2000 st=1`. Keys: name,
    /// engine, cmd, arg, proto (uci|xboard), tc (BASE+INC seconds), st (seconds a move), depth,
    /// nodes, threads, hash, syzygy, option.NAME=VALUE (for `engine=rookery`: option.EvalFile=NET)
    #[arg(long, num_args = 1.., value_name = "KEY=VALUE", required = true, action = clap::ArgAction::Append)]
    pub engine: Vec<String>,
    /// The `--engine` values grouped by occurrence (filled from the parsed matches).
    #[arg(skip)]
    pub engines: Vec<Vec<String>>,
    /// Settings applied to every player (before its own)
    #[arg(long, num_args = 1.., value_name = "KEY=VALUE")]
    pub each: Vec<String>,
    /// Openings: an EPD/FEN file (one position a line) or a PGN file [default: the initial position]
    #[arg(long, value_name = "FILE")]
    pub openings: Option<String>,
    /// Take the openings in a random order (from --seed) instead of in file order
    #[arg(long)]
    pub random: bool,
    /// Seed for the opening order and the internal engines' random choices
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Rounds: each round every pairing plays --games games
    #[arg(long, default_value_t = 1)]
    pub rounds: u32,
    /// Games per pairing per round; two games share an opening, colours swapped
    #[arg(long, default_value_t = 2)]
    pub games: u32,
    /// Games played at once
    #[arg(long, default_value_t = 1, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..))]
    pub concurrency: usize,
    /// round-robin (everyone plays everyone) or gauntlet (the first engine plays every other)
    #[arg(long, default_value = "round-robin", value_parser = ["round-robin", "gauntlet"])]
    pub tournament: String,
    /// Draw adjudication: `movenumber=40 movecount=8 score=10` (both sides within `score` cp
    /// for `movecount` moves each, from move `movenumber`)
    #[arg(long, num_args = 1.., value_name = "KEY=VALUE")]
    pub draw: Vec<String>,
    /// Resign adjudication: `movecount=4 score=1000` (both sides agree one is behind by `score`)
    #[arg(long, num_args = 1.., value_name = "KEY=VALUE")]
    pub resign: Vec<String>,
    /// Adjudicate a draw after this many moves (counted after the opening)
    #[arg(long, value_name = "N")]
    pub maxmoves: Option<u32>,
    /// Adjudicate positions the Syzygy tables in these directories cover
    #[arg(long, value_name = "DIRS")]
    pub tb: Option<String>,
    /// Stop as soon as a sequential probability ratio test decides: `elo0=0 elo1=5 alpha=0.05
    /// beta=0.05` (two engines only)
    #[arg(long, num_args = 1.., value_name = "KEY=VALUE")]
    pub sprt: Vec<String>,
    /// Write every game to this PGN file
    #[arg(long, value_name = "FILE")]
    pub pgn: Option<String>,
    /// Write the summary as JSON to this file
    #[arg(long, value_name = "FILE")]
    pub json: Option<String>,
    /// Milliseconds past zero before a flag falls
    #[arg(long, default_value_t = 50, value_name = "MS")]
    pub time_margin: u64,
    /// Seconds a depth-, node- or fixed-time move may take (beyond its time) before the engine
    /// counts as hung and is killed
    #[arg(long, default_value_t = 60, value_name = "SECS")]
    pub timeout: u64,
    /// Print only the summary
    #[arg(long)]
    pub quiet: bool,
}

/// One player's standing at the end.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Standing {
    pub name: String,
    pub games: u32,
    pub points: f64,
    pub result: Wdl,
    pub elo: f64,
    pub elo_error: f64,
    pub time_forfeits: u32,
    pub crashes: u32,
    pub hangs: u32,
    pub illegal_moves: u32,
    pub disconnects: u32,
    /// The least time it had left on its clock as it moved, in milliseconds, over all games
    /// (clocked players only).
    pub least_time_left_ms: Option<u64>,
}

/// A pairing's result, from the first-named player's side.
#[derive(Clone, Debug, Serialize)]
pub struct PairResult {
    pub first: String,
    pub second: String,
    pub result: Wdl,
    pub score: f64,
    pub elo: f64,
    pub elo_error: f64,
    pub los: f64,
    pub draw_ratio: f64,
}

#[derive(Clone, Debug, Serialize)]
pub struct Summary {
    pub games: usize,
    pub players: Vec<Standing>,
    pub pairs: Vec<PairResult>,
    pub endings: Vec<(String, u32)>,
    pub sprt: Option<SprtSummary>,
}

#[derive(Clone, Debug, Serialize)]
pub struct SprtSummary {
    pub elo0: f64,
    pub elo1: f64,
    pub alpha: f64,
    pub beta: f64,
    pub llr: f64,
    pub lower: f64,
    pub upper: f64,
    pub state: SprtState,
}

fn kv(word: &str) -> Result<(&str, &str), Error> {
    word.split_once('=')
        .ok_or_else(|| Error::Invalid(format!("'{word}' is not KEY=VALUE")))
}

fn number<T: std::str::FromStr>(key: &str, v: &str) -> Result<T, Error> {
    v.parse()
        .map_err(|_| Error::Invalid(format!("{key}={v}: not a number")))
}

fn seconds(key: &str, v: &str) -> Result<Duration, Error> {
    let s: f64 = number(key, v)?;
    if !(s.is_finite() && s >= 0.0) {
        return Err(Error::Invalid(format!("{key}={v}: not a time in seconds")));
    }
    Ok(Duration::from_secs_f64(s))
}

/// Parses `tc=10+0.1` (or `40/60+0.5`: moves per control are not kept, the base is).
fn parse_tc(v: &str) -> Result<Limit, Error> {
    let v = v.rsplit('/').next().unwrap_or(v);
    let (base, inc) = v.split_once('+').unwrap_or((v, "0"));
    let base = seconds("tc", base)?;
    if base.is_zero() {
        return Err(Error::Invalid(
            "tc: the base time must be above zero".into(),
        ));
    }
    Ok(Limit::Clock {
        base,
        inc: seconds("tc", inc)?,
    })
}

/// A player from its `KEY=VALUE` words (after `--each`).
pub fn parse_player(words: &[String], index: usize, seed: u64) -> Result<PlayerSpec, Error> {
    let mut name = None;
    let mut internal = None;
    let mut cmd: Vec<String> = Vec::new();
    let mut proto = Proto::Uci;
    let mut limit = None;
    let mut options = Vec::new();
    let (mut threads, mut hash_mb, mut syzygy) = (1, 16, None);
    for w in words {
        let (k, v) = kv(w)?;
        match k {
            "name" => name = Some(v.to_string()),
            "engine" => {
                crate::registry::create(v, &crate::engine::EngineOptions::default())?;
                internal = Some(v.to_string());
            }
            "cmd" => cmd.extend(v.split_whitespace().map(str::to_string)),
            "arg" => cmd.push(v.to_string()),
            "proto" => {
                proto = match v {
                    "uci" => Proto::Uci,
                    "xboard" | "cecp" => Proto::Xboard,
                    _ => return Err(Error::Invalid(format!("proto={v}: use uci or xboard"))),
                }
            }
            "tc" => limit = Some(parse_tc(v)?),
            "st" => limit = Some(Limit::MoveTime(seconds(k, v)?)),
            "depth" => limit = Some(Limit::Depth(number(k, v)?)),
            "nodes" => limit = Some(Limit::Nodes(number(k, v)?)),
            "threads" => threads = number(k, v)?,
            "hash" => hash_mb = number(k, v)?,
            "syzygy" => syzygy = Some(Syzygy::open(v)?),
            _ if k.starts_with("option.") => {
                options.push((k["option.".len()..].to_string(), v.to_string()));
                if k.eq_ignore_ascii_case("option.threads") {
                    threads = number(k, v)?;
                }
                if k.eq_ignore_ascii_case("option.hash") {
                    hash_mb = number(k, v)?;
                }
            }
            _ => {
                return Err(Error::Invalid(format!(
                    "unknown engine setting '{k}' (name, engine, cmd, arg, proto, tc, st, depth, nodes, threads, hash, syzygy, option.NAME)"
                )));
            }
        }
    }
    let kind = match (internal, cmd.is_empty()) {
        (Some(_), false) => {
            return Err(Error::Invalid(
                "give a player either engine= or cmd=, not both".into(),
            ));
        }
        (Some(engine), true) => Kind::Internal { engine },
        (None, false) => Kind::External {
            cmd: cmd[0].clone(),
            args: cmd[1..].to_vec(),
            proto,
        },
        (None, true) => {
            return Err(Error::Invalid(format!(
                "player {}: needs engine=NAME (a ladder engine) or cmd=PATH (a program)",
                index + 1
            )));
        }
    };
    let name = name.unwrap_or_else(|| match &kind {
        Kind::Internal { engine } => engine.clone(),
        Kind::External { cmd, .. } => std::path::Path::new(cmd)
            .file_name()
            .map_or(cmd.clone(), |f| f.to_string_lossy().into_owned()),
    });
    let limit = limit.ok_or_else(|| {
        Error::Invalid(format!(
            "player '{name}' needs a limit: tc=BASE+INC, st=SECONDS, depth=N or nodes=N"
        ))
    })?;
    if let Kind::External { .. } = kind
        && proto == Proto::Uci
    {
        // Internal engines take threads and hash directly; external ones as UCI options.
        for (key, value) in [("Threads", threads), ("Hash", hash_mb)] {
            if words
                .iter()
                .any(|w| w.starts_with(&format!("{}=", key.to_lowercase())))
                && !options.iter().any(|(k, _)| k.eq_ignore_ascii_case(key))
            {
                options.push((key.to_string(), value.to_string()));
            }
        }
    }
    Ok(PlayerSpec {
        name,
        kind,
        limit,
        options,
        threads: threads.max(1),
        hash_mb: hash_mb.max(1),
        syzygy,
        seed: seed.wrapping_add(index as u64 * 1_000_003),
    })
}

fn parse_adjudication(args: &MatchArgs) -> Result<Adjudication, Error> {
    let mut adj = Adjudication::default();
    if !args.draw.is_empty() {
        let (mut from, mut count, mut score) = (40, 8, 10);
        for w in &args.draw {
            let (k, v) = kv(w)?;
            match k {
                "movenumber" => from = number(k, v)?,
                "movecount" => count = number(k, v)?,
                "score" => score = number(k, v)?,
                _ => {
                    return Err(Error::Invalid(format!(
                        "unknown draw setting '{k}' (movenumber, movecount, score)"
                    )));
                }
            }
        }
        adj.draw = Some((from, count.max(1), score));
    }
    if !args.resign.is_empty() {
        let (mut count, mut score) = (4, 1000);
        for w in &args.resign {
            let (k, v) = kv(w)?;
            match k {
                "movecount" => count = number(k, v)?,
                "score" => score = number(k, v)?,
                _ => {
                    return Err(Error::Invalid(format!(
                        "unknown resign setting '{k}' (movecount, score)"
                    )));
                }
            }
        }
        adj.resign = Some((count.max(1), score));
    }
    adj.max_moves = args.maxmoves;
    adj.tablebases = args.tb.as_deref().map(Syzygy::open).transpose()?;
    Ok(adj)
}

/// Whether `cmd` names a program that can be started: a path to an executable file, or a name
/// found on `PATH`.
fn is_program(cmd: &str) -> bool {
    let executable = |p: &std::path::Path| {
        p.is_file() && {
            #[cfg(unix)]
            {
                use std::os::unix::fs::PermissionsExt;
                p.metadata()
                    .is_ok_and(|m| m.permissions().mode() & 0o111 != 0)
            }
            #[cfg(not(unix))]
            {
                true
            }
        }
    };
    if cmd.contains(std::path::MAIN_SEPARATOR) || cmd.contains('/') {
        return executable(std::path::Path::new(cmd));
    }
    std::env::var_os("PATH")
        .is_some_and(|paths| std::env::split_paths(&paths).any(|d| executable(&d.join(cmd))))
}

/// Builds the configuration a command line asks for.
pub fn config(args: &MatchArgs) -> Result<Config, Error> {
    if args.engines.len() < 2 {
        return Err(Error::Invalid("a match needs at least two --engine".into()));
    }
    let players = args
        .engines
        .iter()
        .enumerate()
        .map(|(i, words)| {
            let all: Vec<String> = args.each.iter().chain(words).cloned().collect();
            parse_player(&all, i, args.seed)
        })
        .collect::<Result<Vec<_>, _>>()?;
    // A program that cannot start, or a rung whose options cannot be honoured, would lose every
    // game by forfeit: refused before the first.
    for p in &players {
        match &p.kind {
            Kind::External { cmd, .. } if !is_program(cmd) => {
                return Err(Error::Invalid(format!(
                    "player '{}': no program '{cmd}' (not found, or not executable)",
                    p.name
                )));
            }
            Kind::Internal { engine } => {
                crate::tournament::player::internal_settings(p, engine)
                    .map_err(|e| Error::Invalid(format!("player '{}': {e}", p.name)))?;
            }
            Kind::External { .. } => {}
        }
    }
    let mut openings = match &args.openings {
        Some(path) => runner::load_openings(path)?,
        None => Vec::new(),
    };
    if args.random {
        runner::shuffle(&mut openings, args.seed);
    }
    if args.rounds == 0 || args.games == 0 {
        return Err(Error::Invalid(
            "--rounds and --games must be at least 1".into(),
        ));
    }
    Ok(Config {
        players,
        schedule: if args.tournament == "gauntlet" {
            Schedule::Gauntlet
        } else {
            Schedule::RoundRobin
        },
        rounds: args.rounds,
        games: args.games,
        openings,
        concurrency: args.concurrency.max(1),
        adjudication: parse_adjudication(args)?,
        time_margin: Duration::from_millis(args.time_margin),
        move_timeout: Duration::from_secs(args.timeout.max(1)),
        event: "Rookery match".into(),
    })
}

/// Results as they accumulate.
struct Tally {
    names: Vec<String>,
    /// `pair[i][j]`: i's results against j.
    pair: Vec<Vec<Wdl>>,
    standings: Vec<Standing>,
    endings: Vec<(String, u32)>,
    played: usize,
}

impl Tally {
    fn new(names: Vec<String>) -> Tally {
        let n = names.len();
        Tally {
            pair: vec![vec![Wdl::default(); n]; n],
            standings: names
                .iter()
                .map(|name| Standing {
                    name: name.clone(),
                    ..Standing::default()
                })
                .collect(),
            names,
            endings: Vec::new(),
            played: 0,
        }
    }

    fn add(&mut self, p: &Played) {
        self.played += 1;
        let (w, b) = (p.job.white, p.job.black);
        self.pair[w][b].add(p.white_score);
        self.pair[b][w].add(1.0 - p.white_score);
        self.standings[w].result.add(p.white_score);
        self.standings[b].result.add(1.0 - p.white_score);
        if let Some((who, kind)) = p.culprit {
            let s = &mut self.standings[who];
            match kind {
                "time forfeit" => s.time_forfeits += 1,
                "crash" => s.crashes += 1,
                "hang" => s.hangs += 1,
                "illegal move" => s.illegal_moves += 1,
                _ => s.disconnects += 1,
            }
        }
        for &(who, left) in &p.least_left {
            let ms = u64::try_from(left.as_millis()).unwrap_or(u64::MAX);
            let s = &mut self.standings[who];
            s.least_time_left_ms = Some(s.least_time_left_ms.map_or(ms, |l| l.min(ms)));
        }
        let ending = p.ending.to_string();
        match self.endings.iter_mut().find(|(e, _)| *e == ending) {
            Some((_, n)) => *n += 1,
            None => self.endings.push((ending, 1)),
        }
    }

    fn summary(&self, sprt: Option<&Sprt>) -> Summary {
        let mut players = self.standings.clone();
        for s in &mut players {
            s.games = s.result.games();
            s.points = f64::from(s.result.wins) + f64::from(s.result.draws) / 2.0;
            s.elo = s.result.elo();
            s.elo_error = s.result.elo_error();
        }
        let mut pairs = Vec::new();
        for i in 0..self.names.len() {
            for j in i + 1..self.names.len() {
                let r = self.pair[i][j];
                if r.games() > 0 {
                    pairs.push(PairResult {
                        first: self.names[i].clone(),
                        second: self.names[j].clone(),
                        result: r,
                        score: r.score(),
                        elo: r.elo(),
                        elo_error: r.elo_error(),
                        los: r.los(),
                        draw_ratio: r.draw_ratio(),
                    });
                }
            }
        }
        let sprt = sprt.map(|s| {
            let r = self.pair[0][1];
            let (lower, upper) = s.bounds();
            SprtSummary {
                elo0: s.elo0,
                elo1: s.elo1,
                alpha: s.alpha,
                beta: s.beta,
                llr: r.llr(s.elo0, s.elo1),
                lower,
                upper,
                state: s.state(&r),
            }
        });
        Summary {
            games: self.played,
            players,
            pairs,
            endings: self.endings.clone(),
            sprt,
        }
    }
}

fn fmt_elo(elo: f64, err: f64) -> String {
    let e = if elo.is_finite() {
        format!("{elo:+.1}")
    } else if elo > 0.0 {
        "+inf".into()
    } else {
        "-inf".into()
    };
    let r = if err.is_finite() {
        format!("{err:.1}")
    } else {
        "inf".into()
    };
    format!("{e} +/- {r}")
}

fn bar(done: usize, total: usize) -> String {
    let width = 20;
    let filled = (done * width).checked_div(total).unwrap_or(width);
    format!("[{}{}]", "#".repeat(filled), "-".repeat(width - filled))
}

/// Prints the final report.
pub fn print_summary(out: &mut impl Write, s: &Summary) -> std::io::Result<()> {
    writeln!(out, "Games: {}", s.games)?;
    for p in &s.pairs {
        writeln!(
            out,
            "Score of {} vs {}: {} - {} - {}  [{:.3}] {}",
            p.first,
            p.second,
            p.result.wins,
            p.result.losses,
            p.result.draws,
            p.score,
            p.result.games()
        )?;
        writeln!(
            out,
            "Elo difference: {}, LOS: {:.1} %, DrawRatio: {:.1} %",
            fmt_elo(p.elo, p.elo_error),
            p.los * 100.0,
            p.draw_ratio * 100.0
        )?;
    }
    if s.players.len() > 2 {
        writeln!(out)?;
        writeln!(
            out,
            "{:<5}{:<20}{:>7}{:>7}{:>7}  {:<18}",
            "Rank", "Name", "Games", "Points", "Score", "Elo vs field"
        )?;
        let mut order: Vec<&Standing> = s.players.iter().collect();
        order.sort_by(|a, b| b.points.total_cmp(&a.points));
        for (i, p) in order.iter().enumerate() {
            writeln!(
                out,
                "{:<5}{:<20}{:>7}{:>7.1}{:>6.1}%  {}",
                i + 1,
                p.name,
                p.games,
                p.points,
                p.result.score() * 100.0,
                fmt_elo(p.elo, p.elo_error)
            )?;
        }
        // The crosstable: each row's points against each column, of the games they played.
        writeln!(out)?;
        write!(out, "{:<20}", "Crosstable")?;
        for (i, _) in order.iter().enumerate() {
            write!(out, "{:>9}", i + 1)?;
        }
        writeln!(out)?;
        for (i, row) in order.iter().enumerate() {
            write!(out, "{:<20}", format!("{} {}", i + 1, row.name))?;
            for col in &order {
                let cell = if row.name == col.name {
                    "-".to_string()
                } else {
                    s.pairs
                        .iter()
                        .find_map(|p| {
                            if p.first == row.name && p.second == col.name {
                                Some(p.result)
                            } else if p.first == col.name && p.second == row.name {
                                Some(Wdl {
                                    wins: p.result.losses,
                                    draws: p.result.draws,
                                    losses: p.result.wins,
                                })
                            } else {
                                None
                            }
                        })
                        .map_or("".to_string(), |r| {
                            let pts = f64::from(r.wins) + f64::from(r.draws) / 2.0;
                            format!("{pts}/{}", r.games())
                        })
                };
                write!(out, "{cell:>9}")?;
            }
            writeln!(out)?;
        }
    }
    writeln!(
        out,
        "\n{:<20}{:>8}{:>8}{:>8}{:>8}{:>8}{:>12}",
        "Faults", "flags", "crashes", "hangs", "illegal", "discon.", "least left"
    )?;
    for p in &s.players {
        let left = p
            .least_time_left_ms
            .map_or("-".to_string(), |ms| format!("{:.3} s", ms as f64 / 1000.0));
        writeln!(
            out,
            "{:<20}{:>8}{:>8}{:>8}{:>8}{:>8}{:>12}",
            p.name, p.time_forfeits, p.crashes, p.hangs, p.illegal_moves, p.disconnects, left
        )?;
    }
    let endings: Vec<String> = s.endings.iter().map(|(e, n)| format!("{e} {n}")).collect();
    writeln!(out, "Endings: {}", endings.join(", "))?;
    if let Some(t) = &s.sprt {
        let verdict = match t.state {
            SprtState::H1 => "H1 accepted",
            SprtState::H0 => "H0 accepted",
            SprtState::Continue => "no decision yet",
        };
        writeln!(
            out,
            "SPRT: elo0={} elo1={} alpha={} beta={}: LLR {:.2} ({:.2}, {:.2}): {verdict}",
            t.elo0, t.elo1, t.alpha, t.beta, t.llr, t.lower, t.upper
        )?;
    }
    Ok(())
}

pub fn run(args: MatchArgs) -> Result<i32, Error> {
    for (path, option) in [(&args.pgn, "--pgn"), (&args.json, "--json")] {
        if let Some(path) = path {
            super::args::check_output(path, option)?;
        }
    }
    let cfg = config(&args)?;
    let sprt = if args.sprt.is_empty() {
        None
    } else {
        if cfg.players.len() != 2 {
            return Err(Error::Invalid("--sprt needs exactly two engines".into()));
        }
        Some(Sprt::parse(&args.sprt).map_err(Error::Invalid)?)
    };
    let mut pgn_file = match &args.pgn {
        Some(path) => Some(
            std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)
                .map_err(|e| Error::io(path, e))?,
        ),
        None => None,
    };
    let jobs = runner::schedule(&cfg);
    let total = jobs.len();
    let mut tally = Tally::new(cfg.players.iter().map(|p| p.name.clone()).collect());
    let stdout = std::io::stdout();
    let mut write_error = None;
    runner::run(&cfg, jobs, |p| {
        tally.add(p);
        if let Some(f) = pgn_file.as_mut()
            && let Err(e) = writeln!(f, "{}", p.pgn)
        {
            write_error = Some(Error::io(args.pgn.as_deref().unwrap_or("pgn"), e));
        }
        if !args.quiet {
            let (w, b) = (p.job.white, p.job.black);
            let (first, second) = (w.min(b), w.max(b));
            let r = tally.pair[first][second];
            let _ = writeln!(
                stdout.lock(),
                "{} {}/{}  {} - {} {} ({})  |  {} vs {}: +{} ={} -{} [{:.3}] Elo {}",
                bar(tally.played, total),
                tally.played,
                total,
                cfg.players[w].name,
                cfg.players[b].name,
                p.result(),
                p.ending,
                cfg.players[first].name,
                cfg.players[second].name,
                r.wins,
                r.draws,
                r.losses,
                r.score(),
                fmt_elo(r.elo(), r.elo_error())
            );
        }
        match &sprt {
            Some(s) => s.state(&tally.pair[0][1]) == SprtState::Continue,
            None => true,
        }
    });
    if let Some(e) = write_error {
        return Err(e);
    }
    let summary = tally.summary(sprt.as_ref());
    let mut out = stdout.lock();
    writeln!(out).ok();
    print_summary(&mut out, &summary).map_err(|e| Error::io("stdout", e))?;
    if let Some(path) = &args.json {
        let text = serde_json::to_string_pretty(&summary)
            .map_err(|e| Error::Invalid(format!("JSON: {e}")))?;
        std::fs::write(path, text).map_err(|e| Error::io(path, e))?;
    }
    Ok(0)
}
