//! UCI conformance: what match runners (fastchess, cutechess, OpenBench's client) and GUIs rely
//! on, written from the protocol and checked on the built binary over pipes. Each check returns
//! what went wrong instead of panicking, so the same checks also run on a tampered engine (the
//! binary behind a relay that breaks one kind of answer) and must fail there: a check that cannot
//! fail proves nothing.
//!
//! Covered in tests/uci.rs and not repeated here: that `uci` lists every option of the table in
//! its order (`handshake_lists_every_option`); one `bestmove` on `stop` after `go infinite`, and a
//! second `stop` giving none (`isready_during_infinite_and_one_bestmove_on_stop`); the last PV's
//! first move and ponder move over `stop` at many moments and over many node counts and move
//! times (`the_last_info_line_starts_with_the_move_played_then_the_ponder_move`); `quit` and the
//! end of input within a second whatever runs (`quit_and_end_of_input_leave_within_a_second`);
//! bad input answered and survived (`garbage_and_illegal_input_leave_it_running`); the same
//! search after `ucinewgame` (`go_nodes_repeats_exactly_after_ucinewgame`). What this file adds:
//! the grammar of the `id`/`option` lines and of every `info` line; `setoption` over every option
//! and value kind; `position` in all its forms read back; every `go` limit honoured, with a PV
//! that is legal move by move and a score of the protocol's form; `isready` during every kind of
//! search; silence after `bestmove`; whole games between `ucinewgame`s on a running clock.

mod common;

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use common::uci::Engine;
use shakmaty::fen::Fen;
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess, EnPassantMode, Move, Position};

type Check = Result<(), String>;

macro_rules! ensure {
    ($cond:expr, $($msg:tt)+) => {
        if !$cond {
            return Err(format!($($msg)+));
        }
    };
}

/// How long an answer that should come at once may take (a loaded machine, a test build).
const PROMPT: Duration = Duration::from_secs(2);
/// How long a search with no limit of its own must go on without a `bestmove`.
const HOLD: Duration = Duration::from_millis(400);
/// How long the engine must stay silent after a `bestmove` (nothing is asked meanwhile).
const SILENCE: Duration = Duration::from_millis(120);
/// What a move may take beyond `movetime` (the pipe, the process, a loaded machine).
const MOVETIME_SLACK: Duration = Duration::from_millis(400);

/// One way to break the engine's side of the protocol, for the checks to catch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Fault {
    /// `bestmove` names another legal move than the one the search reported.
    OtherBestmove,
    /// Every PV loses its first move.
    PvWithoutItsFirstMove,
    /// Every PV plays its first move twice.
    IllegalPv,
    /// `info` lines lose their score.
    NoScore,
    /// An `info` line follows every `bestmove`.
    LineAfterBestmove,
    /// `isready` goes unanswered while a search runs.
    NoReadyokDuringASearch,
    /// The `id name` line is missing.
    NoIdName,
    /// The `Hash` option line lacks its `max`.
    MalformedOptionLine,
    /// Refused `setoption` values are taken silently (every `info string` is lost).
    SilentRefusals,
    /// `position` forgets its moves.
    PositionWithoutMoves,
    /// `stop` is ignored.
    IgnoresStop,
    /// `ponderhit` is ignored.
    IgnoresPonderhit,
    /// `go ponder` is searched as a normal `go`: a `bestmove` while pondering.
    BestmoveWhilePondering,
    /// `go depth N` searches two plies deeper.
    DeeperThanAsked,
    /// `go movetime T` thinks five times as long.
    LongerThanMovetime,
    /// A clock move thinks as long as all the time left and a little more.
    OverrunsTheClock,
}

const FAULTS: [Fault; 16] = [
    Fault::OtherBestmove,
    Fault::PvWithoutItsFirstMove,
    Fault::IllegalPv,
    Fault::NoScore,
    Fault::LineAfterBestmove,
    Fault::NoReadyokDuringASearch,
    Fault::NoIdName,
    Fault::MalformedOptionLine,
    Fault::SilentRefusals,
    Fault::PositionWithoutMoves,
    Fault::IgnoresStop,
    Fault::IgnoresPonderhit,
    Fault::BestmoveWhilePondering,
    Fault::DeeperThanAsked,
    Fault::LongerThanMovetime,
    Fault::OverrunsTheClock,
];

/// The check that must catch each fault.
fn caught_by(fault: Fault) -> fn(&mut Uci) -> Check {
    match fault {
        Fault::NoIdName | Fault::MalformedOptionLine => handshake,
        Fault::SilentRefusals => setoption_every_kind,
        Fault::PositionWithoutMoves => position_every_form,
        Fault::NoReadyokDuringASearch => isready_during_every_search,
        Fault::OverrunsTheClock => games_between_ucinewgames,
        _ => go_every_limit,
    }
}

/// The engine as the checks see it: the built binary behind a relay that passes commands and
/// lines through, or breaks them as its `Fault` says.
struct Uci {
    engine: Engine,
    fault: Option<Fault>,
    /// What the relay has read of the conversation: the last `position`, and whether a `go`
    /// awaits its `bestmove`.
    position: Chess,
    searching: bool,
    queue: VecDeque<String>,
}

