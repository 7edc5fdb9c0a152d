//! The players of a match: an engine of this crate (called directly), or an external engine
//! speaking UCI or the xboard protocol over pipes. Every wait on an external engine has a
//! deadline; an engine that crashes, hangs or answers nonsense is killed and reported as a
//! [`Fault`], and started afresh for its next game.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::Arc;
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

use shakmaty::{Chess, Color, Move, Position};

use crate::core::game::{fen_of, parse_move, uci};
use crate::core::{Clock, Game, Limits};
use crate::engine::{Engine, EngineOptions, Evaluation, Settings};
use crate::nnue::Network;
use crate::options;
use crate::tb::Syzygy;

/// How long a player may think about one move.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Limit {
    /// A clock: base time and increment per move (kept by the runner).
    Clock {
        base: Duration,
        inc: Duration,
    },
    /// A fixed time per move.
    MoveTime(Duration),
    Depth(u32),
    Nodes(u64),
}

impl Limit {
    /// PGN's TimeControl tag: `10+0.1`, `1/5` (5 s a move), `-` for depth and node limits.
    pub fn pgn(&self) -> String {
        match self {
            Limit::Clock { base, inc } => format!("{}+{}", secs(*base), secs(*inc)),
            Limit::MoveTime(t) => format!("1/{}", secs(*t)),
            Limit::Depth(_) | Limit::Nodes(_) => "-".into(),
        }
    }

    /// The text users write: `tc=10+0.1`, `st=1`, `depth=6`, `nodes=20000`.
    pub fn describe(&self) -> String {
        match self {
            Limit::Clock { .. } => format!("tc={}", self.pgn()),
            Limit::MoveTime(t) => format!("st={}", secs(*t)),
            Limit::Depth(d) => format!("depth={d}"),
            Limit::Nodes(n) => format!("nodes={n}"),
        }
    }
}

fn secs(d: Duration) -> String {
    let s = format!("{:.3}", d.as_secs_f64());
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// The protocol an external engine speaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Proto {
    Uci,
    Xboard,
}

/// One player as the command line describes it.
#[derive(Clone, Debug)]
pub struct PlayerSpec {
    pub name: String,
    pub kind: Kind,
    pub limit: Limit,
    /// UCI `setoption`s (external) / engine settings (internal: `Threads` and `Hash`, as in the
    /// fields below, and `EvalFile`, a net for `rookery`; any other is an error).
    pub options: Vec<(String, String)>,
    pub threads: usize,
    pub hash_mb: usize,
    pub syzygy: Option<Syzygy>,
    /// Seed for this player's random choices (internal engines).
    pub seed: u64,
}

#[derive(Clone, Debug)]
pub enum Kind {
    /// An engine of this crate, by ladder name.
    Internal { engine: String },
    /// A program: command, arguments, protocol.
    External {
        cmd: String,
        args: Vec<String>,
        proto: Proto,
    },
}

/// What went wrong with a player. Each one loses the game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Fault {
    /// The program ended (or never started).
    Crash(String),
    /// No move long after its time: killed.
    Hang,
    /// A move that is not legal (or not a move).
    Illegal(String),
    /// Writing to the program failed: it closed its input.
    Disconnect(String),
}

impl Fault {
    pub fn kind(&self) -> &'static str {
        match self {
            Fault::Crash(_) => "crash",
            Fault::Hang => "hang",
            Fault::Illegal(_) => "illegal move",
            Fault::Disconnect(_) => "disconnect",
        }
    }
}

impl std::fmt::Display for Fault {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Fault::Crash(why) => write!(f, "crashed ({why})"),
            Fault::Hang => f.write_str("stopped answering and was killed"),
            Fault::Illegal(mv) => write!(f, "played an illegal move '{mv}'"),
            Fault::Disconnect(why) => write!(f, "disconnected ({why})"),
        }
    }
}

