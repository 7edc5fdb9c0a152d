//! `rookery._rookery`: the engine crate seen from Python. This layer takes FENs and UCI move
//! strings and returns plain Python data (dicts, tuples, lists); the pure-Python package above it
//! (`rookery/__init__.py`) turns python-chess boards into FENs and the data into objects.
//!
//! Every search runs on a thread of its own while the calling thread waits without the GIL, and
//! checks for Ctrl-C every 50 ms: a KeyboardInterrupt stops the search (through the engine's stop
//! flag) and is raised in Python. Errors of the engine crate become `ValueError` with the message
//! the CLI prints; nothing panics across the boundary.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};
use shakmaty::{Chess, Position};

use rookery::core::game::{parse_fen, san_plain, uci};
use rookery::core::score::mate_moves;
use rookery::core::stats::Wdl;
use rookery::core::{Game, Limits};
use rookery::engine::{Engine, EngineOptions, Evaluation, Settings};
use rookery::nnue::Network;
use rookery::tb::Syzygy;
use rookery::tournament::player::{self, Kind, Limit, PlayerSpec};
use rookery::tournament::runner::{self, Adjudication, Config, Opening, Schedule};
use rookery::train::live;
use rookery::tree::{self, TreeEngine};

/// Balanced openings for matches when none are given: the first 20 positions of 2moves_v1.epd
/// (official-stockfish/books, CC0-1.0), copied in the engine crate's tests/data.
const OPENINGS: &str = include_str!("../../tests/data/openings.epd");

fn value_error(e: impl std::fmt::Display) -> PyErr {
    PyValueError::new_err(e.to_string())
}

/// The game a FEN and the moves played from it make.
fn game_of(fen: &str, moves: &[String]) -> PyResult<Game> {
    let mut game = Game::from_fen(fen).map_err(value_error)?;
    for m in moves {
        game.play_text(m).map_err(value_error)?;
    }
    Ok(game)
}

fn position(fen: &str) -> PyResult<Chess> {
    parse_fen(fen).map_err(value_error)
}

/// Runs `work` on a thread of its own while this thread waits without the GIL. On Ctrl-C (or any
/// pending signal whose handler raises) `stop` is raised, the work is joined when it can stop, or
/// left to finish on its own when it cannot (`stop` is `None`), and the exception returned.
fn interruptible<T: Send + 'static>(
    py: Python<'_>,
    stop: Option<Arc<AtomicBool>>,
    work: impl FnOnce() -> T + Send + 'static,
) -> PyResult<T> {
    interruptible_polling(py, stop, work, |_| Ok(()))
}

/// `interruptible`, calling `poll` with the GIL held each time it wakes (every 50 ms, and once
/// more when the work is done) before it looks for signals. An error from `poll` ends the wait
/// as Ctrl-C does: `stop` is raised, the work joined, and the error returned.
fn interruptible_polling<T: Send + 'static>(
    py: Python<'_>,
    stop: Option<Arc<AtomicBool>>,
    work: impl FnOnce() -> T + Send + 'static,
    mut poll: impl FnMut(Python<'_>) -> PyResult<()>,
) -> PyResult<T> {
    let done = Arc::new((Mutex::new(false), Condvar::new()));
    let signal = done.clone();
    let handle = std::thread::spawn(move || {
        let out = work();
        let (flag, cv) = &*signal;
        *flag.lock().unwrap_or_else(|e| e.into_inner()) = true;
        cv.notify_all();
        out
    });
    loop {
        let finished = py.detach(|| {
            let (flag, cv) = &*done;
            let guard = flag.lock().unwrap_or_else(|e| e.into_inner());
            let (guard, _) = cv
                .wait_timeout_while(guard, Duration::from_millis(50), |d| !*d)
                .unwrap_or_else(|e| e.into_inner());
            *guard
        });
        // Read before polling: whatever the work sent before it ended is then polled.
        let finished = finished || handle.is_finished();
        if let Err(e) = poll(py).and_then(|()| if finished { Ok(()) } else { py.check_signals() }) {
            if let Some(stop) = stop {
                stop.store(true, Ordering::Relaxed);
                py.detach(|| {
                    let _ = handle.join();
                });
            }
            return Err(e);
        }
        if finished {
            break;
        }
    }
    py.detach(|| handle.join()).map_err(|_| {
        PyRuntimeError::new_err("rookery: the search failed (a bug; please report it)")
    })
}