/// One search as a client reads it: every line up to the `bestmove`, that line, and how long
/// it took from the `go`.
struct Search {
    lines: Vec<String>,
    best: String,
    took: Duration,
}

impl Uci {
    fn start(fault: Option<Fault>) -> Uci {
        Uci {
            engine: Engine::start(),
            fault,
            position: Chess::default(),
            searching: false,
            queue: VecDeque::new(),
        }
    }

    fn send(&mut self, cmd: &str) {
        if cmd.starts_with("position ")
            && let Ok(pos) = position_of(cmd)
        {
            self.position = pos;
        }
        if cmd.starts_with("go") {
            self.searching = true;
        }
        let cmd = match self.fault {
            Some(Fault::PositionWithoutMoves) if cmd.starts_with("position ") => {
                cmd.split(" moves").next().unwrap().to_string()
            }
            Some(Fault::IgnoresStop) if cmd == "stop" => return,
            Some(Fault::IgnoresPonderhit) if cmd == "ponderhit" => return,
            Some(Fault::BestmoveWhilePondering) if cmd.starts_with("go ponder") => {
                cmd.replacen("go ponder", "go", 1)
            }
            Some(Fault::DeeperThanAsked) if cmd.starts_with("go depth ") => {
                let d: u32 = word_after(cmd, "depth").unwrap().parse().unwrap();
                format!("go depth {}", d + 2)
            }
            Some(Fault::LongerThanMovetime) if cmd.starts_with("go movetime ") => {
                let t: u64 = word_after(cmd, "movetime").unwrap().parse().unwrap();
                format!("go movetime {}", 5 * t)
            }
            Some(Fault::OverrunsTheClock) if cmd.starts_with("go wtime ") => {
                let key = match self.position.turn() {
                    shakmaty::Color::White => "wtime",
                    shakmaty::Color::Black => "btime",
                };
                let t: u64 = word_after(cmd, key).unwrap().parse().unwrap();
                format!("go movetime {}", t + 100)
            }
            _ => cmd.to_string(),
        };
        self.engine.send(&cmd);
    }

    /// What the relay makes of one line of the engine's.
    fn relay(&mut self, line: String) -> Vec<String> {
        let was_searching = self.searching;
        if line.starts_with("bestmove") {
            self.searching = false;
        }
        let Some(fault) = self.fault else {
            return vec![line];
        };
        let pv_split = |line: &str| -> Option<(String, Vec<String>)> {
            let (head, pv) = line.split_once(" pv ")?;
            Some((
                head.to_string(),
                pv.split_whitespace().map(str::to_string).collect(),
            ))
        };
        match fault {
            Fault::OtherBestmove if line.starts_with("bestmove ") => {
                let played = line.split_whitespace().nth(1).unwrap_or("");
                let other = self
                    .position
                    .legal_moves()
                    .iter()
                    .map(|m| m.to_uci(CastlingMode::Standard).to_string())
                    .find(|m| m != played);
                match other {
                    Some(m) => vec![format!("bestmove {m}")],
                    None => vec![line],
                }
            }
            Fault::PvWithoutItsFirstMove | Fault::IllegalPv if line.starts_with("info ") => {
                match pv_split(&line) {
                    Some((head, mut pv)) => {
                        if fault == Fault::IllegalPv {
                            pv.insert(0, pv[0].clone());
                        } else if pv.len() > 1 {
                            pv.remove(0);
                        } else {
                            pv[0] = "0000".into();
                        }
                        vec![format!("{head} pv {}", pv.join(" "))]
                    }
                    None => vec![line],
                }
            }
            Fault::NoScore if line.starts_with("info ") && line.contains(" score ") => {
                let words: Vec<&str> = line.split_whitespace().collect();
                let at = words.iter().position(|w| *w == "score").unwrap();
                let mut kept: Vec<&str> = words[..at].to_vec();
                kept.extend(&words[(at + 3).min(words.len())..]);
                vec![kept.join(" ")]
            }
            Fault::LineAfterBestmove if line.starts_with("bestmove ") => {
                let played = line.split_whitespace().nth(1).unwrap_or("").to_string();
                vec![line, format!("info depth 1 score cp 0 pv {played}")]
            }
            Fault::NoReadyokDuringASearch if line == "readyok" && was_searching => vec![],
            Fault::NoIdName if line.starts_with("id name ") => vec![],
            Fault::MalformedOptionLine if line.starts_with("option name Hash ") => {
                vec![line.split(" max ").next().unwrap().to_string()]
            }
            Fault::SilentRefusals if line.starts_with("info string ") => vec![],
            _ => vec![line],
        }
    }

    /// The next line, if one comes within `wait`.
    fn next(&mut self, wait: Duration) -> Option<String> {
        let deadline = Instant::now() + wait;
        loop {
            if let Some(line) = self.queue.pop_front() {
                return Some(line);
            }
            let left = deadline.checked_duration_since(Instant::now())?;
            let line = self.engine.line_within(left)?;
            let relayed = self.relay(line);
            self.queue.extend(relayed);
        }
    }