/// The clocks when a player is asked to move (White's and Black's time left, with increments).
#[derive(Clone, Copy, Debug)]
pub struct Clocks {
    pub white: Duration,
    pub black: Duration,
    pub inc: Duration,
}

/// A player's answer: its move and what it thought of the position (from its own side).
#[derive(Clone, Debug, Default)]
pub struct Thought {
    pub mv: Option<Move>,
    /// Centipawns from the mover's side (mates as ±(30000 - plies)).
    pub score: Option<i32>,
    pub depth: u32,
}

pub trait Player: Send {
    fn name(&self) -> &str;
    /// Prepares for a new game (starting the program if it is not running).
    fn new_game(&mut self) -> Result<(), Fault>;
    /// Chooses a move in `game`. `give_up` is how long the runner waits before it kills the
    /// player as hung.
    fn think(
        &mut self,
        game: &Game,
        clocks: Option<Clocks>,
        give_up: Duration,
    ) -> Result<Thought, Fault>;
}

/// Creates the player a spec describes. External programs start on their first game.
pub fn create(spec: &PlayerSpec) -> Result<Box<dyn Player>, String> {
    match &spec.kind {
        Kind::Internal { engine: name } => {
            let options = EngineOptions {
                seed: spec.seed,
                ..EngineOptions::default()
            };
            let mut e = crate::registry::create(name, &options).map_err(|e| e.to_string())?;
            let settings =
                internal_settings(spec, name).map_err(|e| format!("{}: {e}", spec.name))?;
            e.configure(&settings)
                .map_err(|e| format!("{}: {e}", spec.name))?;
            Ok(Box::new(Internal {
                name: spec.name.clone(),
                engine: e,
                limit: spec.limit,
            }))
        }
        Kind::External { proto, .. } => Ok(Box::new(External {
            spec: spec.clone(),
            proto: *proto,
            process: None,
            xboard: XboardState::default(),
        })),
    }
}

/// The settings of an internal player: its threads, hash and tables, and what its options ask
/// for. `Threads` and `Hash` are already in the spec's fields (the command line puts them
/// there); `EvalFile` loads a net for `rookery` to search with (empty: the built-in net). Any
/// other option is refused, so a setting is never silently dropped. A caller can check a spec
/// with it before the first game (a player that cannot be created loses every game).
pub fn internal_settings(spec: &PlayerSpec, engine: &str) -> Result<Settings, String> {
    let mut settings = Settings {
        hash_mb: spec.hash_mb,
        threads: spec.threads,
        syzygy: spec.syzygy.clone(),
        ..Settings::default()
    };
    for (key, value) in &spec.options {
        let key = key.trim();
        if key.eq_ignore_ascii_case("Threads") || key.eq_ignore_ascii_case("Hash") {
            continue;
        }
        if !key.eq_ignore_ascii_case("EvalFile") {
            return Err(format!(
                "option '{key}' does not apply to an engine of this crate (it takes Threads, Hash and EvalFile)"
            ));
        }
        if !engine.trim().eq_ignore_ascii_case("rookery") {
            return Err(format!(
                "option EvalFile: only the engine rookery searches with a net, not {engine}"
            ));
        }
        let path = value.trim();
        settings.eval = if path.is_empty() || path == "<empty>" {
            Evaluation::builtin_net()
        } else {
            let net = Network::load(path).map_err(|e| format!("option EvalFile: {e}"))?;
            Evaluation::Net(Arc::new(net))
        };
    }
    Ok(settings)
}

/// An engine of this crate, searched on the game's own thread.
struct Internal {
    name: String,
    engine: Box<dyn Engine>,
    limit: Limit,
}

impl Player for Internal {
    fn name(&self) -> &str {
        &self.name
    }

    fn new_game(&mut self) -> Result<(), Fault> {
        self.engine.new_game();
        Ok(())
    }