/// Names and ideas of every engine, in ladder order.
#[pyfunction]
fn engines() -> Vec<(&'static str, &'static str)> {
    rookery::registry::ENGINES
        .iter()
        .map(|e| (e.name, e.idea))
        .collect()
}

/// An engine of the ladder or the strong engine, kept between searches (its hash table and
/// histories too).
#[pyclass(module = "rookery._rookery")]
struct NativeEngine {
    engine: Arc<Mutex<Box<dyn Engine>>>,
    name: &'static str,
}

#[pymethods]
impl NativeEngine {
    #[new]
    #[pyo3(signature = (name, seed=0, book=None, hash_mb=16, threads=1, elo=None, syzygy=None, eval=None, net=None))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        name: &str,
        seed: u64,
        book: Option<String>,
        hash_mb: usize,
        threads: usize,
        elo: Option<u32>,
        syzygy: Option<String>,
        eval: Option<String>,
        net: Option<String>,
    ) -> PyResult<Self> {
        let max_hash = rookery::options::HASH_MAX_MB as usize;
        if !(1..=max_hash).contains(&hash_mb) {
            return Err(PyValueError::new_err(format!(
                "hash must be 1 to {max_hash} MB, got {hash_mb}"
            )));
        }
        if !(1..=256).contains(&threads) {
            return Err(PyValueError::new_err(format!(
                "threads must be 1 to 256, got {threads}"
            )));
        }
        if let Some(e) = elo
            && !(1000..=3000).contains(&e)
        {
            return Err(PyValueError::new_err(format!(
                "elo must be 1000 to 3000, got {e}"
            )));
        }
        let book = book
            .map(|path| rookery::book::Book::open(&path).map(Arc::new))
            .transpose()
            .map_err(value_error)?;
        let options = EngineOptions {
            seed,
            book,
            ..EngineOptions::default()
        };
        let mut engine = rookery::registry::create(name, &options).map_err(value_error)?;
        let syzygy = syzygy
            .map(|p| Syzygy::open(&p))
            .transpose()
            .map_err(value_error)?;
        let eval = match (eval.as_deref().unwrap_or("net"), net) {
            ("hce", None) => Evaluation::Hce,
            ("net", None) => Evaluation::builtin_net(),
            ("net", Some(path)) => Evaluation::Net(Arc::new(
                Network::load(&path).map_err(|e| PyValueError::new_err(e.to_string()))?,
            )),
            ("hce", Some(_)) => return Err(PyValueError::new_err("net needs eval='net'")),
            (other, _) => {
                return Err(PyValueError::new_err(format!(
                    "unknown evaluation '{other}' (hce or net)"
                )));
            }
        };
        engine
            .configure(&Settings {
                hash_mb,
                threads,
                limit_elo: elo,
                syzygy,
                eval,
                ..Settings::default()
            })
            .map_err(value_error)?;
        let name = engine.name();
        Ok(NativeEngine {
            engine: Arc::new(Mutex::new(engine)),
            name,
        })
    }

    #[getter]
    fn name(&self) -> &'static str {
        self.name
    }

    /// Forgets what earlier searches learned (hash table, histories).
    fn new_game(&self) {
        if let Ok(mut e) = self.engine.lock() {
            e.new_game();
        }
    }

    /// Searches the position `moves` (UCI) lead to from `fen`. With no limit, the engine's own
    /// default (a depth that answers in about a second).
    #[pyo3(signature = (fen, moves, depth=None, movetime_ms=None, nodes=None, all_moves=false))]
    #[allow(clippy::too_many_arguments)]
    fn search<'py>(
        &self,
        py: Python<'py>,
        fen: &str,
        moves: Vec<String>,
        depth: Option<u32>,
        movetime_ms: Option<u64>,
        nodes: Option<u64>,
        all_moves: bool,
    ) -> PyResult<Bound<'py, PyDict>> {
        let game = game_of(fen, &moves)?;
        if depth == Some(0) || nodes == Some(0) || movetime_ms == Some(0) {
            return Err(PyValueError::new_err(
                "depth, movetime and nodes must be at least 1",
            ));
        }
        if depth.is_some_and(|d| d > 64) {
            return Err(PyValueError::new_err("depth must be at most 64"));
        }
        let stop = Arc::new(AtomicBool::new(false));
        let engine = self.engine.clone();
        let flag = stop.clone();
        let analysis = interruptible(py, Some(stop), move || {
            let mut engine = engine.lock().unwrap_or_else(|e| e.into_inner());
            let mut limits = if depth.is_none() && movetime_ms.is_none() && nodes.is_none() {
                engine.default_limits()
            } else {
                Limits::default()
            };
            if let Some(d) = depth {
                limits.depth = Some(d);
            }
            if let Some(ms) = movetime_ms {
                limits.movetime = Some(Duration::from_millis(ms));
            }
            if let Some(n) = nodes {
                limits.nodes = Some(n);
            }
            limits.score_all_moves = all_moves;
            limits.stop = Some(flag);
            engine.analyse(&game, &limits)
        })?;
        let d = PyDict::new(py);
        d.set_item("best", analysis.best.map(uci))?;
        d.set_item("score", analysis.score)?;
        d.set_item("mate", analysis.score.and_then(mate_moves))?;
        d.set_item(
            "pv",
            analysis.pv.iter().map(|&m| uci(m)).collect::<Vec<_>>(),
        )?;
        let scored: Vec<(String, Option<i32>, &'static str, Option<u16>)> = analysis
            .moves
            .iter()
            .map(|s| (uci(s.mv), s.score, bound_name(s.bound), s.weight))
            .collect();
        d.set_item("moves", scored)?;
        d.set_item("depth", analysis.depth)?;
        d.set_item("seldepth", analysis.seldepth)?;
        d.set_item("nodes", analysis.nodes)?;
        d.set_item("time", analysis.elapsed.as_secs_f64())?;
        d.set_item("from_book", analysis.from_book)?;
        Ok(d)
    }
}

