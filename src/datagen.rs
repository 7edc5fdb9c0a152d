//! Self-play data for tuning the evaluation (`rookery datagen`), the labelled positions of game
//! collections (`--pgn`), and OpenBench's `genfens`.
//!
//! A game starts from an opening (a file's, or the initial position) and some random plies, then
//! `rookery` plays itself at a fixed number of nodes (or depth) a move, or (`soft_nodes`) with
//! a soft node count a move: the search ends with the iteration that passes it, within a hard
//! cap. With `verify`, a short search first scores the start, and one too far from level
//! (|score| above a threshold) is rejected and another line drawn from the game's own random
//! stream, so a seed still gives the same games. Every quiet position is
//! kept: not in check, and the move played from it neither captures nor promotes (the search
//! found nothing to resolve there). Positions among the random plies (the "book"), positions the
//! tablebases cover (four pieces or fewer), and decided ones (a mate or a tablebase win in sight,
//! |score| of 5,000 or more) are left out. When the game ends (by the rules, or adjudicated: a side
//! ahead by 10 pawns for eight plies, a dead draw after move 40, 400 plies) each kept position is
//! written with the result.
//!
//! The format is `data::sample`'s: EPD with opcodes, as the common tuning sets are written:
//! `<fen> hmvc 0; fmvn 12; ce 35; c9 "1-0"; id "s1g42";` with `ce` the search's score for the
//! side to move (centipawns) and `c9` the game's result. `id` names the seed and game, so a second
//! run with the same seed appends the games that follow; a run is the same for a seed whatever the
//! number of threads.

use std::collections::BTreeMap;
use std::io::Write;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use shakmaty::{Chess, Color, Move, Position};

use crate::core::score::MATE_BOUND;
use crate::core::{Game, Limits, Rng};
use crate::data::games::GameLog;
use crate::data::sample::{epd_position, epd_with_score, result_value};
use crate::data::store::ChunkWriter;
use crate::data::{Record, parse_sample};
use crate::driver::{Outcome, rules_end};
use crate::engine::{Engine, Evaluation, Settings};
use crate::error::Error;
use crate::search::engine::Rookery;

/// Positions with this many pieces or fewer are the tablebases' and left out.
pub const TABLEBASE_PIECES: usize = 4;
pub use crate::data::DECIDED;
/// Adjudication: a side ahead by this much for `RESIGN_PLIES` plies wins.
const RESIGN_SCORE: i32 = 1_000;
const RESIGN_PLIES: usize = 8;
/// Adjudication: after this ply, scores within `DRAW_SCORE` for `DRAW_PLIES` plies are a draw.
const DRAW_FROM_PLY: usize = 80;
const DRAW_SCORE: i32 = 10;
const DRAW_PLIES: usize = 12;
const MAX_PLIES: usize = 400;

/// What `rookery datagen` is asked for.
#[derive(Clone, Debug)]
pub struct Config {
    /// Stop after this many games, or after this many positions (whole games).
    pub games: Option<u64>,
    pub positions: Option<u64>,
    /// Nodes a move (default), or a fixed depth.
    pub nodes: u64,
    pub depth: Option<u32>,
    /// `Some(cap)`: `nodes` is a soft limit (no new iteration past it), `cap` the hard one.
    /// `None`: `nodes` is a hard limit, as the data sets made before soft limits were played.
    pub hard_nodes: Option<u64>,
    /// Score each start with a short search and reject the unbalanced ones; `None`: keep all.
    pub verify: Option<Verify>,
    pub threads: usize,
    pub seed: u64,
    /// Starting positions: FENs (with moves played from them); empty: the initial position.
    pub openings: Vec<(Chess, Vec<Move>)>,
    /// Random plies played from the opening before the engines take over.
    pub random_plies: u32,
    pub hash_mb: usize,
    /// The evaluation the games are played with.
    pub eval: Evaluation,
}

/// Opening verification: a search of `nodes` (a hard count) scores the start, and a start whose
/// |score| is above `max_score` centipawns is rejected.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Verify {
    pub max_score: i32,
    pub nodes: u64,
}

