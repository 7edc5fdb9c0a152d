//! The UCI protocol: what GUIs, bots and scripts speak to the engine.
//!
//! Standard input is read on its own thread and handed to the command loop through a channel;
//! each search runs on a thread of its own that owns the engine while it searches and hands it
//! back when done, and `perft` and `bench` run on threads of their own too, so the loop always
//! answers: `isready` at once, `stop` by ending what runs (a perft or bench cut short says
//! `interrupted`), `quit` and the end of input by leaving within half a second whatever runs.
//! Every search ends with exactly one `bestmove`, printed by the search thread. Output goes out
//! line by line, flushed. Bad input (an unknown command, a malformed number, a negative clock,
//! a line longer than `MAX_LINE`, a Hash the memory cannot hold) gets one `info string` and the
//! loop goes on.

pub mod parse;

use std::io::{BufRead, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, mpsc};
use std::thread::JoinHandle;
use std::time::{Duration, Instant, SystemTime};

use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Color, Move, Position};

use crate::book::Book;
use crate::core::score::{MATE_BOUND, uci_score};
use crate::core::{Bound, Clock, Game, Limits, Rng};
use crate::engine::{Analysis, Engine, EngineOptions, PvLine, Report};
use crate::options::{DebugLog, Effect, Options};
use crate::registry;
use parse::{Command, Go, parse};

/// The engine's name and version, as `id name` gives it.
pub fn engine_id() -> String {
    format!("Rookery {}", env!("CARGO_PKG_VERSION"))
}

/// Output shared by the command loop and the search thread: whole lines, flushed; and the
/// debug log, which the input thread also writes.
#[derive(Clone)]
pub struct Out {
    w: Arc<Mutex<Box<dyn Write + Send>>>,
    log: Arc<Mutex<Option<DebugLog>>>,
}

impl Out {
    pub fn new(w: Box<dyn Write + Send>) -> Out {
        Out {
            w: Arc::new(Mutex::new(w)),
            log: Arc::new(Mutex::new(None)),
        }
    }

    pub fn line(&self, text: &str) {
        let mut w = self.w.lock().unwrap_or_else(|e| e.into_inner());
        // Timed as it leaves (a client may read the line before the log is written) and logged
        // while the output is held, so the log keeps the order the lines left in.
        let at = SystemTime::now();
        // A closed output cannot be reported anywhere; the loop ends on `quit` or end of input.
        let _ = writeln!(w, "{text}");
        let _ = w.flush();
        self.log(false, text, at);
    }

    pub fn info_string(&self, text: &str) {
        self.line(&format!("info string {text}"));
    }

    /// Logs a line that came in or went out, when a debug log is open.
    fn log(&self, incoming: bool, text: &str, at: SystemTime) {
        if let Some(log) = self.log.lock().unwrap_or_else(|e| e.into_inner()).as_ref() {
            log.line(incoming, text, at);
        }
    }

    fn set_log(&self, log: Option<DebugLog>) {
        *self.log.lock().unwrap_or_else(|e| e.into_inner()) = log;
    }
}

/// The longest input line read; a longer one is dropped with an `info string`.
pub const MAX_LINE: usize = 1 << 20;
/// Clock times above this (24.8 days, in ms) are read as this.
pub const MAX_CLOCK_MS: i64 = 1 << 31;
/// How long `quit` and the end of input wait for running work to end before leaving anyway.
const QUIT_GRACE: Duration = Duration::from_millis(500);

/// A perft or bench in progress.
struct Task {
    stop: Arc<AtomicBool>,
    handle: JoinHandle<()>,
}

/// A search in progress.
struct Running {
    stop: Arc<AtomicBool>,
    pondering: Arc<AtomicBool>,
    /// Raised just before `bestmove` is printed: the search is over, the thread is ending.
    answered: Arc<AtomicBool>,
    /// The engine back, or `None` when the search panicked and left it unusable.
    handle: JoinHandle<Option<Box<dyn Engine>>>,
}

struct State {
    out: Out,
    options: Options,
    game: Game,
    /// `None` while a search owns it.
    engine: Option<Box<dyn Engine>>,
    running: Option<Running>,
    task: Option<Task>,
    /// Settings changed during a search, applied when it ends.
    pending: Option<Effect>,
}