fn bound_name(b: rookery::core::Bound) -> &'static str {
    match b {
        rookery::core::Bound::Exact => "exact",
        rookery::core::Bound::Lower => "lower",
        rookery::core::Bound::Upper => "upper",
    }
}

/// A term of the evaluation: name, middlegame and endgame parts (White's view).
type Term = (&'static str, i32, i32);

/// The strong engine's static evaluation: (side to move's cp, White's cp, [(term, mg, eg)]).
#[pyfunction]
fn evaluate(fen: &str) -> PyResult<(i32, i32, Vec<Term>)> {
    use rookery::eval::hce::{Parts, evaluate_board};
    let pos = position(fen)?;
    let mut parts = Parts::default();
    let v = evaluate_board(pos.board(), pos.turn(), &mut parts);
    let white = if pos.turn() == shakmaty::Color::White {
        v
    } else {
        -v
    };
    Ok((
        v,
        white,
        parts.0.iter().map(|(n, s)| (*n, s.0, s.1)).collect(),
    ))
}

/// The built-in net, or the net file `path`.
fn net_of(path: Option<&str>) -> PyResult<Arc<Network>> {
    match path {
        None => Ok(Network::default_net()),
        Some(p) => Network::load(p)
            .map(Arc::new)
            .map_err(|e| PyValueError::new_err(e.to_string())),
    }
}

/// A learned net's static evaluation: (side to move's cp, White's cp).
#[pyfunction]
#[pyo3(signature = (fen, net=None))]
fn evaluate_net(fen: &str, net: Option<String>) -> PyResult<(i32, i32)> {
    let pos = position(fen)?;
    let v = net_of(net.as_deref())?.evaluate_board(pos.board(), pos.turn());
    let white = if pos.turn() == shakmaty::Color::White {
        v
    } else {
        -v
    };
    Ok((v, white))
}

/// A net's shape and origin: (architecture, hidden neurons, output buckets, provenance).
#[pyfunction]
#[pyo3(signature = (net=None))]
fn net_info(net: Option<String>) -> PyResult<(String, usize, usize, String)> {
    let n = net_of(net.as_deref())?;
    Ok((
        n.architecture(),
        n.hidden(),
        n.buckets(),
        n.provenance.clone(),
    ))
}

/// What a training run told, sent from its thread to the one that calls `progress`: the
/// figures of a `live::Event`, without the net, as the dict `progress` is called with has them
/// (a loss or speed the event does not measure is `None`).
struct Report {
    kind: &'static str,
    epoch: usize,
    /// Positions trained on so far over the whole run.
    positions: u64,
    train_loss: Option<f32>,
    validation_loss: Option<f32>,
    positions_per_second: Option<f64>,
    seconds: f64,
    /// The training and validation positions (known from the first event on).
    split: (usize, usize),
}

/// Turns a run's events into `Report`s: the positions trained on so far over the whole run
/// (a batch's event counts the batches done in its epoch), and its seconds of training.
struct Reporter {
    batch: usize,
    split: (usize, usize),
    /// Positions trained on in the epochs done.
    done: u64,
    started: std::time::Instant,
}

impl Reporter {
    fn report(&mut self, event: &live::Event) -> Report {
        let (kind, epoch, positions, train_loss, validation_loss, rate, seconds) = match event {
            live::Event::Loaded {
                train,
                validation,
                seconds,
                initial_loss,
            } => {
                self.split = (*train, *validation);
                self.started = std::time::Instant::now();
                ("loaded", 0, 0, None, Some(*initial_loss), None, *seconds)
            }
            live::Event::Batch(p) => (
                "batch",
                p.epoch,
                self.done + p.batch.saturating_mul(self.batch).min(self.split.0) as u64,
                Some(p.loss),
                None,
                Some(p.positions_per_second),
                self.started.elapsed().as_secs_f64(),
            ),
            live::Event::Epoch(r) => {
                self.done = r.positions;
                (
                    "epoch",
                    r.epoch,
                    r.positions,
                    Some(r.train_loss),
                    Some(r.validation_loss),
                    None,
                    r.seconds,
                )
            }
        };
        Report {
            kind,
            epoch,
            positions,
            train_loss,
            validation_loss,
            positions_per_second: rate,
            seconds,
            split: self.split,
        }
    }
}

/// A report as the dict `progress` is called with: the event's `kind`, the split, the epoch,
/// the positions trained on so far, the losses known at that point (`None` for the others) and
/// the seconds.
fn report_dict<'py>(py: Python<'py>, r: &Report) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("train_positions", r.split.0)?;
    d.set_item("validation_positions", r.split.1)?;
    d.set_item("kind", r.kind)?;
    d.set_item("epoch", r.epoch)?;
    d.set_item("positions", r.positions)?;
    d.set_item("train_loss", r.train_loss)?;
    d.set_item("validation_loss", r.validation_loss)?;
    d.set_item("positions_per_second", r.positions_per_second)?;
    d.set_item("seconds", r.seconds)?;
    Ok(d)
}