/// The budget of a verification search when none is given: twice a move's default budget, a
/// verdict a little sounder than one move's search at a small share of a game's nodes.
pub const VERIFY_NODES: u64 = 10_000;
/// Starts drawn for one game before it is given up (left without positions).
const MAX_STARTS: u32 = 1_000;

/// One finished game's kept positions, each with the search's score (side to move's), and the
/// game's result; with its start, its moves and the plies of the kept positions for its log.
#[derive(Debug)]
pub struct GameRecord {
    pub index: u64,
    pub kept: Vec<(Chess, i32)>,
    pub result: Outcome,
    pub start: Chess,
    pub moves: Vec<Move>,
    /// For each kept position, the plies from `start` to it.
    pub kept_plies: Vec<usize>,
    /// Starts drawn for this game and rejected by the verification before its own.
    pub rejected: u32,
}

impl GameRecord {
    /// The game's result for White: 1, 0.5 or 0.
    fn white_result(&self) -> f64 {
        match self.result {
            Outcome::WhiteWins => 1.0,
            Outcome::BlackWins => 0.0,
            Outcome::Draw | Outcome::Unfinished => 0.5,
        }
    }

    /// The kept positions as lines of the EPD format.
    pub fn epd_lines(&self, seed: u64) -> Vec<String> {
        let tag = self.result.pgn();
        self.kept
            .iter()
            .map(|(pos, score)| {
                format!(
                    "{} c9 \"{tag}\"; id \"s{seed}g{}\";",
                    epd_with_score(pos, *score),
                    self.index
                )
            })
            .collect()
    }

    /// The game as a log (`data::games`), which gives back its records.
    pub fn log(&self) -> GameLog {
        GameLog {
            index: self.index,
            result: match self.result {
                Outcome::BlackWins => 0,
                Outcome::Draw => 1,
                Outcome::WhiteWins => 2,
                Outcome::Unfinished => 3,
            },
            start: self.start.clone(),
            moves: self.moves.clone(),
            kept: self
                .kept_plies
                .iter()
                .zip(&self.kept)
                .map(|(&ply, &(_, score))| (ply, score))
                .collect(),
        }
    }

    /// The kept positions as binary records.
    pub fn records(&self) -> Vec<Record> {
        let result = self.white_result();
        self.kept
            .iter()
            .map(|(pos, score)| Record::new(pos, *score, result))
            .collect()
    }
}

/// Where finished games go, in game order.
pub trait Sink {
    fn write_game(&mut self, seed: u64, game: &GameRecord) -> Result<(), Error>;
}

/// EPD lines to any writer (a file, a buffer).
pub struct EpdSink<W: Write>(pub W);

impl<W: Write> Sink for EpdSink<W> {
    fn write_game(&mut self, seed: u64, game: &GameRecord) -> Result<(), Error> {
        let mut text = String::new();
        for l in game.epd_lines(seed) {
            text.push_str(&l);
            text.push('\n');
        }
        self.0
            .write_all(text.as_bytes())
            .and_then(|_| self.0.flush())
            .map_err(|e| Error::Invalid(format!("cannot write the data: {e}")))
    }
}

impl Sink for ChunkWriter {
    fn write_game(&mut self, _seed: u64, game: &GameRecord) -> Result<(), Error> {
        let mut log = Vec::new();
        game.log().encode(&mut log)?;
        ChunkWriter::write_game(self, game.index, &game.records(), &log)
    }
}