    /// The lines up to and including the first that satisfies `done`, if it comes in `wait`.
    fn until(
        &mut self,
        what: &str,
        wait: Duration,
        done: impl Fn(&str) -> bool,
    ) -> Result<Vec<String>, String> {
        let deadline = Instant::now() + wait;
        let mut seen = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.next(left) {
                Some(line) => {
                    let stop = done(&line);
                    seen.push(line);
                    if stop {
                        return Ok(seen);
                    }
                }
                None => return Err(format!("no {what} within {wait:?}; got {seen:?}")),
            }
        }
    }

    /// Whatever the engine says before a silence of `d`.
    fn quiet(&mut self, d: Duration) -> Vec<String> {
        let mut said = Vec::new();
        while let Some(line) = self.next(d) {
            said.push(line);
        }
        said
    }

    /// `isready`: the lines up to `readyok`.
    fn ready(&mut self) -> Result<Vec<String>, String> {
        self.send("isready");
        self.until("readyok", PROMPT, |l| l == "readyok")
    }

    /// `setoption`, then `isready`: whether the engine refused it (an `info string`), and
    /// the lines it said.
    fn set(&mut self, name: &str, value: Option<&str>) -> Result<(bool, Vec<String>), String> {
        match value {
            Some(v) => self.send(&format!("setoption name {name} value {v}")),
            None => self.send(&format!("setoption name {name}")),
        }
        let lines = self.ready()?;
        let refused = lines.iter().any(|l| l.starts_with("info string "));
        Ok((refused, lines))
    }

    /// Sends `go`, waits up to `wait` for its `bestmove`.
    fn go(&mut self, go: &str, wait: Duration) -> Result<Search, String> {
        let sent = Instant::now();
        self.send(go);
        let lines = self.until(&format!("bestmove after '{go}'"), wait, |l| {
            l.starts_with("bestmove")
        })?;
        Ok(Search {
            best: lines.last().unwrap().clone(),
            took: sent.elapsed(),
            lines,
        })
    }

    /// No `bestmove` for `HOLD` after `go`: the lines said meanwhile.
    fn holds(&mut self, go: &str) -> Result<Vec<String>, String> {
        self.send(go);
        let said = self.quiet_until(HOLD);
        ensure!(
            !said.iter().any(|l| l.starts_with("bestmove")),
            "'{go}' gave a bestmove before it was told to stop: {said:?}"
        );
        Ok(said)
    }

    /// Every line the engine says within `d`.
    fn quiet_until(&mut self, d: Duration) -> Vec<String> {
        let deadline = Instant::now() + d;
        let mut said = Vec::new();
        while let Some(line) = self.next(deadline.saturating_duration_since(Instant::now())) {
            said.push(line);
        }
        said
    }
}

fn word_after<'a>(line: &'a str, key: &str) -> Option<&'a str> {
    let mut words = line.split_whitespace();
    words.find(|w| *w == key)?;
    words.next()
}

/// The position a `position` command sets up, read by the rules library.
fn position_of(cmd: &str) -> Result<Chess, String> {
    let words: Vec<&str> = cmd.split_whitespace().collect();
    let moves_at = words.iter().position(|w| *w == "moves");
    let setup = &words[1..moves_at.unwrap_or(words.len())];
    let mut pos = match setup {
        ["startpos"] => Chess::default(),
        ["fen", fen @ ..] => Fen::from_ascii(fen.join(" ").as_bytes())
            .map_err(|e| format!("{cmd}: {e}"))?
            .into_position(CastlingMode::Standard)
            .map_err(|e| format!("{cmd}: {e}"))?,
        _ => return Err(format!("not a position command: {cmd}")),
    };
    for text in moves_at.map_or(&[][..], |i| &words[i + 1..]) {
        let m = legal(&pos, text).map_err(|e| format!("{cmd}: {e}"))?;
        pos.play_unchecked(m);
    }
    Ok(pos)
}

/// `text` as a legal move in `pos`.
fn legal(pos: &Chess, text: &str) -> Result<Move, String> {
    text.parse::<UciMove>()
        .map_err(|_| format!("'{text}' is not a move"))?
        .to_move(pos)
        .map_err(|_| format!("'{text}' is not legal in {}", fen(pos)))
}

fn fen(pos: &Chess) -> String {
    Fen::from_position(pos, EnPassantMode::Legal).to_string()
}