/// Trains a small net on the first `positions` positions of the data sets `data` (directories
/// or record files), as `rookery train` does at a small scale (`train::live::run`). Returns the
/// run's figures and the net file's bytes. `threads=None` uses every core. Ctrl-C stops it at
/// the next batch and raises KeyboardInterrupt.
///
/// `progress`, when given, is called with a dict for each event of the run (the data loaded,
/// part of an epoch done, an epoch done; see `report_dict`), on this thread with the GIL held,
/// while the training goes on without it. An exception it raises stops the run and is raised.
#[pyfunction]
#[pyo3(signature = (data, hidden=32, epochs=3, positions=500_000, lr=0.002, threads=None, seed=1, seconds=None, batch=None, progress=None, layers=None, buckets=1, inputs="plain".to_string(), paired=false))]
#[allow(clippy::too_many_arguments)]
fn train<'py>(
    py: Python<'py>,
    data: Vec<String>,
    hidden: usize,
    epochs: usize,
    positions: usize,
    lr: f32,
    threads: Option<usize>,
    seed: u64,
    seconds: Option<f64>,
    batch: Option<usize>,
    progress: Option<Bound<'py, PyAny>>,
    layers: Option<(usize, usize)>,
    buckets: usize,
    inputs: String,
    paired: bool,
) -> PyResult<Bound<'py, PyDict>> {
    if let Some(p) = &progress
        && !p.is_callable()
    {
        return Err(PyValueError::new_err(format!(
            "progress must be a callable (a function of one argument) or None, got {}",
            p.get_type().name()?
        )));
    }
    let batch = batch.unwrap_or_else(|| live::batch_for(positions));
    let threads = threads.unwrap_or_else(|| {
        std::thread::available_parallelism()
            .map_or(1, |n| n.get())
            .clamp(1, 256)
    });
    let plan = live::Plan {
        data,
        positions,
        hidden,
        layers,
        paired,
        buckets,
        inputs,
        epochs,
        lr,
        batch,
        threads,
        seed,
        seconds,
        ..live::Plan::default()
    };
    // Checked here, so a bad number is refused before a thread starts.
    live::check(&plan).map_err(value_error)?;
    let stop = Arc::new(AtomicBool::new(false));
    let flag = stop.clone();
    let (send, reports) = std::sync::mpsc::channel::<Report>();
    let tell = progress.is_some();
    let mut reporter = Reporter {
        batch,
        split: (0, 0),
        done: 0,
        started: std::time::Instant::now(),
    };
    let work = move || {
        live::run(&plan, &flag, |event| {
            if tell {
                // The receiver is gone only once the caller stopped waiting: nothing to tell.
                let _ = send.send(reporter.report(&event));
            }
        })
    };
    let poll = |py: Python<'_>| -> PyResult<()> {
        let Some(callback) = &progress else {
            return Ok(());
        };
        for report in reports.try_iter() {
            callback.call1((report_dict(py, &report)?,))?;
        }
        Ok(())
    };
    let trained = interruptible_polling(py, Some(stop), work, poll)?.map_err(value_error)?;
    let d = PyDict::new(py);
    d.set_item("net", PyBytes::new(py, &trained.net.to_bytes()))?;
    d.set_item("hidden", trained.net.hidden())?;
    d.set_item("history", trained.history)?;
    d.set_item("initial_loss", trained.initial_loss)?;
    d.set_item("train_positions", trained.train_positions)?;
    d.set_item("validation_positions", trained.validation_positions)?;
    d.set_item("positions_seen", trained.positions_seen)?;
    d.set_item("seconds", trained.seconds)?;
    d.set_item(
        "halted",
        trained.halted.map(|h| match h {
            live::Halt::Stopped => "stopped",
            live::Halt::Time => "time",
        }),
    )?;
    Ok(d)
}