/// A 64-bit mix of the seed and the game number: each game's own random stream.
fn game_seed(seed: u64, index: u64) -> u64 {
    let mut z = seed ^ index.wrapping_mul(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// A game's start: an opening (or the initial position) and `plies` random moves, never a
/// finished game. `None` only if no try in 100 gives one.
pub fn random_start(openings: &[(Chess, Vec<Move>)], plies: u32, rng: &mut Rng) -> Option<Game> {
    for _ in 0..100 {
        let mut game = match openings.len() {
            0 => Game::new(Chess::default()),
            n => {
                let (start, moves) = &openings[rng.index(n)];
                let mut g = Game::new(start.clone());
                for &m in moves {
                    if g.play(m).is_err() {
                        break;
                    }
                }
                g
            }
        };
        let mut ok = true;
        for _ in 0..plies {
            let moves = game.position().legal_moves();
            if moves.is_empty() || rules_end(&game).is_some() {
                ok = false;
                break;
            }
            let m = moves[rng.index(moves.len())];
            if game.play(m).is_err() {
                ok = false;
                break;
            }
        }
        if ok && rules_end(&game).is_none() && !game.position().legal_moves().is_empty() {
            return Some(game);
        }
    }
    None
}

/// True when `pos` is worth keeping before `mv` is played from it with `score` (side to move).
fn keep(pos: &Chess, mv: Move, score: i32) -> bool {
    !pos.is_check()
        && !mv.is_capture()
        && !mv.is_promotion()
        && score.abs() < DECIDED
        && pos.board().occupied().count() > TABLEBASE_PIECES
}

/// The limits of each move's search.
fn move_limits(cfg: &Config) -> Limits {
    match (cfg.depth, cfg.hard_nodes) {
        (Some(depth), _) => Limits::depth(depth),
        (None, None) => Limits::nodes(cfg.nodes),
        (None, Some(cap)) => Limits {
            nodes: Some(cap.max(cfg.nodes)),
            soft_nodes: Some(cfg.nodes),
            ..Limits::default()
        },
    }
}

/// Game `index`'s start and the starts rejected before it: each drawn from the game's random
/// stream, and (with `cfg.verify`) scored by a short search from a cleared engine, so the same
/// game gets the same start on any thread. `None` if `stop` was raised or no start would do.
fn verified_start(
    cfg: &Config,
    index: u64,
    engine: &mut Rookery,
    stop: &AtomicBool,
) -> Option<(Game, u32)> {
    let mut rng = Rng::new(game_seed(cfg.seed, index));
    let mut rejected = 0;
    loop {
        let game = random_start(&cfg.openings, cfg.random_plies, &mut rng)?;
        let Some(verify) = cfg.verify else {
            return Some((game, 0));
        };
        if stop.load(Ordering::Relaxed) {
            return None;
        }
        engine.new_game();
        let score = engine
            .analyse(&game, &Limits::nodes(verify.nodes))
            .score
            .unwrap_or(0);
        if score.abs() <= verify.max_score {
            return Some((game, rejected));
        }
        rejected += 1;
        if rejected >= MAX_STARTS {
            return None;
        }
    }
}

/// The engine a generator thread plays with: reproducible, with `cfg`'s table size and
/// evaluation.
fn generator_engine(cfg: &Config) -> Result<Rookery, Error> {
    let mut engine = Rookery::new(cfg.seed);
    engine.set_reproducible(true);
    engine.configure(&Settings {
        hash_mb: cfg.hash_mb,
        eval: cfg.eval.clone(),
        ..Settings::default()
    })?;
    Ok(engine)
}

/// Plays game `index` and returns its kept positions; `None` if `stop` was raised first (or
/// no start passed the verification in `MAX_STARTS` draws).
pub fn play_game(
    cfg: &Config,
    index: u64,
    engine: &mut Rookery,
    stop: &AtomicBool,
) -> Option<GameRecord> {
    let (mut game, rejected) = verified_start(cfg, index, engine, stop)?;
    engine.new_game();
    let limits = move_limits(cfg);
    let mut kept: Vec<(Chess, i32)> = Vec::new();
    let mut kept_plies: Vec<usize> = Vec::new();
    let mut winning = (Color::White, 0usize);
    let mut quiet = 0usize;
    let result = loop {
        if stop.load(Ordering::Relaxed) {
            return None;
        }
        if let Some(end) = rules_end(&game) {
            break end.outcome;
        }
        if game.ply() >= MAX_PLIES {
            break Outcome::Draw;
        }
        let a = engine.analyse(&game, &limits);
        let Some(mv) = a.best else {
            break Outcome::Draw;
        };
        let score = a.score.unwrap_or(0);
        let pos = game.position().clone();
        if keep(&pos, mv, score) {
            kept.push((pos.clone(), score));
            kept_plies.push(game.ply());
        }
        // Adjudication, from White's point of view.
        let white = if pos.turn() == Color::White {
            score
        } else {
            -score
        };
        let leader = if white > 0 {
            Color::White
        } else {
            Color::Black
        };
        if white.abs() >= RESIGN_SCORE || white.abs() >= MATE_BOUND {
            winning = if winning.0 == leader {
                (leader, winning.1 + 1)
            } else {
                (leader, 1)
            };
            if winning.1 >= RESIGN_PLIES {
                break if leader == Color::White {
                    Outcome::WhiteWins
                } else {
                    Outcome::BlackWins
                };
            }
        } else {
            winning.1 = 0;
        }
        quiet = if white.abs() <= DRAW_SCORE {
            quiet + 1
        } else {
            0
        };
        if game.ply() >= DRAW_FROM_PLY && quiet >= DRAW_PLIES {
            break Outcome::Draw;
        }
        if game.play(mv).is_err() {
            break Outcome::Draw;
        }
    };
    Some(GameRecord {
        index,
        kept,
        result,
        start: game.start().clone(),
        moves: game.moves().to_vec(),
        kept_plies,
        rejected,
    })
}

/// Set by the Ctrl-C handler: finish the games written so far and stop.
pub static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// The next game of a file made with `seed`: one past the last game its lines name (0 for a new
/// or empty file). Every line is checked: a line that is not a record of this format is an error
/// naming its number.
pub fn resume_point(text: &str, seed: u64) -> Result<u64, Error> {
    let mut next = 0;
    let ends_cleanly = text.is_empty() || text.ends_with('\n');
    let count = text.lines().count();
    for (i, line) in text.lines().enumerate() {
        let n = i + 1;
        if line.trim().is_empty() {
            continue;
        }
        if n == count && !ends_cleanly {
            return Err(Error::Invalid(format!(
                "line {n} is cut short (the file ends in the middle of it): remove that line, or write to a new file"
            )));
        }
        let sample = parse_sample(line).map_err(|e| Error::Invalid(format!("line {n}: {e}")))?;
        if let Some((s, g)) = sample.id
            && s == seed
        {
            next = next.max(g + 1);
        }
    }
    Ok(next)
}

/// Progress, as the run goes: positions, games, rate and time left.
pub struct Progress {
    pub positions: u64,
    pub games: u64,
    /// Starts the verification rejected for the games written.
    pub rejected: u64,
    pub elapsed: Duration,
}

/// What a run wrote.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    pub games: u64,
    pub positions: u64,
    /// Starts the verification rejected for those games.
    pub rejected: u64,
}

/// Generates games on `cfg.threads` threads from game `first` on, writing each finished game's
/// lines to `out` in game order, until the games or positions asked for are written or
/// `INTERRUPTED` is raised. Returns what was written.
pub fn run(
    cfg: &Config,
    first: u64,
    out: &mut dyn Sink,
    mut progress: impl FnMut(&Progress),
) -> Result<Summary, Error> {
    let threads = cfg.threads.max(1) as u64;
    crate::core::memory::check(
        &format!("{threads} hash tables of {} MB", cfg.hash_mb),
        threads * cfg.hash_mb as u64 * crate::core::memory::MB,
        0,
    )?;
    let next = AtomicU64::new(first);
    let stop = AtomicBool::new(false);
    let (tx, rx) = mpsc::channel::<GameRecord>();
    let start = Instant::now();
    let mut written_games = 0u64;
    let mut written_positions = 0u64;
    let mut rejected = 0u64;
    let mut pending: BTreeMap<u64, GameRecord> = BTreeMap::new();
    let mut want = first;
    let mut last_report = Instant::now() - Duration::from_secs(1);
    let done = |games: u64, positions: u64| {
        cfg.games.is_some_and(|g| games >= g) || cfg.positions.is_some_and(|p| positions >= p)
    };
    let mut failure: Option<Error> = None;
    std::thread::scope(|scope| {
        for _ in 0..cfg.threads.max(1) {
            let tx = tx.clone();
            let (next, stop) = (&next, &stop);
            scope.spawn(move || {
                // Checked above; memory taken meanwhile by others ends the run early.
                let Ok(mut engine) = generator_engine(cfg) else {
                    stop.store(true, Ordering::Relaxed);
                    return;
                };
                loop {
                    if stop.load(Ordering::Relaxed) || INTERRUPTED.load(Ordering::Relaxed) {
                        return;
                    }
                    let index = next.fetch_add(1, Ordering::Relaxed);
                    if cfg.games.is_some_and(|g| index >= first + g) {
                        return;
                    }
                    let game = play_game(cfg, index, &mut engine, stop).unwrap_or(GameRecord {
                        index,
                        kept: Vec::new(),
                        result: Outcome::Draw,
                        start: Chess::default(),
                        moves: Vec::new(),
                        kept_plies: Vec::new(),
                        rejected: 0,
                    });
                    if tx.send(game).is_err() {
                        return;
                    }
                }
            });
        }
        drop(tx);
        while let Ok(game) = rx.recv() {
            pending.insert(game.index, game);
            while let Some(game) = pending.remove(&want) {
                want += 1;
                if done(written_games, written_positions) || INTERRUPTED.load(Ordering::Relaxed) {
                    continue;
                }
                if let Err(e) = out.write_game(cfg.seed, &game) {
                    failure = Some(e);
                    stop.store(true, Ordering::Relaxed);
                }
                written_games += 1;
                written_positions += game.kept.len() as u64;
                rejected += u64::from(game.rejected);
            }
            if done(written_games, written_positions) || INTERRUPTED.load(Ordering::Relaxed) {
                stop.store(true, Ordering::Relaxed);
            }
            if last_report.elapsed() >= Duration::from_millis(500) {
                last_report = Instant::now();
                progress(&Progress {
                    positions: written_positions,
                    games: written_games,
                    rejected,
                    elapsed: start.elapsed(),
                });
            }
        }
    });
    progress(&Progress {
        positions: written_positions,
        games: written_games,
        rejected,
        elapsed: start.elapsed(),
    });
    match failure {
        Some(e) => Err(e),
        None => Ok(Summary {
            games: written_games,
            positions: written_positions,
            rejected,
        }),
    }
}

/// Labelled positions from a game collection: each quiet position (not in check, the move played
/// neither captures nor promotes) after the first 16 plies, with more than four pieces, of every
/// game with a result. No search score.
pub fn from_pgn(text: &str, out: &mut dyn Write) -> Result<(u64, u64), Error> {
    let (mut games, mut positions) = (0, 0);
    for g in crate::core::pgn::read_games(text) {
        let result = g
            .tags
            .iter()
            .find(|(k, _)| k == "Result")
            .map(|(_, v)| v.as_str())
            .unwrap_or("*");
        if result_value(result).is_none() {
            continue;
        }
        games += 1;
        let mut pos = g.start.clone();
        let mut text = String::new();
        for (ply, &m) in g.moves.iter().enumerate() {
            if ply >= 16
                && !pos.is_check()
                && !m.is_capture()
                && !m.is_promotion()
                && pos.board().occupied().count() > TABLEBASE_PIECES
            {
                text.push_str(&format!("{} c9 \"{result}\";\n", epd_position(&pos)));
                positions += 1;
            }
            if !pos.is_legal(m) {
                break;
            }
            pos.play_unchecked(m);
        }
        out.write_all(text.as_bytes())
            .map_err(|e| Error::Invalid(format!("cannot write the data: {e}")))?;
    }
    Ok((games, positions))
}

/// OpenBench's `genfens N seed S book <None|FILE>`: N opening FENs, each a book position (or the
/// initial one) and random plies after it.
pub fn genfens(n: u64, seed: u64, book: Option<&str>) -> Result<Vec<String>, Error> {
    let mut fens = Vec::new();
    genfens_each(n, seed, book, |fen| {
        fens.push(fen);
        true
    })?;
    Ok(fens)
}

/// `genfens`, each FEN handed to `each` as it is made (so a large count streams); stops early
/// when `each` says so.
pub fn genfens_each(
    n: u64,
    seed: u64,
    book: Option<&str>,
    mut each: impl FnMut(String) -> bool,
) -> Result<(), Error> {
    let openings: Vec<(Chess, Vec<Move>)> = match book {
        None => Vec::new(),
        Some(path) => crate::tournament::runner::load_openings(path)?
            .into_iter()
            .map(|o| (o.start, o.moves))
            .collect(),
    };
    let mut rng = Rng::new(game_seed(seed, u64::MAX));
    let plies = if openings.is_empty() { 8 } else { 2 };
    for _ in 0..n {
        let fen = random_start(&openings, plies, &mut rng)
            .map(|g| g.fen())
            .ok_or_else(|| Error::Invalid("no playable opening could be made".into()))?;
        if !each(fen) {
            break;
        }
    }
    Ok(())
}

/// Parses `genfens N seed S book <None|FILE>` (OpenBench's command-line form).
pub fn parse_genfens(words: &[&str]) -> Result<(u64, u64, Option<String>), Error> {
    let usage = || Error::Invalid("usage: genfens N seed S book <None|FILE>".into());
    if words.first() != Some(&"genfens") {
        return Err(usage());
    }
    let n = words
        .get(1)
        .and_then(|w| w.parse().ok())
        .ok_or_else(usage)?;
    let mut seed = 0;
    let mut book = None;
    let mut i = 2;
    while i < words.len() {
        match (words[i], words.get(i + 1)) {
            ("seed", Some(v)) => seed = v.parse().map_err(|_| usage())?,
            ("book", Some(v)) => book = (!v.eq_ignore_ascii_case("none")).then(|| v.to_string()),
            _ => return Err(usage()),
        }
        i += 2;
    }
    Ok((n, seed, book))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::game::parse_fen;

    fn config(games: u64, threads: usize) -> Config {
        Config {
            games: Some(games),
            positions: None,
            nodes: 300,
            depth: None,
            hard_nodes: None,
            verify: None,
            threads,
            seed: 7,
            openings: Vec::new(),
            random_plies: 8,
            hash_mb: 1,
            eval: Evaluation::Hce,
        }
    }

    #[test]
    fn the_same_seed_gives_the_same_data_whatever_the_threads() {
        let mut one = EpdSink(Vec::new());
        run(&config(4, 1), 0, &mut one, |_| {}).unwrap();
        let mut two = EpdSink(Vec::new());
        run(&config(4, 2), 0, &mut two, |_| {}).unwrap();
        assert_eq!(one.0, two.0);
        let text = String::from_utf8(one.0).unwrap();
        assert!(text.lines().count() > 20, "{text}");
        for line in text.lines() {
            let s = parse_sample(line).unwrap();
            assert!(!s.pos.is_check() && s.score.unwrap().abs() < DECIDED);
            assert!(s.pos.board().occupied().count() > TABLEBASE_PIECES);
            assert_eq!(s.id.unwrap().0, 7);
        }
        // The file goes on where it stopped.
        assert_eq!(resume_point(&text, 7).unwrap(), 4);
        assert_eq!(resume_point(&text, 8).unwrap(), 0);
    }

    /// Each written game's start (after `config`'s 8 random plies from the initial position),
    /// rejected starts and EPD lines, in order.
    #[derive(Default)]
    struct Kept(Vec<(Game, u32, Vec<String>)>);

    impl Sink for Kept {
        fn write_game(&mut self, seed: u64, game: &GameRecord) -> Result<(), Error> {
            let mut start = Game::new(game.start.clone());
            for &m in &game.moves[..8] {
                start.play(m).unwrap();
            }
            self.0.push((start, game.rejected, game.epd_lines(seed)));
            Ok(())
        }
    }

    fn games(cfg: &Config) -> (Kept, Summary) {
        let mut kept = Kept::default();
        let summary = run(cfg, 0, &mut kept, |_| {}).unwrap();
        (kept, summary)
    }

    /// The verification's score of a start: a search as the generator's, from a cleared engine.
    fn verification_score(cfg: &Config, start: &Game) -> i32 {
        let mut engine = generator_engine(cfg).unwrap();
        engine.new_game();
        let limits = Limits::nodes(cfg.verify.unwrap().nodes);
        engine.analyse(start, &limits).score.unwrap()
    }

    #[test]
    fn verification_rejects_unbalanced_starts_the_same_way_on_any_thread() {
        let plain = config(6, 1);
        let verified = Config {
            verify: Some(Verify {
                max_score: 60,
                nodes: 300,
            }),
            ..plain.clone()
        };
        let (unchecked, _) = games(&plain);
        let (checked, summary) = games(&verified);
        assert_eq!(summary.games, 6);
        let rejected: u32 = checked.0.iter().map(|g| g.1).sum();
        assert!(
            rejected > 0,
            "a threshold of 60 cp rejects some random starts"
        );
        assert_eq!(summary.rejected, u64::from(rejected));
        for ((start, rejected, lines), (first_drawn, _, _)) in checked.0.iter().zip(&unchecked.0) {
            assert!(!lines.is_empty());
            assert!(verification_score(&verified, start).abs() <= 60);
            if *rejected == 0 {
                // The first start drawn passed: the game starts where it does unchecked.
                assert_eq!(start.moves(), first_drawn.moves());
            } else {
                assert!(verification_score(&verified, first_drawn).abs() > 60);
                assert_ne!(start.moves(), first_drawn.moves());
            }
        }
        // The same seed gives the same games and the same count, whatever the threads.
        let (again, summary_again) = games(&Config {
            threads: 2,
            ..verified.clone()
        });
        assert_eq!(summary_again, summary);
        let lines = |k: &Kept| k.0.iter().flat_map(|g| g.2.clone()).collect::<Vec<_>>();
        assert_eq!(lines(&again), lines(&checked));
    }

    #[test]
    fn a_soft_node_limit_plays_other_games_the_same_way_on_any_thread() {
        let hard = config(3, 1);
        let soft = Config {
            hard_nodes: Some(2_400),
            ..hard.clone()
        };
        let lines = |cfg: &Config| {
            let mut out = EpdSink(Vec::new());
            run(cfg, 0, &mut out, |_| {}).unwrap();
            String::from_utf8(out.0).unwrap()
        };
        let (a, b) = (
            lines(&soft),
            lines(&Config {
                threads: 2,
                ..soft.clone()
            }),
        );
        assert_eq!(a, b);
        assert!(a.lines().count() > 10, "{a}");
        assert_ne!(a, lines(&hard));
        assert!(a.contains("id \"s7g2\";"), "all three games were played");
        // Each move: a soft limit of `nodes` under the cap, or `nodes` exactly as before.
        let (s, h) = (move_limits(&soft), move_limits(&hard));
        assert_eq!((s.soft_nodes, s.nodes), (Some(300), Some(2_400)));
        assert_eq!((h.soft_nodes, h.nodes), (None, Some(300)));
    }

    #[test]
    fn bad_and_cut_lines_are_named() {
        let good = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - hmvc 0; fmvn 1; ce 20; c9 \"1-0\"; id \"s1g0\";\n";
        assert_eq!(resume_point(good, 1).unwrap(), 1);
        let cut = format!("{good}rnbqkbnr/pppp");
        let e = resume_point(&cut, 1).unwrap_err().to_string();
        assert!(e.contains("line 2") && e.contains("cut short"), "{e}");
        let bad = format!("{good}garbage here\n");
        assert!(
            resume_point(&bad, 1)
                .unwrap_err()
                .to_string()
                .contains("line 2")
        );
    }

    #[test]
    fn genfens_is_seeded_and_parsed() {
        let words: Vec<&str> = "genfens 5 seed 3 book None".split(' ').collect();
        let (n, seed, book) = parse_genfens(&words).unwrap();
        assert_eq!((n, seed, book), (5, 3, None));
        let a = genfens(n, seed, None).unwrap();
        assert_eq!(a, genfens(5, 3, None).unwrap());
        assert_ne!(a, genfens(5, 4, None).unwrap());
        assert!(a.iter().all(|f| parse_fen(f).is_ok()));
        assert!(parse_genfens(&["genfens", "x"]).is_err());
    }
}