    fn think(
        &mut self,
        game: &Game,
        clocks: Option<Clocks>,
        _: Duration,
    ) -> Result<Thought, Fault> {
        // The clock runs from the request, as a GUI's does.
        let start = Some(std::time::Instant::now());
        let limits = match (self.limit, clocks) {
            (Limit::Clock { .. }, Some(c)) => Limits {
                clock: Some(Clock {
                    remaining: if game.position().turn() == Color::White {
                        c.white
                    } else {
                        c.black
                    },
                    increment: c.inc,
                    moves_to_go: None,
                }),
                move_overhead: Duration::from_millis(options::default_spin("Move Overhead") as u64),
                ..Limits::default()
            },
            (Limit::MoveTime(t), _) => Limits {
                movetime: Some(t),
                ..Limits::default()
            },
            (Limit::Depth(d), _) => Limits::depth(d),
            (Limit::Nodes(n), _) => Limits {
                nodes: Some(n),
                ..Limits::default()
            },
            (Limit::Clock { .. }, None) => Limits::movetime_ms(1000),
        };
        let limits = Limits { start, ..limits };
        let a = self.engine.analyse(game, &limits);
        Ok(Thought {
            mv: a.best,
            score: a.score,
            depth: a.depth,
        })
    }
}

/// A running program and the lines it has written.
struct Process {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
}

impl Process {
    fn spawn(cmd: &str, args: &[String]) -> Result<Process, Fault> {
        let mut child = Command::new(cmd)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| Fault::Crash(format!("cannot start '{cmd}': {e}")))?;
        let stdin = child.stdin.take().expect("piped");
        let stdout = child.stdout.take().expect("piped");
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Ok(Process {
            child,
            stdin,
            lines,
        })
    }

    fn send(&mut self, line: &str) -> Result<(), Fault> {
        writeln!(self.stdin, "{line}")
            .and_then(|_| self.stdin.flush())
            .map_err(|e| Fault::Disconnect(e.to_string()))
    }

    /// The next line before `deadline`: `Ok(None)` at the deadline, a crash at end of output.
    fn line(&mut self, deadline: Instant) -> Result<Option<String>, Fault> {
        let left = deadline.saturating_duration_since(Instant::now());
        match self.lines.recv_timeout(left) {
            Ok(l) => Ok(Some(l)),
            Err(RecvTimeoutError::Timeout) => Ok(None),
            Err(RecvTimeoutError::Disconnected) => {
                let status = self
                    .child
                    .wait()
                    .map(|s| s.to_string())
                    .unwrap_or_else(|e| e.to_string());
                Err(Fault::Crash(format!("exited: {status}")))
            }
        }
    }

    /// Reads until a line satisfies `done`; `Ok(None)` if the deadline passes first.
    fn until(
        &mut self,
        deadline: Instant,
        mut done: impl FnMut(&str) -> bool,
    ) -> Result<Option<String>, Fault> {
        loop {
            match self.line(deadline)? {
                Some(l) if done(&l) => return Ok(Some(l)),
                Some(_) => {}
                None => return Ok(None),
            }
        }
    }

    fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        let _ = self.send("quit");
        // A well-behaved engine ends at once; any other is killed.
        let deadline = Instant::now() + Duration::from_millis(300);
        while Instant::now() < deadline {
            if matches!(self.child.try_wait(), Ok(Some(_))) {
                return;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        self.kill();
    }
}

/// How long an engine may take to start and to answer `isready` or `ping`.
const HANDSHAKE: Duration = Duration::from_secs(10);
/// After its time is up an engine gets this long to answer `stop` before it is killed.
const GRACE: Duration = Duration::from_secs(1);

#[derive(Default)]
struct XboardState {
    usermove: bool,
    setboard: bool,
    san: bool,
    ping: bool,
    /// Moves of the current game already sent (the engine's board is this far).
    sent: usize,
    /// The engine has been told `go` in this game and plays its side by itself.
    playing: bool,
}