/// What an evaluation thinks each White piece (P, N, B, R, Q) is worth on each square, in
/// centipawns, as `train::live::piece_square` measures it: 64 values a piece in a1, b1, ..., h8
/// order, `None` where the piece cannot stand. `eval="hce"` is the hand-crafted evaluation,
/// `eval="net"` the built-in net or the net file `net`.
#[pyfunction]
#[pyo3(signature = (eval="net", net=None))]
fn piece_square(eval: &str, net: Option<String>) -> PyResult<Vec<Vec<Option<i32>>>> {
    let rows = match (eval, net) {
        ("hce", None) => live::piece_square(|pos| {
            use rookery::eval::hce::{NoEvalTrace, evaluate_board};
            let v = evaluate_board(pos.board(), pos.turn(), &mut NoEvalTrace);
            if pos.turn() == shakmaty::Color::White {
                v
            } else {
                -v
            }
        }),
        ("net", net) => {
            let net = net_of(net.as_deref())?;
            live::net_piece_square(&net)
        }
        ("hce", Some(_)) => return Err(PyValueError::new_err("net needs eval='net'")),
        (other, _) => {
            return Err(PyValueError::new_err(format!(
                "unknown evaluation '{other}' (hce or net)"
            )));
        }
    };
    Ok(rows.into_iter().map(|r| r.to_vec()).collect())
}

/// Leaf positions `depth` plies below the position.
#[pyfunction]
fn perft(py: Python<'_>, fen: &str, depth: u32) -> PyResult<u64> {
    let pos = position(fen)?;
    let max = rookery::perft::MAX_DEPTH;
    if depth > max {
        return Err(PyValueError::new_err(format!(
            "perft depth must be at most {max}"
        )));
    }
    let stop = Arc::new(AtomicBool::new(false));
    let flag = stop.clone();
    // `None` only when Ctrl-C raised the flag, and then the KeyboardInterrupt is raised instead.
    interruptible(py, Some(stop), move || {
        rookery::perft::perft_until(&pos, depth, &flag)
    })
    .map(|n| n.unwrap_or(0))
}