/// The grammar of one `info` line, from the protocol's list of keys.
fn info_grammar(line: &str) -> Check {
    let words: Vec<&str> = line.split_whitespace().collect();
    ensure!(words.first() == Some(&"info"), "not an info line: {line}");
    let number = |at: usize| -> Result<i64, String> {
        words
            .get(at)
            .and_then(|w| w.parse().ok())
            .ok_or_else(|| format!("'{}' needs a number: {line}", words[at - 1]))
    };
    let mut i = 1;
    while i < words.len() {
        match words[i] {
            "string" => return Ok(()),
            "pv" | "refutation" | "currline" => {
                ensure!(i + 1 < words.len(), "an empty '{}': {line}", words[i]);
                return Ok(());
            }
            "depth" | "seldepth" | "time" | "nodes" | "multipv" | "currmovenumber" | "hashfull"
            | "nps" | "tbhits" | "sbhits" | "cpuload" => {
                ensure!(number(i + 1)? >= 0, "a negative '{}': {line}", words[i]);
                i += 2;
            }
            "currmove" => {
                ensure!(i + 1 < words.len(), "an empty 'currmove': {line}");
                i += 2;
            }
            "score" => {
                ensure!(
                    matches!(words.get(i + 1), Some(&"cp" | &"mate")),
                    "a score neither cp nor mate: {line}"
                );
                number(i + 2)?;
                i += 3;
                if matches!(words.get(i), Some(&"lowerbound" | &"upperbound")) {
                    i += 1;
                }
            }
            "wdl" => {
                for k in 1..=3 {
                    number(i + k)?;
                }
                i += 4;
            }
            other => return Err(format!("'{other}' is no info key: {line}")),
        }
    }
    Ok(())
}

/// A search's answer as a client reads it: every `info` line well formed; a `bestmove` legal in
/// `pos` (and its ponder move after it); the last `info` line with a PV before it a legal line
/// from `pos` that starts with the move played, goes on with the ponder move, and has a score
/// `cp N` or `mate N`; and nothing more from the engine until it is asked.
fn verdict(u: &mut Uci, pos: &Chess, s: &Search, what: &str) -> Check {
    for line in s.lines.iter().filter(|l| l.starts_with("info")) {
        info_grammar(line).map_err(|e| format!("{what}: {e}"))?;
    }
    let words: Vec<&str> = s.best.split_whitespace().collect();
    ensure!(
        words.len() == 2 || (words.len() == 4 && words[2] == "ponder"),
        "{what}: '{}' is not 'bestmove M [ponder P]'",
        s.best
    );
    legal(pos, words[1]).map_err(|e| format!("{what}: bestmove {e}"))?;
    let last = s
        .lines
        .iter()
        .rev()
        .find(|l| l.starts_with("info ") && l.contains(" pv "))
        .ok_or_else(|| format!("{what}: no info line with a PV before '{}'", s.best))?;
    let pv: Vec<&str> = last
        .split(" pv ")
        .nth(1)
        .unwrap()
        .split_whitespace()
        .collect();
    ensure!(
        pv[0] == words[1],
        "{what}: the last PV {last:?} does not start with the move played, '{}'",
        s.best
    );
    if let Some(ponder) = words.get(3) {
        ensure!(
            pv.get(1) == Some(ponder),
            "{what}: the last PV {last:?} does not go on with the ponder move of '{}'",
            s.best
        );
    }
    let mut line = pos.clone();
    for text in &pv {
        let m = legal(&line, text).map_err(|e| format!("{what}: the PV {last:?}: {e}"))?;
        line.play_unchecked(m);
    }
    let score = word_after(last, "score");
    ensure!(
        matches!(score, Some("cp" | "mate")),
        "{what}: the last PV line has no score: {last}"
    );
    let after = u.quiet(SILENCE);
    ensure!(
        after.is_empty(),
        "{what}: the engine went on after '{}': {after:?}",
        s.best
    );
    Ok(())
}

/// One option line of the `uci` reply, read.
#[derive(Debug)]
enum Opt {
    Spin { name: String, min: i64, max: i64 },
    Check { name: String },
    Combo { name: String, vars: Vec<String> },
    Text { name: String },
    Button { name: String },
}

/// Reads `option name <name> type <type> ...` by the protocol's grammar.
fn option_line(line: &str) -> Result<Opt, String> {
    let rest = line
        .strip_prefix("option name ")
        .ok_or_else(|| format!("not an option line: {line}"))?;
    let (name, tail) = rest
        .split_once(" type ")
        .ok_or_else(|| format!("no type: {line}"))?;
    ensure!(!name.trim().is_empty(), "no name: {line}");
    let name = name.to_string();
    let words: Vec<&str> = tail.split_whitespace().collect();
    let value = |key: &str| word_after(tail, key);
    let int = |key: &str| -> Result<i64, String> {
        value(key)
            .and_then(|v| v.parse().ok())
            .ok_or_else(|| format!("'{key}' is missing or no number: {line}"))
    };
    match words.first() {
        Some(&"spin") => {
            let (default, min, max) = (int("default")?, int("min")?, int("max")?);
            ensure!(
                min <= default && default <= max,
                "default outside min..max: {line}"
            );
            Ok(Opt::Spin { name, min, max })
        }
        Some(&"check") => {
            ensure!(
                matches!(value("default"), Some("true" | "false")),
                "a check's default is true or false: {line}"
            );
            Ok(Opt::Check { name })
        }
        Some(&"combo") => {
            let vars: Vec<String> = words
                .windows(2)
                .filter(|w| w[0] == "var")
                .map(|w| w[1].to_string())
                .collect();
            let default = value("default").ok_or_else(|| format!("no default: {line}"))?;
            ensure!(
                vars.iter().any(|v| v == default),
                "the default is none of the vars: {line}"
            );
            Ok(Opt::Combo { name, vars })
        }
        Some(&"string") => {
            ensure!(value("default").is_some(), "no default: {line}");
            Ok(Opt::Text { name })
        }
        Some(&"button") => {
            ensure!(words.len() == 1, "a button has no default: {line}");
            Ok(Opt::Button { name })
        }
        _ => Err(format!("no such option type: {line}")),
    }
}