/// An external engine over UCI or xboard.
struct External {
    spec: PlayerSpec,
    proto: Proto,
    process: Option<Process>,
    xboard: XboardState,
}

impl External {
    fn start(&mut self) -> Result<(), Fault> {
        let Kind::External { cmd, args, .. } = &self.spec.kind else {
            unreachable!("external players have a command")
        };
        let mut p = Process::spawn(cmd, args)?;
        let deadline = Instant::now() + HANDSHAKE;
        match self.proto {
            Proto::Uci => {
                p.send("uci")?;
                if p.until(deadline, |l| l.trim() == "uciok")?.is_none() {
                    p.kill();
                    return Err(Fault::Crash("no 'uciok' in time".into()));
                }
                for (name, value) in &self.spec.options {
                    p.send(&format!("setoption name {name} value {value}"))?;
                }
            }
            Proto::Xboard => {
                p.send("xboard")?;
                p.send("protover 2")?;
                let mut x = XboardState::default();
                // Engines that know protocol 2 list features and end with `done=1`; older ones
                // say nothing, so a quiet engine is taken as it is after a short wait.
                let quiet = Instant::now() + Duration::from_secs(2);
                while let Some(line) = p.line(quiet.min(deadline))? {
                    if let Some(features) = line.trim().strip_prefix("feature ") {
                        for (k, v) in parse_features(features) {
                            match k.as_str() {
                                "usermove" => x.usermove = v == "1",
                                "setboard" => x.setboard = v == "1",
                                "san" => x.san = v == "1",
                                "ping" => x.ping = v == "1",
                                _ => {}
                            }
                            if k != "done" {
                                let _ = p.send(&format!("accepted {k}"));
                            }
                        }
                        if features.contains("done=1") {
                            break;
                        }
                    }
                }
                self.xboard = x;
            }
        }
        self.process = Some(p);
        self.ready()
    }

    /// Waits until the engine has caught up (`isready`/`readyok`, or `ping`/`pong`).
    fn ready(&mut self) -> Result<(), Fault> {
        let p = self.process.as_mut().expect("started");
        let deadline = Instant::now() + HANDSHAKE;
        let answered = match self.proto {
            Proto::Uci => {
                p.send("isready")?;
                p.until(deadline, |l| l.trim() == "readyok")?
            }
            Proto::Xboard if self.xboard.ping => {
                p.send("ping 1")?;
                p.until(deadline, |l| l.trim() == "pong 1")?
            }
            Proto::Xboard => Some(String::new()),
        };
        if answered.is_none() {
            self.fail();
            return Err(Fault::Hang);
        }
        Ok(())
    }

    fn fail(&mut self) {
        if let Some(mut p) = self.process.take() {
            p.kill();
        }
    }

    fn think_uci(
        &mut self,
        game: &Game,
        clocks: Option<Clocks>,
        give_up: Duration,
    ) -> Result<Thought, Fault> {
        let p = self.process.as_mut().expect("started");
        let moves: Vec<String> = game.moves().iter().map(|&m| uci(m)).collect();
        let start = if *game.start() == Chess::default() {
            "startpos".to_string()
        } else {
            format!("fen {}", fen_of(game.start()))
        };
        let moves = if moves.is_empty() {
            String::new()
        } else {
            format!(" moves {}", moves.join(" "))
        };
        p.send(&format!("position {start}{moves}"))?;
        p.send(&match (self.spec.limit, clocks) {
            (Limit::Clock { .. }, Some(c)) => format!(
                "go wtime {} btime {} winc {} binc {}",
                c.white.as_millis(),
                c.black.as_millis(),
                c.inc.as_millis(),
                c.inc.as_millis()
            ),
            (Limit::MoveTime(t), _) => format!("go movetime {}", t.as_millis()),
            (Limit::Depth(d), _) => format!("go depth {d}"),
            (Limit::Nodes(n), _) => format!("go nodes {n}"),
            (Limit::Clock { .. }, None) => "go movetime 1000".into(),
        })?;
        let mut thought = Thought::default();
        let mut deadline = Instant::now() + give_up;
        let mut stopped = false;
        loop {
            let Some(line) = p.line(deadline)? else {
                if stopped {
                    self.fail();
                    return Err(Fault::Hang);
                }
                // Past its time: ask once, then kill.
                p.send("stop")?;
                stopped = true;
                deadline = Instant::now() + GRACE;
                continue;
            };
            let mut words = line.split_whitespace();
            match words.next() {
                Some("info") => read_uci_info(&line, &mut thought),
                Some("bestmove") => {
                    let text = words.next().unwrap_or("");
                    thought.mv = Some(
                        parse_move(game.position(), text)
                            .map_err(|_| Fault::Illegal(text.to_string()))?,
                    );
                    return Ok(thought);
                }
                _ => {}
            }
        }
    }