fn move_text(m: Move, chess960: bool) -> String {
    let mode = if chess960 {
        CastlingMode::Chess960
    } else {
        CastlingMode::Standard
    };
    UciMove::from_move(m, mode).to_string()
}

/// The `bestmove` line for the first legal move (`(none)` where there is none): what a search
/// that failed still answers.
fn fallback_bestmove(game: &Game, chess960: bool) -> String {
    match game.position().legal_moves().first() {
        Some(&m) => format!("bestmove {}", move_text(m, chess960)),
        None => "bestmove (none)".into(),
    }
}

/// Win/draw/loss per mille for a score (side to move), from a simple logistic model: about
/// even scores are mostly draws, two pawns up wins about half the time.
pub fn wdl(score: i32) -> (u32, u32, u32) {
    if score >= MATE_BOUND {
        return (1000, 0, 0);
    }
    if score <= -MATE_BOUND {
        return (0, 0, 1000);
    }
    let p = |x: f64| 1.0 / (1.0 + (-(x - 200.0) / 90.0).exp());
    let w = (p(f64::from(score)) * 1000.0).round() as u32;
    let l = (p(f64::from(-score)) * 1000.0).round() as u32;
    (w, 1000 - w - l, l)
}

/// The `info` line for the move played, `best`, when the last line reported began with another:
/// its score and bound from the analysis where the search scored it, and its line (the
/// analysis's principal variation where that begins with it, else the move alone).
fn closing_info(a: &Analysis, best: Move, chess960: bool, show_wdl: bool) -> String {
    let pv = if a.pv.first() == Some(&best) {
        a.pv.clone()
    } else {
        vec![best]
    };
    let scored = a
        .lines
        .iter()
        .find(|l| l.pv.first() == Some(&best))
        .map(|l| (l.score, l.bound))
        .or_else(|| {
            a.moves
                .iter()
                .find(|s| s.mv == best)
                .and_then(|s| s.score.map(|score| (score, s.bound)))
        });
    match scored {
        Some((score, bound)) => {
            let line = PvLine { score, bound, pv };
            format_lines(a, &[line], chess960, show_wdl).remove(0)
        }
        None => {
            let pv: Vec<String> = pv.iter().map(|&m| move_text(m, chess960)).collect();
            format!(
                "info depth {} nodes {} time {} pv {}",
                a.depth.max(1),
                a.nodes,
                a.elapsed.as_millis(),
                pv.join(" ")
            )
        }
    }
}

/// The lines an `info` report gives for an analysis, best first.
fn reported_lines(a: &Analysis, multipv: usize) -> Vec<PvLine> {
    let mut lines: Vec<PvLine> = a.lines.clone();
    // Engines that score root moves without lines (the ladder) fill MultiPV from their moves.
    if multipv > lines.len() {
        for s in &a.moves {
            if lines.len() >= multipv {
                break;
            }
            if let Some(score) = s.score
                && !lines.iter().any(|l| l.pv.first() == Some(&s.mv))
            {
                lines.push(PvLine {
                    score,
                    bound: s.bound,
                    pv: vec![s.mv],
                });
            }
        }
    }
    lines.truncate(multipv.max(1));
    lines
}

/// The `info` line of each of `lines`, with the analysis's depth, nodes and time.
fn format_lines(a: &Analysis, lines: &[PvLine], chess960: bool, show_wdl: bool) -> Vec<String> {
    let ms = a.elapsed.as_millis() as u64;
    let nps = a.nodes * 1000 / ms.max(1);
    lines
        .iter()
        .enumerate()
        .map(|(i, l)| {
            let score = uci_score(l.score);
            let bound = match l.bound {
                Bound::Exact => "",
                Bound::Lower => " lowerbound",
                Bound::Upper => " upperbound",
            };
            let wdl_text = if show_wdl {
                let (w, d, lo) = wdl(l.score);
                format!(" wdl {w} {d} {lo}")
            } else {
                String::new()
            };
            let pv: Vec<String> = l.pv.iter().map(|&m| move_text(m, chess960)).collect();
            format!(
                "info depth {} seldepth {} multipv {} score {score}{bound}{wdl_text} nodes {} nps {nps} hashfull {} tbhits {} time {ms} pv {}",
                a.depth.max(1),
                a.seldepth.max(a.depth).max(1),
                i + 1,
                a.nodes,
                a.hashfull,
                a.tbhits,
                pv.join(" ")
            )
        })
        .collect()
}