/// Perft below each legal move: [(uci, leaves)].
#[pyfunction]
fn divide(py: Python<'_>, fen: &str, depth: u32) -> PyResult<Vec<(String, u64)>> {
    let pos = position(fen)?;
    rookery::perft::check_depth(depth).map_err(|_| {
        value_error(format!(
            "divide depth must be 1 to {}",
            rookery::perft::MAX_DEPTH
        ))
    })?;
    let stop = Arc::new(AtomicBool::new(false));
    let flag = stop.clone();
    interruptible(py, Some(stop), move || {
        let mut out = Vec::new();
        rookery::perft::divide_until(&pos, depth, &flag, |m, n| out.push((uci(m), n)));
        out
    })
}

/// The search tree of minimax, alphabeta or negamax: a dict with `nodes`, a list of
/// (parent or -1, uci, san, ply, value, alpha, beta, pruned reason), root first.
#[pyfunction]
#[pyo3(signature = (fen, moves, engine, depth, max_nodes=1_000_000))]
fn search_tree<'py>(
    py: Python<'py>,
    fen: &str,
    moves: Vec<String>,
    engine: &str,
    depth: u32,
    max_nodes: usize,
) -> PyResult<Bound<'py, PyDict>> {
    let game = game_of(fen, &moves)?;
    let engine = TreeEngine::parse(engine).map_err(value_error)?;
    if depth == 0 || depth > 8 {
        return Err(PyValueError::new_err("tree depth must be 1 to 8"));
    }
    let tree = interruptible(py, None, move || {
        tree::record(engine, &game, depth, max_nodes)
    })?
    .map_err(value_error)?;
    type Row = (
        i64,
        Option<String>,
        String,
        u32,
        Option<i32>,
        Option<i32>,
        Option<i32>,
        Option<String>,
    );
    let rows: Vec<Row> = tree
        .nodes
        .into_iter()
        .map(|n| {
            (
                n.parent.map_or(-1, |p| p as i64),
                n.mv.map(uci),
                n.label,
                n.ply,
                n.value,
                n.window.map(|w| w.0),
                n.window.map(|w| w.1),
                n.pruned,
            )
        })
        .collect();
    let d = PyDict::new(py);
    d.set_item("engine", tree.engine.name())?;
    d.set_item("depth", tree.depth)?;
    d.set_item("fen", tree.fen)?;
    d.set_item("nodes", rows)?;
    d.set_item("per_depth", tree.size.per_ply)?;
    d.set_item("pruned", tree.size.pruned)?;
    d.set_item("best", tree.analysis.best.map(uci))?;
    d.set_item("score", tree.analysis.score)?;
    Ok(d)
}

/// The whole tree of a search counted, not kept: (positions per depth, moves pruned).
#[pyfunction]
fn tree_size(
    py: Python<'_>,
    fen: &str,
    moves: Vec<String>,
    engine: &str,
    depth: u32,
) -> PyResult<(Vec<u64>, u64)> {
    let game = game_of(fen, &moves)?;
    let engine = TreeEngine::parse(engine).map_err(value_error)?;
    if depth == 0 || depth > 8 {
        return Err(PyValueError::new_err("tree depth must be 1 to 8"));
    }
    let (size, _) = interruptible(py, None, move || tree::count(engine, &game, depth))?;
    Ok((size.per_ply, size.pruned))
}