    fn think_xboard(
        &mut self,
        game: &Game,
        clocks: Option<Clocks>,
        give_up: Duration,
    ) -> Result<Thought, Fault> {
        let x = &mut self.xboard;
        let p = self.process.as_mut().expect("started");
        let mine = game.position().turn();
        if x.sent > game.ply() {
            return Err(Fault::Crash("the game went back".into()));
        }
        // Set up the game once, then send the opponent's moves as they come.
        if x.sent == 0 && !x.playing {
            p.send("new")?;
            p.send("force")?;
            match self.spec.limit {
                Limit::Clock { base, inc } => {
                    let minutes = base.as_secs() / 60;
                    let seconds = base.as_secs() % 60;
                    let base = if seconds == 0 {
                        minutes.to_string()
                    } else {
                        format!("{minutes}:{seconds:02}")
                    };
                    p.send(&format!("level 0 {base} {}", secs(inc)))?;
                }
                Limit::MoveTime(t) => p.send(&format!("st {}", t.as_secs().max(1)))?,
                Limit::Depth(d) => p.send(&format!("sd {d}"))?,
                Limit::Nodes(_) => {}
            }
            p.send("post")?;
            if *game.start() != Chess::default() {
                if !x.setboard {
                    return Err(Fault::Crash(
                        "the engine cannot set up a position (no setboard feature)".into(),
                    ));
                }
                p.send(&format!("setboard {}", fen_of(game.start())))?;
            }
        }
        let mut pos = game.start().clone();
        for (i, &m) in game.moves().iter().enumerate() {
            if i >= x.sent {
                let text = if x.san {
                    crate::core::game::san(&pos, m)
                } else {
                    uci(m)
                };
                let text = if x.usermove {
                    format!("usermove {text}")
                } else {
                    text
                };
                if let (Some(c), true, true) = (clocks, x.playing, i + 1 == game.ply()) {
                    send_times(p, c, mine)?;
                }
                p.send(&text)?;
            }
            pos.play_unchecked(m);
        }
        x.sent = game.ply();
        if !x.playing {
            if let Some(c) = clocks {
                send_times(p, c, mine)?;
            }
            p.send("go")?;
            x.playing = true;
        }
        let mut thought = Thought::default();
        let deadline = Instant::now() + give_up;
        loop {
            let Some(line) = p.line(deadline)? else {
                self.fail();
                return Err(Fault::Hang);
            };
            let line = line.trim();
            if let Some(text) = line
                .strip_prefix("move ")
                .or_else(|| line.strip_prefix("My move is:"))
                .or_else(|| line.strip_prefix("my move is"))
            {
                let text = text.trim();
                let mv = parse_move(game.position(), text)
                    .map_err(|_| Fault::Illegal(text.to_string()))?;
                thought.mv = Some(mv);
                self.xboard.sent = game.ply() + 1;
                return Ok(thought);
            }
            if line.starts_with("Illegal move") || line.starts_with("Error") {
                self.fail();
                return Err(Fault::Crash(format!("refused a move: {line}")));
            }
            read_xboard_thinking(line, &mut thought);
        }
    }
}