impl State {
    fn new(out: Out) -> State {
        let options = Options::default();
        let mut s = State {
            out,
            options,
            game: Game::default(),
            engine: None,
            running: None,
            task: None,
            pending: None,
        };
        s.engine = Some(s.create_engine());
        s
    }

    fn create_engine(&self) -> Box<dyn Engine> {
        let book = if self.options.own_book {
            if self.options.book_file.is_empty() {
                Some(Arc::new(Book::builtin()))
            } else {
                match Book::open(&self.options.book_file) {
                    Ok(b) => Some(Arc::new(b)),
                    Err(e) => {
                        self.out
                            .info_string(&format!("{e}; playing without a book"));
                        None
                    }
                }
            }
        } else {
            None
        };
        let options = EngineOptions {
            seed: Rng::seed_from_time(),
            book,
            ..EngineOptions::default()
        };
        let mut e = registry::create(&self.options.engine, &options).unwrap_or_else(|_| {
            registry::create("rookery", &options).expect("the strong engine always exists")
        });
        self.configure(e.as_mut());
        e
    }

    /// Applies the options to an engine; what the memory cannot hold is said and not applied.
    fn configure(&self, e: &mut dyn Engine) {
        if let Err(err) = e.configure(&self.options.settings()) {
            self.out.info_string(&err.to_string());
        }
    }

    /// Applies an option's effect to the idle engine.
    fn apply(&mut self, effect: Effect) {
        match effect {
            Effect::None => {}
            Effect::Reconfigure => {
                if let Some(mut e) = self.engine.take() {
                    self.configure(e.as_mut());
                    self.engine = Some(e);
                }
            }
            Effect::ClearHash => {
                if let Some(e) = self.engine.as_mut() {
                    e.new_game();
                }
            }
            Effect::Recreate => self.engine = Some(self.create_engine()),
            Effect::Log => self.out.set_log(self.options.debug_log.clone()),
        }
    }

    /// Ends the running search, if any: its `bestmove` is printed, the engine comes back.
    fn finish_search(&mut self) {
        if let Some(r) = self.running.take() {
            r.stop.store(true, Ordering::Relaxed);
            r.pondering.store(false, Ordering::Relaxed);
            match r.handle.join() {
                Ok(Some(engine)) => self.engine = Some(engine),
                Ok(None) => self.engine = Some(self.create_engine()),
                Err(_) => {
                    // A bug in the search (it panicked; the panic message went to stderr):
                    // the game goes on with a legal move and a fresh engine.
                    self.out.info_string(
                        "the search failed (a bug; please report it); starting a fresh engine",
                    );
                    if !r.answered.load(Ordering::Acquire) {
                        self.out
                            .line(&fallback_bestmove(&self.game, self.options.chess960));
                    }
                    self.engine = Some(self.create_engine());
                }
            }
            if let Some(effect) = self.pending.take() {
                // Several changes may have queued: recreating covers them all.
                self.apply(effect);
                self.apply(Effect::Reconfigure);
            }
        }
    }

    /// Ends the running perft or bench, if any (it says `interrupted` unless it had finished).
    fn finish_task(&mut self) {
        if let Some(t) = self.task.take() {
            t.stop.store(true, Ordering::Relaxed);
            if t.handle.join().is_err() {
                self.out
                    .info_string("the command failed (a bug; please report it)");
            }
        }
    }