/// Plays `games` games between two engines of the crate and returns the results. `white_net`
/// and `black_net` name net files for `rookery` to search with (its `EvalFile`).
#[pyfunction]
#[pyo3(signature = (white, black, games, depth=None, movetime_ms=None, nodes=None, openings=None, seed=0, concurrency=1, max_moves=None, white_net=None, black_net=None))]
#[allow(clippy::too_many_arguments)]
fn play_match<'py>(
    py: Python<'py>,
    white: &str,
    black: &str,
    games: u32,
    depth: Option<u32>,
    movetime_ms: Option<u64>,
    nodes: Option<u64>,
    openings: Option<Vec<(String, Vec<String>)>>,
    seed: u64,
    concurrency: usize,
    max_moves: Option<u32>,
    white_net: Option<String>,
    black_net: Option<String>,
) -> PyResult<Bound<'py, PyDict>> {
    if games == 0 {
        return Err(PyValueError::new_err("games must be at least 1"));
    }
    let limit = match (depth, movetime_ms, nodes) {
        (Some(d), None, None) if d > 0 => Limit::Depth(d),
        (None, Some(ms), None) if ms > 0 => Limit::MoveTime(Duration::from_millis(ms)),
        (None, None, Some(n)) if n > 0 => Limit::Nodes(n),
        _ => {
            return Err(PyValueError::new_err(
                "give one of depth, movetime or nodes (at least 1)",
            ));
        }
    };
    let nets = [white_net, black_net];
    let mut names = Vec::new();
    for (i, (name, net)) in [white, black].iter().zip(&nets).enumerate() {
        if !rookery::registry::is_known(name) {
            return Err(value_error(rookery::registry::unknown(name)));
        }
        let mut label = name.trim().to_ascii_lowercase();
        if let Some(path) = net {
            if label != "rookery" {
                return Err(PyValueError::new_err(format!(
                    "a net is for the engine rookery, not {label}"
                )));
            }
            let file = std::path::Path::new(path)
                .file_name()
                .map_or(path.clone(), |f| f.to_string_lossy().into_owned());
            label = format!("rookery (net: {file})");
        }
        if i == 1 && names.contains(&label) {
            label.push_str(" (2)");
        }
        names.push(label);
    }
    let players = [white, black]
        .iter()
        .zip(&names)
        .zip(&nets)
        .enumerate()
        .map(|(i, ((engine, label), net))| PlayerSpec {
            name: label.clone(),
            kind: Kind::Internal {
                engine: engine.trim().to_ascii_lowercase(),
            },
            limit,
            options: net
                .iter()
                .map(|path| ("EvalFile".to_string(), path.clone()))
                .collect(),
            threads: 1,
            hash_mb: 16,
            syzygy: None,
            seed: seed.wrapping_add(i as u64),
        })
        .collect::<Vec<_>>();
    // A net that does not load would lose every game: refused before the first.
    for p in &players {
        if let Kind::Internal { engine } = &p.kind {
            player::internal_settings(p, engine)
                .map_err(|e| PyValueError::new_err(format!("{}: {e}", p.name)))?;
        }
    }
    let openings = match openings {
        Some(list) => list
            .into_iter()
            .enumerate()
            .map(|(i, (fen, moves))| {
                let game = game_of(&fen, &moves)?;
                Ok(Opening {
                    start: game.start().clone(),
                    moves: game.moves().to_vec(),
                    name: format!("opening #{}", i + 1),
                })
            })
            .collect::<PyResult<Vec<_>>>()?,
        None => {
            let mut list: Vec<Opening> = rookery::epd::parse(OPENINGS)
                .map_err(value_error)?
                .into_iter()
                .map(|r| Opening {
                    start: r.pos,
                    moves: Vec::new(),
                    name: format!("2moves_v1 #{}", r.line - 1),
                })
                .collect();
            runner::shuffle(&mut list, seed);
            list
        }
    };
    let cfg = Config {
        players,
        schedule: Schedule::RoundRobin,
        rounds: 1,
        games,
        openings,
        concurrency: concurrency.clamp(1, 64),
        adjudication: Adjudication {
            max_moves,
            ..Adjudication::default()
        },
        time_margin: Duration::from_millis(100),
        move_timeout: Duration::from_secs(600),
        event: "Rookery match (Python)".into(),
    };
    let stop = Arc::new(AtomicBool::new(false));
    let flag = stop.clone();
    let played = interruptible(py, Some(stop), move || {
        let jobs = runner::schedule(&cfg);
        let mut played = Vec::new();
        runner::run(&cfg, jobs, |p| {
            played.push(p.clone());
            !flag.load(Ordering::Relaxed)
        });
        played
    })?;
    // From the first engine's (`white`'s) point of view; it has White in every other game.
    let mut wdl = Wdl::default();
    let mut rows = Vec::new();
    let mut sorted = played;
    sorted.sort_by_key(|p| p.job.number);
    for p in &sorted {
        let first_white = p.job.white == 0;
        wdl.add(if first_white {
            p.white_score
        } else {
            1.0 - p.white_score
        });
        rows.push((
            names[p.job.white].clone(),
            names[p.job.black].clone(),
            p.result(),
            p.ending.to_string(),
            p.plies,
            p.pgn.clone(),
        ));
    }
    let d = PyDict::new(py);
    d.set_item("names", names)?;
    d.set_item("wins", wdl.wins)?;
    d.set_item("draws", wdl.draws)?;
    d.set_item("losses", wdl.losses)?;
    d.set_item("score", wdl.score())?;
    d.set_item("elo", wdl.elo())?;
    d.set_item("elo_error", wdl.elo_error())?;
    d.set_item("games", rows)?;
    Ok(d)
}