/// `uci`: `id name`, `id author`, then only well-formed `option` lines with names that differ,
/// then `uciok`; `isready` then answers `readyok`. The options read.
fn options(u: &mut Uci) -> Result<Vec<Opt>, String> {
    u.send("uci");
    let lines = u.until("uciok", PROMPT, |l| l == "uciok")?;
    // A banner before the reply (engines print one at start-up, as Stockfish does) is no part
    // of it.
    let first = lines
        .iter()
        .position(|l| l.starts_with("id "))
        .unwrap_or(lines.len() - 1);
    let body = &lines[first..lines.len() - 1];
    let ids: Vec<&String> = body.iter().filter(|l| l.starts_with("id ")).collect();
    ensure!(
        ids.len() == 2
            && ids[0].starts_with("id name ")
            && ids[1].starts_with("id author ")
            && ids.iter().all(|l| l.split_whitespace().count() > 2),
        "the reply to uci needs 'id name X' and 'id author Y': {body:?}"
    );
    let mut options = Vec::new();
    let mut names = std::collections::HashSet::new();
    for line in body.iter().filter(|l| !l.starts_with("id ")) {
        let opt = option_line(line)?;
        let name = match &opt {
            Opt::Spin { name, .. }
            | Opt::Check { name }
            | Opt::Combo { name, .. }
            | Opt::Text { name }
            | Opt::Button { name } => name.to_ascii_lowercase(),
        };
        ensure!(names.insert(name), "an option listed twice: {line}");
        options.push(opt);
    }
    ensure!(!options.is_empty(), "no options listed: {body:?}");
    Ok(options)
}

fn handshake(u: &mut Uci) -> Check {
    let options = options(u)?;
    ensure!(
        options
            .iter()
            .any(|o| matches!(o, Opt::Spin { name, .. } if name == "Hash"))
            && options
                .iter()
                .any(|o| matches!(o, Opt::Spin { name, .. } if name == "Threads")),
        "runners set Hash and Threads: {options:?}"
    );
    u.ready()?;
    Ok(())
}