    /// Ends whatever runs, for `quit` and the end of input: every stop flag is raised and the
    /// threads get `QUIT_GRACE` to end; one that takes longer is left behind (the process ends).
    fn leave(&mut self) {
        let deadline = Instant::now() + QUIT_GRACE;
        if let Some(r) = &self.running {
            r.stop.store(true, Ordering::Relaxed);
            r.pondering.store(false, Ordering::Relaxed);
        }
        if let Some(t) = &self.task {
            t.stop.store(true, Ordering::Relaxed);
        }
        let busy = |s: &State| {
            s.running.as_ref().is_some_and(|r| !r.handle.is_finished())
                || s.task.as_ref().is_some_and(|t| !t.handle.is_finished())
        };
        while busy(self) && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(2));
        }
        if !busy(self) {
            self.finish_search();
            self.finish_task();
        }
    }

    /// Starts `work` (a perft or bench) on a thread of its own, with its stop flag.
    fn start_task(&mut self, work: impl FnOnce(Arc<AtomicBool>) + Send + 'static) {
        let stop = Arc::new(AtomicBool::new(false));
        let flag = stop.clone();
        match std::thread::Builder::new().spawn(move || work(flag)) {
            Ok(handle) => self.task = Some(Task { stop, handle }),
            Err(e) => self.out.info_string(&format!("cannot start a thread: {e}")),
        }
    }

    /// Collects a finished search's engine without stopping anything (it ended by itself).
    fn reap(&mut self) {
        if self.task.as_ref().is_some_and(|t| t.handle.is_finished()) {
            self.finish_task();
        }
        if self
            .running
            .as_ref()
            .is_some_and(|r| r.handle.is_finished() || r.answered.load(Ordering::Acquire))
        {
            self.finish_search();
        }
    }

    /// Says `text` in an `info string`; the loop goes on.
    fn said(&self, text: &str) -> bool {
        self.out.info_string(text);
        true
    }

    /// Handles one line, `received` when it arrived (a `go`'s clock runs from then, even when
    /// the loop was still busy with the lines before it).
    fn handle(&mut self, line: &str, received: Instant) -> bool {
        self.reap();
        let cmd = match parse(line) {
            Ok(Some(cmd)) => cmd,
            Ok(None) => return true,
            Err(e) => {
                self.out.info_string(&e.to_string());
                return true;
            }
        };
        match cmd {
            Command::Uci => {
                self.out.line(&format!("id name {}", engine_id()));
                self.out.line("id author The Rookery developers");
                for l in Options::describe() {
                    self.out.line(&l);
                }
                self.out.line("uciok");
            }
            Command::Debug(_) => {}
            Command::IsReady => self.out.line("readyok"),
            Command::SetOption { name, value } => {
                let result = self.options.set(&name, value.as_deref());
                let tables = name.trim().eq_ignore_ascii_case("syzygypath");
                let effect = match result {
                    Ok(effect) => {
                        if tables && let Some(tb) = &self.options.syzygy {
                            self.out.info_string(&tb.describe());
                        }
                        let cap = crate::options::thread_cap();
                        if name.trim().eq_ignore_ascii_case("threads") && self.options.threads > cap
                        {
                            self.out.info_string(&format!(
                                "Threads {}: {cap} CPU{} here; searching with {cap} thread{}",
                                self.options.threads,
                                if cap == 1 { "" } else { "s" },
                                if cap == 1 { "" } else { "s" }
                            ));
                        }
                        effect
                    }
                    // A bad path leaves no tables: the engine must forget the old set.
                    Err(e) => {
                        self.out.info_string(&e);
                        if tables {
                            Effect::Reconfigure
                        } else {
                            Effect::None
                        }
                    }
                };
                if self.running.is_none() || effect == Effect::Log {
                    self.apply(effect);
                } else if effect != Effect::None {
                    self.pending = Some(match (self.pending, effect) {
                        (Some(Effect::Recreate), _) | (_, Effect::Recreate) => Effect::Recreate,
                        (_, e) => e,
                    });
                }
            }
            Command::UciNewGame => {
                self.finish_search();
                if let Some(e) = self.engine.as_mut() {
                    e.new_game();
                }
                self.game = Game::default();
            }
            Command::Position { fen, moves } => {
                if self.running.is_some() {
                    self.out
                        .info_string("position during a search: stopping the search first");
                    self.finish_search();
                }
                self.set_position(fen.as_deref(), &moves);
            }
            Command::Go(go) => {
                self.finish_task();
                if self.running.is_some() {
                    self.out
                        .info_string("go during a search: stopping the search first");
                    self.finish_search();
                }
                self.go(go, received);
            }
            Command::Stop => {
                self.finish_search();
                self.finish_task();
            }
            Command::PonderHit => {
                if let Some(r) = &self.running {
                    r.pondering.store(false, Ordering::Relaxed);
                }
            }
            Command::Quit => {
                self.leave();
                return false;
            }
            Command::Display => {
                let pos = self.game.position();
                self.out.line("");
                for l in
                    crate::core::draw::draw(pos, Color::White, self.game.last_move(), true).lines()
                {
                    self.out.line(l);
                }
                self.out.line(&format!("Fen: {}", self.game.fen()));
                self.out
                    .line(&format!("Key: {:016X}", crate::core::game::hash(pos)));
                let checkers: Vec<String> =
                    pos.checkers().into_iter().map(|s| s.to_string()).collect();
                self.out.line(&format!("Checkers: {}", checkers.join(" ")));
            }
            Command::Eval => self.eval(),
            Command::Bench(depth) => {
                self.finish_search();
                self.finish_task();
                let depth = depth.unwrap_or(crate::bench::DEFAULT_DEPTH);
                if let Err(e) = crate::bench::check_depth(depth) {
                    return self.said(&e.to_string());
                }
                let out = self.out.clone();
                let eval = self.options.settings().eval;
                self.start_task(move |stop| {
                    if let Err(e) =
                        crate::bench::run_printed(depth, &eval, Some(stop), |l| out.line(l))
                    {
                        out.info_string(&e.to_string());
                    }
                });
            }
            Command::Perft(depth) => {
                self.finish_search();
                self.finish_task();
                if let Err(e) = crate::perft::check_depth(depth) {
                    return self.said(&e.to_string());
                }
                let pos = self.game.position().clone();
                let (out, chess960) = (self.out.clone(), self.options.chess960);
                self.start_task(move |stop| {
                    let total = crate::perft::divide_until(&pos, depth, &stop, |m, n| {
                        out.line(&format!("{}: {n}", move_text(m, chess960)))
                    });
                    match total {
                        Some(total) => {
                            out.line("");
                            out.line(&format!("Nodes searched: {total}"));
                        }
                        None => out.line("interrupted"),
                    }
                });
            }
        }
        true
    }

    /// Sets the position; on a bad FEN the position stays as it was, on an illegal move it is
    /// the one before that move. Either way the engine says so.
    fn set_position(&mut self, fen: Option<&str>, moves: &[String]) {
        let mut game = match Game::from_optional_fen(fen) {
            Ok(g) => g,
            Err(e) => {
                self.out.info_string(&format!("{e}; position unchanged"));
                return;
            }
        };
        for text in moves {
            let parsed = text
                .parse::<UciMove>()
                .ok()
                .and_then(|u| u.to_move(game.position()).ok());
            match parsed {
                Some(m) => game.play(m).expect("to_move returns legal moves"),
                None => {
                    self.out.info_string(&format!(
                        "illegal move '{text}' in position: the position is the one before it"
                    ));
                    break;
                }
            }
        }
        self.game = game;
    }

    /// The limits of a `go`, its clock read from `received` (when the line arrived). A clock
    /// below zero is read as zero and one beyond `MAX_CLOCK_MS` as that, each said in an
    /// `info string`: the move then comes at once, or after a long but bounded think.
    fn limits(&self, go: &Go, received: Instant) -> Limits {
        let pos = self.game.position();
        let (time, inc) = if pos.turn() == Color::White {
            (go.wtime, go.winc)
        } else {
            (go.btime, go.binc)
        };
        let ms = |name: &str, v: i64| {
            let sane = v.clamp(0, MAX_CLOCK_MS);
            if sane != v {
                self.out.info_string(&format!(
                    "{name} {v} is outside 0..{MAX_CLOCK_MS} ms; read as {sane}"
                ));
            }
            Duration::from_millis(sane as u64)
        };
        let white = pos.turn() == Color::White;
        let clock = time.map(|t| Clock {
            remaining: ms(if white { "wtime" } else { "btime" }, t),
            increment: inc.map_or(Duration::ZERO, |i| {
                ms(if white { "winc" } else { "binc" }, i)
            }),
            moves_to_go: go.movestogo,
        });
        let mut searchmoves = Vec::new();
        for text in &go.searchmoves {
            match text
                .parse::<UciMove>()
                .ok()
                .and_then(|u| u.to_move(pos).ok())
            {
                Some(m) => searchmoves.push(m),
                None => self
                    .out
                    .info_string(&format!("searchmoves: '{text}' is not legal here; ignored")),
            }
        }
        let unbounded = clock.is_none()
            && go.depth.is_none()
            && go.nodes.is_none()
            && go.movetime.is_none()
            && go.mate.is_none();
        Limits {
            // `go mate N`: the strong engine searches until the mate is proven (or a limit or
            // `stop` ends it); the ladder searches 2N plies.
            depth: go.depth,
            nodes: go.nodes,
            soft_nodes: None,
            movetime: go.movetime.map(Duration::from_millis),
            clock,
            infinite: go.infinite || (unbounded && !go.ponder),
            stop: None,
            pondering: None,
            score_all_moves: self.options.multipv > 1,
            multipv: self.options.multipv,
            searchmoves,
            mate: go.mate,
            move_overhead: Duration::from_millis(self.options.move_overhead_ms),
            start: Some(received),
        }
    }

    fn go(&mut self, go: Go, received: Instant) {
        let mut engine = match self.engine.take() {
            Some(e) => e,
            None => self.create_engine(),
        };
        let stop = Arc::new(AtomicBool::new(false));
        let pondering = Arc::new(AtomicBool::new(go.ponder));
        let mut limits = self.limits(&go, received);
        limits.stop = Some(stop.clone());
        limits.pondering = Some(pondering.clone());
        let wait_for_stop = limits.infinite;
        let game = self.game.clone();
        let out = self.out.clone();
        let (multipv, chess960, show_wdl) = (
            self.options.multipv,
            self.options.chess960,
            self.options.show_wdl,
        );
        let (stop_t, pondering_t) = (stop.clone(), pondering.clone());
        let tables = self.options.syzygy.clone();
        let answered = Arc::new(AtomicBool::new(false));
        let answered_t = answered.clone();
        let spawned = std::thread::Builder::new().spawn(move || {
            // The first move of the last line reported: when the move played is another (a
            // search stopped inside an iteration that had found a better move), one more
            // `info` line gives the played move's line, since clients read the last one as the
            // engine's verdict.
            // Its second move is the ponder move when that line's first is the move played, so
            // `bestmove ... ponder` and the last line agree.
            let reported: std::cell::Cell<[Option<Move>; 2]> = std::cell::Cell::new([None; 2]);
            let mut report = |r: Report<'_>| match r {
                Report::Iteration(a) => {
                    let lines = reported_lines(a, multipv);
                    let pv = lines.first().map_or(&[][..], |l| &l.pv[..]);
                    reported.set([pv.first().copied(), pv.get(1).copied()]);
                    for l in format_lines(a, &lines, chess960, show_wdl) {
                        out.line(&l);
                    }
                }
                Report::CurrentMove { depth, mv, number } => out.line(&format!(
                    "info depth {depth} currmove {} currmovenumber {number}",
                    move_text(mv, chess960)
                )),
            };
            // A bug in the search (a panic) still gives a legal move; the engine, in whatever
            // state the panic left it, is dropped and the loop makes a fresh one.
            let searched = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                engine.search(&game, &limits, &mut report)
            }));
            let (analysis, engine) = match searched {
                Ok(a) => (a, Some(engine)),
                Err(_) => {
                    out.info_string(
                        "the search failed (a bug; please report it); playing a legal move",
                    );
                    (Analysis::default(), None)
                }
            };
            // A corrupt or missing table found while probing: said once, before the move.
            for m in tables.iter().flat_map(|t| t.take_messages()) {
                out.info_string(&m);
            }
            // `go infinite` and `go ponder` never end by themselves: wait for stop or ponderhit.
            while (wait_for_stop || pondering_t.load(Ordering::Relaxed))
                && !stop_t.load(Ordering::Relaxed)
            {
                std::thread::sleep(Duration::from_millis(1));
            }
            let legal = game.position().legal_moves();
            let best = analysis
                .best
                .filter(|m| legal.contains(m))
                .or_else(|| legal.first().copied());
            let [first, second] = reported.get();
            let closing = best.is_some() && first != best;
            if let Some(m) = best
                && closing
            {
                out.line(&closing_info(&analysis, m, chess960, show_wdl));
            }
            answered_t.store(true, Ordering::Release);
            match best {
                Some(m) => {
                    // The last line's second move: the closing line's, or the reported one's.
                    let ponder = if closing {
                        analysis
                            .pv
                            .get(1)
                            .copied()
                            .filter(|_| analysis.pv.first() == Some(&m))
                    } else {
                        second
                    };
                    let ponder = ponder
                        .filter(|&p| {
                            let mut after = game.position().clone();
                            after.play_unchecked(m);
                            after.is_legal(p)
                        })
                        .map(|p| format!(" ponder {}", move_text(p, chess960)))
                        .unwrap_or_default();
                    out.line(&format!("bestmove {}{ponder}", move_text(m, chess960)));
                }
                None => out.line("bestmove (none)"),
            }
            engine
        });
        match spawned {
            Ok(handle) => {
                self.running = Some(Running {
                    stop,
                    pondering,
                    answered,
                    handle,
                })
            }
            Err(e) => {
                // No thread for the search: a legal move at once, and a fresh engine.
                self.out.info_string(&format!(
                    "cannot start the search thread: {e}; playing a legal move"
                ));
                self.out
                    .line(&fallback_bestmove(&self.game, self.options.chess960));
            }
        }
    }

    fn eval(&self) {
        use crate::eval::hce::{Parts, evaluate_board};
        let pos = self.game.position();
        let mut parts = Parts::default();
        let v = evaluate_board(pos.board(), pos.turn(), &mut parts);
        self.out
            .line("Term                    |    MG |    EG   (White's view, centipawns)");
        for (name, s) in &parts.0 {
            self.out
                .line(&format!("{name:<24}| {:>5} | {:>5}", s.0, s.1));
        }
        let white = if pos.turn() == Color::White { v } else { -v };
        self.out.line(&format!(
            "Final evaluation: {white:+} cp (White's view), {v:+} cp for the side to move"
        ));
        let net = self
            .options
            .net
            .clone()
            .unwrap_or_else(crate::nnue::Network::default_net);
        let n = net.evaluate_board(pos.board(), pos.turn());
        let white = if pos.turn() == Color::White { n } else { -n };
        let which = if self.options.eval_file.is_empty() {
            "built-in net".to_string()
        } else {
            self.options.eval_file.clone()
        };
        self.out.line(&format!(
            "Net evaluation:   {white:+} cp (White's view), {n:+} cp for the side to move ({which}, {})",
            net.architecture()
        ));
        self.out.line(&format!(
            "In use: {}",
            if self.options.evaluation == "net" {
                "the net"
            } else {
                "the hand-crafted evaluation"
            }
        ));
    }
}