fn send_times(p: &mut Process, c: Clocks, mine: Color) -> Result<(), Fault> {
    let (own, other) = if mine == Color::White {
        (c.white, c.black)
    } else {
        (c.black, c.white)
    };
    p.send(&format!("time {}", own.as_millis() / 10))?;
    p.send(&format!("otim {}", other.as_millis() / 10))
}

impl Player for External {
    fn name(&self) -> &str {
        &self.spec.name
    }

    fn new_game(&mut self) -> Result<(), Fault> {
        if self.process.is_none() {
            self.start()?;
        }
        match self.proto {
            Proto::Uci => {
                self.process.as_mut().expect("started").send("ucinewgame")?;
            }
            Proto::Xboard => {
                if self.xboard.playing || self.xboard.sent > 0 {
                    self.process.as_mut().expect("started").send("force")?;
                }
                self.xboard.sent = 0;
                self.xboard.playing = false;
            }
        }
        self.ready()
    }

    fn think(
        &mut self,
        game: &Game,
        clocks: Option<Clocks>,
        give_up: Duration,
    ) -> Result<Thought, Fault> {
        if self.process.is_none() {
            return Err(Fault::Crash("not running".into()));
        }
        let r = match self.proto {
            Proto::Uci => self.think_uci(game, clocks, give_up),
            Proto::Xboard => self.think_xboard(game, clocks, give_up),
        };
        if r.is_err() {
            // Whatever state it is in, it starts afresh for the next game.
            self.fail();
        }
        r
    }
}

/// `key=value` pairs of an xboard `feature` line (values may be quoted).
fn parse_features(text: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut rest = text.trim();
    while let Some(eq) = rest.find('=') {
        let key = rest[..eq].trim().to_string();
        let after = &rest[eq + 1..];
        let (value, tail) = if let Some(q) = after.strip_prefix('"') {
            let end = q.find('"').unwrap_or(q.len());
            (q[..end].to_string(), q.get(end + 1..).unwrap_or(""))
        } else {
            let end = after.find(char::is_whitespace).unwrap_or(after.len());
            (after[..end].to_string(), &after[end..])
        };
        out.push((key, value));
        rest = tail.trim_start();
    }
    out
}

/// Score and depth from a UCI `info` line (`score cp N` / `score mate N`).
fn read_uci_info(line: &str, t: &mut Thought) {
    let words: Vec<&str> = line.split_whitespace().collect();
    let mut i = 1;
    while i < words.len() {
        match words[i] {
            "depth" => {
                if let Some(d) = words.get(i + 1).and_then(|w| w.parse().ok()) {
                    t.depth = d;
                }
            }
            "score" => match (
                words.get(i + 1),
                words.get(i + 2).and_then(|w| w.parse::<i32>().ok()),
            ) {
                (Some(&"cp"), Some(v)) => t.score = Some(v),
                (Some(&"mate"), Some(m)) => {
                    t.score = Some(if m > 0 {
                        crate::core::score::mate_in((2 * m - 1) as u32)
                    } else {
                        crate::core::score::mated_in((-2 * m) as u32)
                    })
                }
                _ => {}
            },
            "pv" => break,
            _ => {}
        }
        i += 1;
    }
}