/// `setoption` over every option the engine lists, by its type: a spin at both ends of its range
/// taken and one past either end refused, a check's true and false taken, every combo var taken,
/// a word that is none of them refused, a string's `<empty>` taken, a button pressed without a
/// value; names with spaces and in another case; a string value with spaces (the debug log's
/// path). Taken means `readyok` with no `info string` before it; refused means an `info string`
/// and play going on. At the end every option is at its default again and a search plays.
fn setoption_every_kind(u: &mut Uci) -> Check {
    let options = options(u)?;
    let taken = |u: &mut Uci, name: &str, value: Option<&str>| -> Check {
        let (refused, lines) = u.set(name, value)?;
        ensure!(
            !refused,
            "setoption {name} {value:?} was refused: {lines:?}"
        );
        Ok(())
    };
    let refused = |u: &mut Uci, name: &str, value: &str| -> Check {
        let (refused, lines) = u.set(name, Some(value))?;
        ensure!(
            refused,
            "setoption {name} '{value}' was taken without a word: {lines:?}"
        );
        Ok(())
    };
    let cap = rookery::options::thread_cap() as i64;
    for opt in &options {
        match opt {
            Opt::Spin { name, min, max } => {
                // Hash and Threads at the top of their range would ask this machine for memory
                // and cores it may not have.
                let top = match name.as_str() {
                    "Hash" => 64.min(*max),
                    "Threads" => cap.min(*max),
                    _ => *max,
                };
                for v in [*min, top] {
                    taken(u, name, Some(&v.to_string()))?;
                }
                for v in [min - 1, max + 1] {
                    refused(u, name, &v.to_string())?;
                }
                refused(u, name, "many")?;
            }
            Opt::Check { name } => {
                taken(u, name, Some("true"))?;
                taken(u, name, Some("false"))?;
                refused(u, name, "maybe")?;
            }
            Opt::Combo { name, vars } => {
                for v in vars {
                    taken(u, name, Some(v))?;
                }
                refused(u, name, "no-such-var")?;
            }
            Opt::Text { name } => taken(u, name, Some("<empty>"))?,
            Opt::Button { name } => taken(u, name, None)?,
        }
    }
    // Names in another case, a name with spaces, a value with spaces.
    taken(u, "move overhead", Some("30"))?;
    taken(u, "MULTIPV", Some("1"))?;
    let dir = std::env::temp_dir().join(format!("rookery conformance {}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let log = dir.join("debug log.txt");
    taken(u, "Debug Log File", Some(log.to_str().unwrap()))?;
    taken(u, "Debug Log File", Some("<empty>"))?;
    let logged = std::fs::read_to_string(&log).unwrap_or_default();
    std::fs::remove_dir_all(&dir).map_err(|e| e.to_string())?;
    ensure!(
        logged.contains("<< isready") && logged.contains(">> readyok"),
        "the debug log at a path with spaces holds no conversation: {logged:?}"
    );
    refused(u, "No Such Option", "1")?;
    // Back to the defaults (`uci` lists them), then a search plays.
    u.send("uci");
    let lines = u.until("uciok", PROMPT, |l| l == "uciok")?;
    for line in lines.iter().filter(|l| l.starts_with("option name ")) {
        let (name, tail) = line["option name ".len()..].split_once(" type ").unwrap();
        if let Some(default) = word_after(tail, "default") {
            taken(u, name, Some(default))?;
        }
    }
    u.send("position startpos moves e2e4");
    let s = u.go("go depth 3", PROMPT)?;
    verdict(
        u,
        &position_of("position startpos moves e2e4")?,
        &s,
        "after setoption",
    )
}

/// A game of `plies` moves or until it ends, each move the `seed`-th legal one by a simple
/// generator: long move lists for `position`.
fn some_game(seed: u64, plies: usize) -> Vec<String> {
    let mut pos = Chess::default();
    let mut state = seed;
    let mut moves = Vec::new();
    while moves.len() < plies && !pos.is_game_over() {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        let legal = pos.legal_moves();
        let m = legal[(state >> 33) as usize % legal.len()];
        moves.push(m.to_uci(CastlingMode::Standard).to_string());
        pos.play_unchecked(m);
    }
    moves
}

/// `position` in every form runners and GUIs send, read back with `d` and compared with the
/// rules library's reading of the same command.
fn position_every_form(u: &mut Uci) -> Check {
    let long = some_game(7, 160).join(" ");
    let forms = [
        "position startpos".to_string(),
        "position startpos moves".to_string(),
        "position startpos moves e2e4".to_string(),
        // Castling, both sides.
        "position startpos moves e2e4 e7e5 g1f3 b8c6 f1c4 g8f6 e1g1 d7d6 d2d3 c8g4 b1c3 d8d7 c1e3 e8c8"
            .to_string(),
        // En passant.
        "position startpos moves e2e4 a7a6 e4e5 d7d5 e5d6".to_string(),
        // Promotion to a queen and to a knight.
        "position fen 8/P6k/8/8/8/8/1p5K/8 w - - 0 1 moves a7a8q b2b1n".to_string(),
        "position fen r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3".to_string(),
        "position fen r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3 moves f1b5 a7a6"
            .to_string(),
        // Black to move with an en passant square, as EPD openings give it.
        "position fen rnbqkbnr/pppp1ppp/8/8/3pP3/8/PPP2PPP/RNBQKBNR b KQkq e3 0 3".to_string(),
        // Extra spaces between the words.
        "position  startpos   moves  d2d4   d7d5".to_string(),
        // A whole game's move list, as runners send it every move.
        format!("position startpos moves {long}"),
        // And back to the start: nothing of the last position is left.
        "position startpos".to_string(),
    ];
    for cmd in &forms {
        let want = fen(&position_of(cmd)?);
        u.send(cmd);
        u.send("d");
        let lines = u.until("Fen line", PROMPT, |l| l.starts_with("Fen: "))?;
        ensure!(
            !lines.iter().any(|l| l.starts_with("info string ")),
            "'{cmd}' was refused: {lines:?}"
        );
        let got = lines.last().unwrap().trim_start_matches("Fen: ");
        ensure!(got == want, "'{cmd}' set up {got}, not {want}");
    }
    Ok(())
}

/// Every `go` limit, each in positions with either side to move: the limit honoured, and the
/// answer read as `verdict` reads it.
fn go_every_limit(u: &mut Uci) -> Check {
    u.send("setoption name Ponder value true");
    u.ready()?;
    let positions = [
        "position startpos",
        "position fen r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R b KQkq - 4 4",
        "position fen 8/5pk1/6p1/2R5/7P/6P1/r4P2/6K1 w - - 0 40",
    ];
    for position in positions {
        let pos = position_of(position)?;
        let own = |go: &str| -> u64 {
            let key = match pos.turn() {
                shakmaty::Color::White => "wtime",
                shakmaty::Color::Black => "btime",
            };
            word_after(go, key).unwrap().parse().unwrap()
        };
        let legal_moves = pos.legal_moves();
        let some: Vec<String> = [0, legal_moves.len() / 2, legal_moves.len() - 1]
            .iter()
            .map(|&i| legal_moves[i].to_uci(CastlingMode::Standard).to_string())
            .collect();
        u.send("ucinewgame");
        u.send(position);
        // The clock, with and without increments and moves to go.
        for go in [
            "go wtime 1500 btime 1500 winc 20 binc 20",
            "go wtime 900 btime 900",
            "go wtime 4000 btime 4000 winc 0 binc 0 movestogo 40",
            "go wtime 600 btime 600 movestogo 2",
            "go btime 1200 wtime 1200 binc 10 winc 10 movestogo 10",
        ] {
            let s = u.go(go, PROMPT + Duration::from_millis(own(go)))?;
            let what = format!("{position}, {go}");
            ensure!(
                s.took < Duration::from_millis(own(go)),
                "{what}: {:?} with {} ms on the clock",
                s.took,
                own(go)
            );
            verdict(u, &pos, &s, &what)?;
        }
        // Depth: the last iteration is the one asked for.
        for depth in [1, 4, 7] {
            let go = format!("go depth {depth}");
            let s = u.go(&go, Duration::from_secs(30))?;
            let what = format!("{position}, {go}");
            let depths: Vec<u32> = s
                .lines
                .iter()
                .filter(|l| l.starts_with("info depth "))
                .filter_map(|l| word_after(l, "depth")?.parse().ok())
                .collect();
            ensure!(
                depths.iter().max() == Some(&depth),
                "{what}: the iterations reported were {depths:?}"
            );
            verdict(u, &pos, &s, &what)?;
        }
        // Nodes: the count reported stays within the budget; a budget smaller than the first
        // iteration still gets that iteration, so the move is a scored one (the verdict).
        for nodes in [1, 500, 20_000] {
            let go = format!("go nodes {nodes}");
            let s = u.go(&go, Duration::from_secs(30))?;
            let what = format!("{position}, {go}");
            let counted = s
                .lines
                .iter()
                .filter_map(|l| word_after(l, "nodes")?.parse::<u64>().ok())
                .max()
                .unwrap_or(0);
            let depths = s
                .lines
                .iter()
                .filter(|l| l.starts_with("info depth "))
                .count();
            ensure!(
                counted <= nodes || (depths == 1 && counted < 2_000),
                "{what}: {counted} nodes reported"
            );
            verdict(u, &pos, &s, &what)?;
        }
        // Move time.
        for ms in [50, 300] {
            let go = format!("go movetime {ms}");
            let s = u.go(&go, Duration::from_secs(10))?;
            let what = format!("{position}, {go}");
            ensure!(
                s.took <= Duration::from_millis(ms) + MOVETIME_SLACK,
                "{what}: {:?}",
                s.took
            );
            verdict(u, &pos, &s, &what)?;
        }
        // searchmoves: the move and the line are among those named.
        let go = format!("go depth 4 searchmoves {} {}", some[0], some[2]);
        let s = u.go(&go, Duration::from_secs(30))?;
        let played = s.best.split_whitespace().nth(1).unwrap_or("").to_string();
        ensure!(
            played == some[0] || played == some[2],
            "{position}, {go}: played {played}"
        );
        verdict(u, &pos, &s, &format!("{position}, {go}"))?;
        // infinite and stop.
        let mut lines = u.holds("go infinite")?;
        let s = u.go("stop", PROMPT)?;
        lines.extend(s.lines);
        let s = Search { lines, ..s };
        verdict(u, &pos, &s, &format!("{position}, go infinite, stop"))?;
        // ponder: a short clock does not end the pondering; ponderhit starts it, and the move
        // comes within the clock. stop ends it at once (the opponent played another move).
        let go = "go ponder wtime 500 btime 500 winc 5 binc 5";
        let mut lines = u.holds(go)?;
        let s = u.go("ponderhit", PROMPT + Duration::from_millis(500))?;
        ensure!(
            s.took < Duration::from_millis(500),
            "{position}, {go}, ponderhit: {:?}",
            s.took
        );
        lines.extend(s.lines);
        let s = Search { lines, ..s };
        verdict(u, &pos, &s, &format!("{position}, {go}, ponderhit"))?;
        let mut lines = u.holds(go)?;
        let s = u.go("stop", PROMPT)?;
        lines.extend(s.lines);
        let s = Search { lines, ..s };
        verdict(u, &pos, &s, &format!("{position}, {go}, stop"))?;
    }
    Ok(())
}

/// `isready` while every kind of search runs: `readyok` at once, before the `bestmove`, and the
/// search goes on until it is stopped.
fn isready_during_every_search(u: &mut Uci) -> Check {
    u.send("setoption name Ponder value true");
    u.ready()?;
    for go in [
        "go wtime 60000 btime 60000 winc 500 binc 500",
        "go wtime 60000 btime 60000 movestogo 1",
        "go movetime 10000",
        "go depth 60",
        "go nodes 100000000",
        "go infinite",
        "go ponder wtime 60000 btime 60000",
    ] {
        u.send("position startpos moves d2d4 g8f6 c2c4 e7e6");
        u.send(go);
        std::thread::sleep(Duration::from_millis(150));
        let asked = Instant::now();
        let lines = u.ready().map_err(|e| format!("{go}: {e}"))?;
        ensure!(
            !lines.iter().any(|l| l.starts_with("bestmove")),
            "{go}: the search ended before readyok came: {lines:?}"
        );
        ensure!(
            asked.elapsed() < Duration::from_secs(1),
            "{go}: readyok after {:?}",
            asked.elapsed()
        );
        let s = u.go("stop", PROMPT)?;
        ensure!(s.best.starts_with("bestmove "), "{go}: {}", s.best);
    }
    Ok(())
}

/// Two games as a runner plays them: `ucinewgame` and `isready` before each, every move sent as
/// `position ... moves` with the whole list and a `go` with the clock as it stands, the clock
/// charged with the time each move took. No move may be illegal or overstep the clock.
fn games_between_ucinewgames(u: &mut Uci) -> Check {
    let starts = [
        "position startpos".to_string(),
        "position fen rnbqkb1r/pp2pppp/3p1n2/8/3NP3/8/PPP2PPP/RNBQKB1R w KQkq - 1 5".to_string(),
    ];
    for start in &starts {
        u.send("ucinewgame");
        u.ready()?;
        let (mut wtime, mut btime, inc) = (1500u64, 1500u64, 20u64);
        let mut moves: Vec<String> = Vec::new();
        let mut pos = position_of(start)?;
        while moves.len() < 40 && !pos.is_game_over() {
            let cmd = if moves.is_empty() {
                start.clone()
            } else {
                format!("{start} moves {}", moves.join(" "))
            };
            u.send(&cmd);
            let go = format!("go wtime {wtime} btime {btime} winc {inc} binc {inc}");
            let own = match pos.turn() {
                shakmaty::Color::White => &mut wtime,
                shakmaty::Color::Black => &mut btime,
            };
            let s = u.go(&go, PROMPT + Duration::from_millis(*own))?;
            let what = format!("{cmd}, {go}");
            let took = s.took.as_millis() as u64;
            ensure!(took < *own, "{what}: lost on time ({took} ms of {})", *own);
            *own = *own - took + inc;
            verdict(u, &pos, &s, &what)?;
            let played = s.best.split_whitespace().nth(1).unwrap().to_string();
            pos.play_unchecked(legal(&pos, &played)?);
            moves.push(played);
        }
        ensure!(
            moves.len() >= 20,
            "{start}: a game of {} plies",
            moves.len()
        );
    }
    Ok(())
}

/// Runs `check` on the engine, tampered with by `fault` where one is given.
fn run(check: fn(&mut Uci) -> Check, fault: Option<Fault>) -> Check {
    let mut u = Uci::start(fault);
    let result = check(&mut u);
    u.engine.send("quit");
    result
}

/// A test for each check, named for what it holds the engine to: `run(check, None)` must pass.
macro_rules! checks_pass {
    ($($test:ident: $check:ident,)*) => {
        $(
            #[test]
            fn $test() {
                run($check, None).unwrap();
            }
        )*
    };
}

checks_pass! {
    handshake_lines_follow_the_grammar: handshake,
    setoption_takes_every_option_kind_and_refuses_what_is_out_of_range: setoption_every_kind,
    position_reads_every_form: position_every_form,
    go_honours_every_limit_with_a_legal_scored_line: go_every_limit,
    isready_is_answered_during_every_search: isready_during_every_search,
    games_between_ucinewgames_are_legal_and_in_time: games_between_ucinewgames,
}

/// Each check fails on the engine broken the way it guards against.
#[test]
fn each_check_fails_on_the_fault_it_guards_against() {
    let mut missed = Vec::new();
    for fault in FAULTS {
        match run(caught_by(fault), Some(fault)) {
            Ok(()) => missed.push(fault),
            Err(e) => eprintln!(
                "{fault:?} caught: {}",
                e.chars().take(200).collect::<String>()
            ),
        }
    }
    assert!(missed.is_empty(), "faults no check caught: {missed:?}");
}

/// Fails the test unless `check` takes every line of `good` and refuses every line of `bad`.
fn assert_sorts<T>(check: fn(&str) -> Result<T, String>, good: &[&str], bad: &[&str]) {
    for line in good {
        assert!(check(line).is_ok(), "{line}");
    }
    for line in bad {
        assert!(check(line).is_err(), "{line}");
    }
}

/// The grammar checks on their own, on lines written by hand.
#[test]
fn the_grammar_checks_refuse_malformed_lines() {
    assert_sorts(
        info_grammar,
        &[
            "info depth 3 seldepth 5 multipv 1 score cp -12 nodes 300 nps 1000 hashfull 0 tbhits 0 time 3 pv e2e4 e7e5",
            "info depth 9 score mate -2 upperbound wdl 0 0 1000 pv e2e4",
            "info string anything at all",
            "info currmove e2e4 currmovenumber 1",
        ],
        &[
            "info depth x pv e2e4",
            "info depth 3 score 12 pv e2e4",
            "info depth 3 score cp pv e2e4",
            "info depth 3 nodes -5 pv e2e4",
            "info depth 3 pv",
            "info deepness 3",
        ],
    );
    assert_sorts(
        option_line,
        &[
            "option name Hash type spin default 16 min 1 max 1024",
            "option name Move Overhead type spin default 10 min 0 max 5000",
            "option name Ponder type check default false",
            "option name Style type combo default Normal var Solid var Normal var Risky",
            "option name SyzygyPath type string default <empty>",
            "option name Clear Hash type button",
        ],
        &[
            "option name Hash type spin default 16 min 1",
            "option name Hash type spin default 0 min 1 max 1024",
            "option name Ponder type check default perhaps",
            "option name Style type combo default Wild var Solid var Normal",
            "option name SyzygyPath type string",
            "option name Clear Hash type button default x",
            "option name Hash type dial default 1",
            "option name  type check default true",
        ],
    );
}