/// What the input thread hands the loop.
enum Input {
    /// A line and when it arrived (on both clocks: the search's and the log's).
    Line(String, Instant, SystemTime),
    /// A line longer than `MAX_LINE`, dropped.
    TooLong,
}

/// Reads one line of at most `max` bytes into `buf` (newline included). `Ok(None)` at the end
/// of input; `Ok(Some(false))` for a longer line, read to its end and dropped.
fn read_line_bounded(
    input: &mut impl BufRead,
    buf: &mut Vec<u8>,
    max: usize,
) -> std::io::Result<Option<bool>> {
    buf.clear();
    let (mut any, mut fits) = (false, true);
    loop {
        let chunk = match input.fill_buf() {
            Ok(c) => c,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if chunk.is_empty() {
            return Ok(any.then_some(fits));
        }
        any = true;
        let (n, done) = match chunk.iter().position(|&b| b == b'\n') {
            Some(i) => (i + 1, true),
            None => (chunk.len(), false),
        };
        if fits && buf.len() + n <= max {
            buf.extend_from_slice(&chunk[..n]);
        } else {
            fits = false;
            buf.clear();
        }
        input.consume(n);
        if done {
            return Ok(Some(fits));
        }
    }
}

/// Runs the UCI loop until `quit` or the end of input.
pub fn run(input: impl BufRead + Send + 'static, output: Box<dyn Write + Send>) {
    let out = Out::new(output);
    // Bounded: input that comes faster than the loop answers waits in the pipe, not in memory.
    let (tx, rx) = mpsc::sync_channel::<Input>(256);
    let reader = std::thread::Builder::new().spawn(move || {
        let mut input = input;
        let mut buf = Vec::new();
        loop {
            let item = match read_line_bounded(&mut input, &mut buf, MAX_LINE) {
                Ok(None) | Err(_) => break,
                Ok(Some(true)) => Input::Line(
                    String::from_utf8_lossy(&buf).into_owned(),
                    Instant::now(),
                    SystemTime::now(),
                ),
                Ok(Some(false)) => Input::TooLong,
            };
            if tx.send(item).is_err() {
                break;
            }
        }
        // End of input: as good as `quit`.
        let _ = tx.send(Input::Line(
            "quit".into(),
            Instant::now(),
            SystemTime::now(),
        ));
    });
    if let Err(e) = reader {
        out.info_string(&format!("cannot start the input thread: {e}"));
        return;
    }
    let mut state = State::new(out);
    for item in rx {
        let (line, received) = match item {
            Input::Line(l, at, wall) => {
                // Logged as the loop takes it, with the time it arrived: every line after a
                // `setoption name Debug Log File` is in the log, however fast they came.
                state.out.log(true, &l, wall);
                (l, at)
            }
            Input::TooLong => {
                state.said(&format!("a line longer than {MAX_LINE} bytes was ignored"));
                continue;
            }
        };
        // A bug met while handling one command (a panic; its message goes to stderr) fails
        // that command, said in an info string; the loop goes on.
        match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            state.handle(&line, received)
        })) {
            Ok(true) => {}
            Ok(false) => return,
            Err(_) => {
                state.said("the command failed (a bug; please report it); the engine goes on");
            }
        }
    }
    state.leave();
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An engine with a bug: its search panics.
    struct Broken;

    impl Engine for Broken {
        fn name(&self) -> &'static str {
            "broken"
        }

        fn search(&mut self, _: &Game, _: &Limits, _: crate::engine::Reporter<'_>) -> Analysis {
            let moves: Vec<u32> = Vec::new();
            // A bug: indexing past the end.
            let _ = moves[7];
            Analysis::default()
        }
    }

    /// What the loop wrote.
    #[derive(Clone, Default)]
    struct Written(Arc<Mutex<Vec<u8>>>);

    impl Write for Written {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(buf);
            Ok(buf.len())
        }

        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn a_search_that_panics_still_answers_a_legal_move_and_the_engine_goes_on() {
        let written = Written::default();
        let mut state = State::new(Out::new(Box::new(written.clone())));
        state.engine = Some(Box::new(Broken));
        assert!(state.handle("position startpos moves e2e4", Instant::now()));
        assert!(state.handle("go depth 3", Instant::now()));
        assert!(state.handle("isready", Instant::now()));
        state.finish_search();
        // A fresh engine (the table's) plays the next search.
        assert!(state.handle("go depth 2", Instant::now()));
        state.finish_search();
        let text = String::from_utf8(written.0.lock().unwrap().clone()).unwrap();
        assert!(
            text.contains("info string the search failed (a bug"),
            "{text}"
        );
        let best: Vec<&str> = text.lines().filter(|l| l.starts_with("bestmove")).collect();
        assert_eq!(best.len(), 2, "{text}");
        let black =
            Game::from_fen("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1").unwrap();
        for line in best {
            let word = line.split_whitespace().nth(1).unwrap();
            let m = word.parse::<UciMove>().unwrap().to_move(black.position());
            assert!(m.is_ok(), "{line}");
        }
        assert!(text.contains("readyok"));
    }
}