/// A move the tables rank: uci, san, wdl, dtz.
type TbMove = (String, String, i32, i32);

/// Syzygy tables opened from a directory (or several, separated by ':').
#[pyclass(module = "rookery._rookery")]
struct NativeSyzygy {
    tables: Syzygy,
}

#[pymethods]
impl NativeSyzygy {
    #[new]
    fn new(path: &str) -> PyResult<Self> {
        Ok(NativeSyzygy {
            tables: Syzygy::open(path).map_err(value_error)?,
        })
    }

    #[getter]
    fn max_pieces(&self) -> usize {
        self.tables.max_pieces()
    }

    #[getter]
    fn files(&self) -> usize {
        self.tables.files()
    }

    /// Win/draw/loss for the side to move (-2..2), or None when the tables lack the position.
    fn wdl(&self, fen: &str) -> PyResult<Option<i32>> {
        Ok(self.tables.probe_wdl(&position(fen)?))
    }

    /// Signed plies to the next zeroing move for the side to move, or None.
    fn dtz(&self, fen: &str) -> PyResult<Option<i32>> {
        Ok(self.tables.probe_dtz(&position(fen)?))
    }

    /// Every legal move with (uci, san, wdl, dtz) for the mover, best first; None when the tables
    /// lack the position.
    fn moves(&self, fen: &str) -> PyResult<Option<Vec<TbMove>>> {
        let pos = position(fen)?;
        Ok(self.tables.rank_moves(&pos).map(|ranked| {
            ranked
                .into_iter()
                .map(|r| (uci(r.mv), san_plain(&pos, r.mv), r.wdl, r.dtz))
                .collect()
        }))
    }
}

/// Runs the UCI engine on this process's standard input and output until `quit`.
#[pyfunction]
fn uci_loop(py: Python<'_>) {
    py.detach(|| {
        let input = std::io::BufReader::new(std::io::stdin());
        rookery::uci::run(input, Box::new(std::io::stdout()));
    });
}

/// The engine crate's version.
#[pyfunction]
fn version() -> &'static str {
    env!("CARGO_PKG_VERSION")
}

#[pymodule]
fn _rookery(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("HASH_MAX_MB", rookery::options::HASH_MAX_MB)?;
    m.add_function(wrap_pyfunction!(engines, m)?)?;
    m.add_function(wrap_pyfunction!(evaluate, m)?)?;
    m.add_function(wrap_pyfunction!(evaluate_net, m)?)?;
    m.add_function(wrap_pyfunction!(net_info, m)?)?;
    m.add_function(wrap_pyfunction!(train, m)?)?;
    m.add_function(wrap_pyfunction!(piece_square, m)?)?;
    m.add_function(wrap_pyfunction!(perft, m)?)?;
    m.add_function(wrap_pyfunction!(divide, m)?)?;
    m.add_function(wrap_pyfunction!(search_tree, m)?)?;
    m.add_function(wrap_pyfunction!(tree_size, m)?)?;
    m.add_function(wrap_pyfunction!(play_match, m)?)?;
    m.add_function(wrap_pyfunction!(uci_loop, m)?)?;
    m.add_function(wrap_pyfunction!(version, m)?)?;
    m.add_class::<NativeEngine>()?;
    m.add_class::<NativeSyzygy>()?;
    Ok(())
}