/// Score and depth from xboard thinking output: `ply score time nodes pv...` (score in cp).
fn read_xboard_thinking(line: &str, t: &mut Thought) {
    let mut words = line.split_whitespace();
    let (Some(depth), Some(score)) = (words.next(), words.next()) else {
        return;
    };
    if let (Ok(d), Ok(s)) = (
        depth.trim_end_matches(['.', '&']).parse::<u32>(),
        score.parse::<i32>(),
    ) {
        t.depth = d;
        // xboard engines write mate scores as 100000 + n or similar: keep them as big numbers.
        t.score = Some(s.clamp(-29_000, 29_000));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn xboard_features_and_thinking_are_read() {
        let f = parse_features(r#"usermove=1 myname="Fake Engine 1.0" setboard=1 done=1"#);
        assert_eq!(
            f,
            vec![
                ("usermove".into(), "1".into()),
                ("myname".into(), "Fake Engine 1.0".into()),
                ("setboard".into(), "1".into()),
                ("done".into(), "1".into()),
            ]
        );
        let mut t = Thought::default();
        read_xboard_thinking("12 -35 120 45000 e2e4 e7e5", &mut t);
        assert_eq!((t.depth, t.score), (12, Some(-35)));
        read_uci_info(
            "info depth 9 seldepth 12 score mate -2 nodes 10 pv e2e4",
            &mut t,
        );
        assert_eq!((t.depth, t.score), (9, Some(-29_996)));
        read_uci_info("info depth 10 score cp 31 upperbound nodes 10", &mut t);
        assert_eq!(t.score, Some(31));
    }

    #[test]
    fn limits_read_as_users_write_them() {
        let tc = Limit::Clock {
            base: Duration::from_secs(10),
            inc: Duration::from_millis(100),
        };
        assert_eq!(tc.pgn(), "10+0.1");
        assert_eq!(
            Limit::MoveTime(Duration::from_millis(500)).describe(),
            "st=0.5"
        );
    }

    fn internal(engine: &str, options: &[(&str, &str)]) -> PlayerSpec {
        PlayerSpec {
            name: engine.into(),
            kind: Kind::Internal {
                engine: engine.into(),
            },
            limit: Limit::Depth(2),
            options: options
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            threads: 1,
            hash_mb: 1,
            syzygy: None,
            seed: 0,
        }
    }

    fn score(spec: &PlayerSpec) -> Option<i32> {
        let mut p = create(spec).unwrap();
        p.new_game().unwrap();
        let game = Game::default();
        p.think(&game, None, Duration::from_secs(60)).unwrap().score
    }

    #[test]
    fn an_internal_player_searches_with_the_net_its_eval_file_names() {
        let plain = score(&internal("rookery", &[]));
        let default = score(&internal("rookery", &[("EvalFile", "nets/default.nnue")]));
        // Another net: a small random one, written where the player can load it.
        let net = crate::nnue::tests::random_net(16, crate::nnue::Activation::SCReLU);
        let path = std::env::temp_dir().join(format!("rookery-player-{}.nnue", std::process::id()));
        std::fs::write(&path, net.to_bytes()).unwrap();
        let other = score(&internal(
            "rookery",
            &[("evalfile", path.to_str().unwrap())],
        ));
        std::fs::remove_file(&path).unwrap();
        assert_eq!(plain, default, "the built-in net is nets/default.nnue");
        assert_ne!(plain, other, "another net scores the position otherwise");
        assert!(other.is_some());
        // Threads and Hash are the spec's own fields; an empty EvalFile is the built-in net.
        let same = internal(
            "rookery",
            &[("Threads", "1"), ("Hash", "1"), ("EvalFile", "<empty>")],
        );
        assert_eq!(score(&same), plain);
    }

    #[test]
    fn an_internal_player_refuses_options_it_cannot_honour() {
        let err = |spec: &PlayerSpec| create(spec).err().expect("refused");
        let e = err(&internal("rookery", &[("EvalFile", "/no/such/net.nnue")]));
        assert!(
            e.contains("EvalFile") && e.contains("/no/such/net.nnue"),
            "{e}"
        );
        let e = err(&internal("rookery", &[("Move Overhead", "30")]));
        assert!(
            e.contains("'Move Overhead'") && e.contains("EvalFile"),
            "{e}"
        );
        let e = err(&internal("alphabeta", &[("EvalFile", "nets/default.nnue")]));
        assert!(e.contains("only the engine rookery"), "{e}");
    }
}
