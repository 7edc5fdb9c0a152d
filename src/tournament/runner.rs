//! Playing the games of a match or tournament: pairings, openings, clocks kept by the runner,
//! adjudication, several games at once, and the results as they come in.

use std::collections::VecDeque;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::channel;
use std::time::{Duration, Instant};

use serde::Serialize;
use shakmaty::{Chess, Color, Move, Position};

use super::player::{self, Clocks, Fault, Limit, Player, PlayerSpec};
use crate::core::Game;
use crate::core::stats::{colours, round_robin};
use crate::driver::{Header, Outcome, pgn_record_with_notes, rules_end};
use crate::tb::Syzygy;

/// A starting position for a pair of games.
#[derive(Clone, Debug)]
pub struct Opening {
    pub start: Chess,
    pub moves: Vec<Move>,
    /// Where it came from (file and number), for the PGN.
    pub name: String,
}

/// When to end a game early.
#[derive(Clone, Debug, Default)]
pub struct Adjudication {
    /// Draw: from this move number on, when both engines' scores stay within `draw_score` for
    /// `draw_count` moves each.
    pub draw: Option<(u32, u32, i32)>,
    /// Resign: when both engines agree for `count` moves each that one side is behind by
    /// `score` or more.
    pub resign: Option<(u32, i32)>,
    /// Draw after this many moves (full moves, counted from the opening's end).
    pub max_moves: Option<u32>,
    /// Decide positions the tables cover from the tables.
    pub tablebases: Option<Syzygy>,
}

/// Who plays whom.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Schedule {
    RoundRobin,
    /// The first engine against each of the others.
    Gauntlet,
}

#[derive(Clone, Debug)]
pub struct Config {
    pub players: Vec<PlayerSpec>,
    pub schedule: Schedule,
    /// Rounds; in each, every pairing plays `games` games (colours alternate, two games share
    /// an opening).
    pub rounds: u32,
    pub games: u32,
    pub openings: Vec<Opening>,
    pub concurrency: usize,
    pub adjudication: Adjudication,
    /// Time past zero before a flag falls (communication delays).
    pub time_margin: Duration,
    /// How long a depth- or node-limited move (or one at a fixed time) may take before the
    /// engine counts as hung.
    pub move_timeout: Duration,
    pub event: String,
}

/// One game to play.
#[derive(Clone, Copy, Debug)]
pub struct Job {
    pub number: usize,
    pub round: u32,
    pub white: usize,
    pub black: usize,
    pub opening: usize,
}

/// How a game ended, in the words a PGN Termination tag and a summary use.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub enum Ending {
    Rules(String),
    TimeForfeit,
    Fault(String),
    Adjudicated(String),
    MaxMoves,
}

impl std::fmt::Display for Ending {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Ending::Rules(r) => f.write_str(r),
            Ending::TimeForfeit => f.write_str("time forfeit"),
            Ending::Fault(what) => f.write_str(what),
            Ending::Adjudicated(why) => write!(f, "adjudication: {why}"),
            Ending::MaxMoves => f.write_str("adjudication: maximum length"),
        }
    }
}

/// A finished game.
#[derive(Clone, Debug)]
pub struct Played {
    pub job: Job,
    /// 1.0 White won, 0.5 draw, 0.0 Black won.
    pub white_score: f64,
    pub ending: Ending,
    /// The engine at fault (time forfeit, crash, hang, illegal move, disconnect), if any.
    pub culprit: Option<(usize, &'static str)>,
    pub pgn: String,
    pub plies: usize,
    /// The least time each player had left on its clock as it moved (the moment it answered,
    /// before the increment), by player index; a player without a clock, or that made no
    /// move, is not listed.
    pub least_left: Vec<(usize, Duration)>,
}

impl Played {
    pub fn result(&self) -> &'static str {
        Outcome::from_white_score(self.white_score).pgn()
    }
}

impl Ending {
    /// The value of PGN's Termination tag.
    pub fn pgn_termination(&self) -> &'static str {
        match self {
            Ending::Rules(_) => "normal",
            Ending::TimeForfeit => "time forfeit",
            Ending::Fault(_) => "rules infraction",
            Ending::Adjudicated(_) | Ending::MaxMoves => "adjudication",
        }
    }
}

/// Every game of the tournament, in the order they are handed out.
pub fn schedule(cfg: &Config) -> Vec<Job> {
    let n = cfg.players.len();
    let pairs: Vec<(usize, usize)> = match cfg.schedule {
        Schedule::Gauntlet => (1..n).map(|j| (0, j)).collect(),
        Schedule::RoundRobin => round_robin(n),
    };
    let mut jobs = Vec::new();
    let mut opening = 0;
    for round in 1..=cfg.rounds {
        for &pair in &pairs {
            for g in 0..cfg.games {
                let (white, black) = colours(pair, g as usize);
                jobs.push(Job {
                    number: jobs.len() + 1,
                    round,
                    white,
                    black,
                    opening: opening % cfg.openings.len().max(1),
                });
                // Two games (one each way) per opening.
                if g % 2 == 1 || g + 1 == cfg.games {
                    opening += 1;
                }
            }
        }
    }
    jobs
}

/// Plays every job on `cfg.concurrency` threads, calling `on_result` on this thread as each game
/// ends. `on_result` returns false to stop handing out games (an SPRT decided); games already
/// under way are finished.
///
/// `rookery match` is this function with a command line around it. Players are engines of this
/// crate by ladder name, or programs speaking UCI or xboard (`Kind::External`).
///
/// ```
/// use std::time::Duration;
///
/// use rookery::tournament::player::{Kind, Limit, PlayerSpec};
/// use rookery::tournament::runner::{self, Adjudication, Config, Schedule};
/// use rookery::core::stats::Wdl;
///
/// let player = |engine: &str, depth| PlayerSpec {
///     name: engine.to_string(),
///     kind: Kind::Internal { engine: engine.to_string() },
///     limit: Limit::Depth(depth),
///     options: Vec::new(),
///     threads: 1,
///     hash_mb: 16,
///     syzygy: None,
///     seed: 1,
/// };
/// let config = Config {
///     players: vec![player("quiescence", 2), player("random", 1)],
///     schedule: Schedule::RoundRobin,
///     rounds: 1,
///     games: 2, // one with each colour
///     openings: runner::load_openings("tests/data/openings.epd").unwrap(),
///     concurrency: 1,
///     adjudication: Adjudication { max_moves: Some(60), ..Adjudication::default() },
///     time_margin: Duration::from_millis(50),
///     move_timeout: Duration::from_secs(60),
///     event: "example".into(),
/// };
///
/// // From the first player's side: `rookery match` prints this with Elo, error bar and LOS.
/// let mut result = Wdl::default();
/// let jobs = runner::schedule(&config);
/// assert_eq!(jobs.len(), 2);
/// runner::run(&config, jobs, |game| {
///     assert!(game.pgn.contains("[Event \"example\"]"));
///     let first_is_white = game.job.white == 0;
///     result.add(if first_is_white { game.white_score } else { 1.0 - game.white_score });
///     true // go on with the next game
/// });
/// assert_eq!(result.games(), 2);
/// assert!(result.score() >= 0.5, "quiescence search does not lose to a random mover");
/// ```
pub fn run(cfg: &Config, jobs: Vec<Job>, mut on_result: impl FnMut(&Played) -> bool) {
    let queue = Mutex::new(VecDeque::from(jobs));
    let halt = AtomicBool::new(false);
    let (tx, rx) = channel::<Played>();
    std::thread::scope(|s| {
        for worker in 0..cfg.concurrency.max(1) {
            let (queue, halt, tx) = (&queue, &halt, tx.clone());
            s.spawn(move || {
                // Each thread has its own instance of every player (its own processes).
                let mut players: Vec<Option<Box<dyn Player>>> =
                    (0..cfg.players.len()).map(|_| None).collect();
                loop {
                    if halt.load(Ordering::Relaxed) {
                        break;
                    }
                    let Some(job) = queue.lock().ok().and_then(|mut q| q.pop_front()) else {
                        break;
                    };
                    let played = play_job(cfg, job, worker, &mut players);
                    if tx.send(played).is_err() {
                        break;
                    }
                }
            });
        }
        drop(tx);
        for played in rx {
            if !on_result(&played) {
                halt.store(true, Ordering::Relaxed);
            }
        }
    });
}

fn play_job(
    cfg: &Config,
    job: Job,
    worker: usize,
    players: &mut [Option<Box<dyn Player>>],
) -> Played {
    for idx in [job.white, job.black] {
        if players[idx].is_none() {
            let mut spec = cfg.players[idx].clone();
            spec.seed = spec.seed.wrapping_add(worker as u64 * 7919);
            players[idx] = player::create(&spec).ok();
        }
    }
    let (w, b) = if job.white < job.black {
        let (lo, hi) = players.split_at_mut(job.black);
        (&mut lo[job.white], &mut hi[0])
    } else {
        let (lo, hi) = players.split_at_mut(job.white);
        (&mut hi[0], &mut lo[job.black])
    };
    play_game(cfg, job, w, b)
}

/// A game's result: White's score, how it ended, and the engine at fault (with the kind of fault).
type Finish = (f64, Ending, Option<(usize, &'static str)>);

/// A side's state during one game.
struct Side<'a> {
    player: &'a mut Option<Box<dyn Player>>,
    index: usize,
    limit: Limit,
    time: Duration,
    /// The scores it reported, newest last.
    scores: Vec<Option<i32>>,
    /// The least time it had left as it moved.
    least_left: Option<Duration>,
}

fn play_game(
    cfg: &Config,
    job: Job,
    white: &mut Option<Box<dyn Player>>,
    black: &mut Option<Box<dyn Player>>,
) -> Played {
    let opening = cfg
        .openings
        .get(job.opening)
        .cloned()
        .unwrap_or_else(|| Opening {
            start: Chess::default(),
            moves: Vec::new(),
            name: "initial position".into(),
        });
    let mut game = Game::new(opening.start.clone());
    for &m in &opening.moves {
        if game.play(m).is_err() {
            break;
        }
    }
    let book_plies = game.ply();
    // A comment for each move: none for the opening's, the engine's score, depth, time and
    // clock for the rest.
    let mut notes = vec![String::new(); book_plies];
    let start_time = |i: usize| match cfg.players[i].limit {
        Limit::Clock { base, .. } => base,
        _ => Duration::ZERO,
    };
    let mut sides = [
        Side {
            player: white,
            index: job.white,
            limit: cfg.players[job.white].limit,
            time: start_time(job.white),
            scores: Vec::new(),
            least_left: None,
        },
        Side {
            player: black,
            index: job.black,
            limit: cfg.players[job.black].limit,
            time: start_time(job.black),
            scores: Vec::new(),
            least_left: None,
        },
    ];
    let side_of = |c: Color| if c == Color::White { 0 } else { 1 };

    // Both players ready: a player that cannot start loses at once.
    let mut outcome: Option<Finish> = None;
    for (i, s) in sides.iter_mut().enumerate() {
        let ready = match s.player.as_mut() {
            Some(p) => p.new_game(),
            None => Err(Fault::Crash("cannot be created".into())),
        };
        if let Err(f) = ready {
            let white_score = if i == 0 { 0.0 } else { 1.0 };
            outcome = Some((
                white_score,
                Ending::Fault(format!("{} {f}", cfg.players[s.index].name)),
                Some((s.index, f.kind())),
            ));
            break;
        }
    }

    while outcome.is_none() {
        if let Some(end) = rules_end(&game) {
            outcome = Some((
                end.outcome.white_score().unwrap_or(0.5),
                Ending::Rules(end.termination.to_string()),
                None,
            ));
            break;
        }
        if let Some(end) = adjudicate(cfg, &game, book_plies, &sides) {
            outcome = Some(end);
            break;
        }
        let turn = game.position().turn();
        let me = side_of(turn);
        let clocks = match sides[me].limit {
            Limit::Clock { inc, .. } => Some(Clocks {
                white: sides[0].time,
                black: sides[1].time,
                inc,
            }),
            _ => None,
        };
        let give_up = match sides[me].limit {
            Limit::Clock { .. } => sides[me].time + cfg.time_margin + Duration::from_secs(2),
            Limit::MoveTime(t) => t + cfg.move_timeout,
            _ => cfg.move_timeout,
        };
        let started = Instant::now();
        let answer = match sides[me].player.as_mut() {
            Some(p) => p.think(&game, clocks, give_up),
            None => Err(Fault::Crash("not running".into())),
        };
        let spent = started.elapsed();
        let index = sides[me].index;
        let loser_score = if turn == Color::White { 0.0 } else { 1.0 };
        let thought = match answer {
            Ok(t) => t,
            Err(f) => {
                outcome = Some((
                    loser_score,
                    Ending::Fault(format!("{} {f}", cfg.players[index].name)),
                    Some((index, f.kind())),
                ));
                break;
            }
        };
        if let Limit::Clock { inc, .. } = sides[me].limit {
            if spent > sides[me].time + cfg.time_margin {
                // A flag fall loses, unless the opponent could never mate.
                let opponent_can_mate = game.position().board().by_color(!turn).count() > 1;
                outcome = Some(if opponent_can_mate {
                    (
                        loser_score,
                        Ending::TimeForfeit,
                        Some((index, "time forfeit")),
                    )
                } else {
                    (0.5, Ending::TimeForfeit, Some((index, "time forfeit")))
                });
                break;
            }
            let left = sides[me].time.saturating_sub(spent);
            sides[me].least_left = Some(sides[me].least_left.map_or(left, |l| l.min(left)));
            sides[me].time = left + inc;
        }
        let Some(mv) = thought.mv.filter(|&m| game.position().is_legal(m)) else {
            outcome = Some((
                loser_score,
                Ending::Fault(format!("{} played no legal move", cfg.players[index].name)),
                Some((index, "illegal move")),
            ));
            break;
        };
        sides[me].scores.push(thought.score);
        let clock = match sides[me].limit {
            Limit::Clock { .. } => Some(sides[me].time),
            _ => None,
        };
        notes.push(move_note(thought.score, thought.depth, spent, clock));
        game.play(mv).expect("checked legal");
    }

    let (white_score, ending, culprit) = outcome.expect("the loop ends with an outcome");
    let tc = |i: usize| cfg.players[i].limit.pgn();
    let mut extra = vec![
        ("Opening", opening.name.clone()),
        ("PlyCount", game.ply().to_string()),
    ];
    if tc(job.white) == tc(job.black) {
        extra.push(("TimeControl", tc(job.white)));
    } else {
        extra.push(("WhiteTimeControl", tc(job.white)));
        extra.push(("BlackTimeControl", tc(job.black)));
    }
    let header = Header {
        event: cfg.event.clone(),
        site: "rookery match".into(),
        round: format!("{}.{}", job.round, job.number),
        white: cfg.players[job.white].name.clone(),
        black: cfg.players[job.black].name.clone(),
        extra,
    };
    let pgn = pgn_record_with_notes(
        &game,
        &header,
        Outcome::from_white_score(white_score),
        ending.pgn_termination(),
        &ending.to_string(),
        &notes,
    );
    Played {
        job,
        white_score,
        ending,
        culprit,
        pgn,
        plies: game.ply(),
        least_left: sides
            .iter()
            .filter_map(|s| s.least_left.map(|l| (s.index, l)))
            .collect(),
    }
}

/// The comment after an engine's move in the PGN, as cutechess writes it and lichess reads the
/// clock: its score from its own side (`+0.31`, `-M4` for a mate), `/depth`, the time it took
/// and, on a clock, the time left after the increment: `+0.31/14 0.482s [%clk 0:00:04.568]`.
pub fn move_note(
    score: Option<i32>,
    depth: u32,
    spent: Duration,
    clock: Option<Duration>,
) -> String {
    let sign = |s: i32| if s >= 0 { '+' } else { '-' };
    let mut note = match score {
        Some(s) if s.abs() >= 29_000 => {
            format!("{}M{}/{depth} ", sign(s), (30_000 - s.abs() + 1) / 2)
        }
        Some(s) => format!("{}{:.2}/{depth} ", sign(s), f64::from(s.abs()) / 100.0),
        None => String::new(),
    };
    note += &format!("{:.3}s", spent.as_secs_f64());
    if let Some(left) = clock {
        let ms = left.as_millis();
        note += &format!(
            " [%clk {}:{:02}:{:02}.{:03}]",
            ms / 3_600_000,
            ms / 60_000 % 60,
            ms / 1000 % 60,
            ms % 1000
        );
    }
    note
}

/// Ends a game early by the configured rules, from the scores both engines reported.
fn adjudicate(cfg: &Config, game: &Game, book_plies: usize, sides: &[Side; 2]) -> Option<Finish> {
    let adj = &cfg.adjudication;
    let pos = game.position();
    if let Some(tb) = &adj.tablebases
        && tb.covers(pos, 7)
        && let Some(wdl) = tb.probe_wdl(pos)
    {
        let mover_score = match wdl {
            2 => 1.0,
            -2 => 0.0,
            _ => 0.5,
        };
        let white_score = if pos.turn() == Color::White {
            mover_score
        } else {
            1.0 - mover_score
        };
        return Some((white_score, Ending::Adjudicated("tablebases".into()), None));
    }
    let played = game.ply().saturating_sub(book_plies);
    if let Some(max) = adj.max_moves
        && played >= 2 * max as usize
    {
        return Some((0.5, Ending::MaxMoves, None));
    }
    // The last `n` scores of each side, from White's point of view.
    let last = |n: usize| -> Option<Vec<i32>> {
        let mut out = Vec::new();
        for (i, s) in sides.iter().enumerate() {
            if s.scores.len() < n {
                return None;
            }
            for v in &s.scores[s.scores.len() - n..] {
                let v = (*v)?;
                out.push(if i == 0 { v } else { -v });
            }
        }
        Some(out)
    };
    if let Some((count, margin)) = adj.resign
        && let Some(scores) = last(count as usize)
    {
        if scores.iter().all(|&s| s >= margin) {
            return Some((1.0, Ending::Adjudicated("resignation".into()), None));
        }
        if scores.iter().all(|&s| s <= -margin) {
            return Some((0.0, Ending::Adjudicated("resignation".into()), None));
        }
    }
    if let Some((from_move, count, margin)) = adj.draw
        && pos.fullmoves().get() >= from_move
        && let Some(scores) = last(count as usize)
        && scores.iter().all(|&s| s.abs() <= margin)
    {
        return Some((0.5, Ending::Adjudicated("draw".into()), None));
    }
    None
}

/// Reads openings: EPD (one position a line) or PGN (each game's moves from its start).
pub fn load_openings(path: &str) -> Result<Vec<Opening>, crate::Error> {
    let text = crate::core::memory::read_text(path.as_ref(), crate::core::memory::MAX_INPUT)
        .map_err(|e| crate::Error::io(path, e))?;
    let mut out = Vec::new();
    if path.ends_with(".pgn") {
        for (i, g) in crate::core::pgn::read_games(&text).into_iter().enumerate() {
            out.push(Opening {
                start: g.start,
                moves: g.moves,
                name: format!("{path} #{}", i + 1),
            });
        }
    } else {
        // EPD or FEN lines (operations, if any, are ignored).
        let records =
            crate::epd::parse(&text).map_err(|e| crate::Error::Invalid(format!("{path}: {e}")))?;
        out.extend(records.into_iter().map(|r| Opening {
            start: r.pos,
            moves: Vec::new(),
            name: format!("{path} #{}", r.line),
        }));
    }
    if out.is_empty() {
        return Err(crate::Error::Invalid(format!("{path}: no openings found")));
    }
    Ok(out)
}

/// A shuffled copy of `openings` (Fisher-Yates with the crate's seeded generator).
pub fn shuffle(openings: &mut [Opening], seed: u64) {
    let mut rng = crate::core::Rng::new(seed);
    for i in (1..openings.len()).rev() {
        let j = rng.below(i as u64 + 1) as usize;
        openings.swap(i, j);
    }
}

#[cfg(test)]
mod tests {
    use super::move_note;
    use std::time::Duration;

    #[test]
    fn a_move_note_has_score_depth_time_and_clock() {
        let ms = Duration::from_millis;
        assert_eq!(
            move_note(Some(31), 14, ms(482), Some(ms(4_568))),
            "+0.31/14 0.482s [%clk 0:00:04.568]"
        );
        assert_eq!(
            move_note(Some(-7), 3, ms(5), Some(ms(3_725_004))),
            "-0.07/3 0.005s [%clk 1:02:05.004]"
        );
        // Mates in moves from the mover's side: in 4 plies is mate in 2 for the one mating.
        assert_eq!(move_note(Some(30_000 - 3), 9, ms(10), None), "+M2/9 0.010s");
        assert_eq!(
            move_note(Some(-(30_000 - 4)), 9, ms(10), None),
            "-M2/9 0.010s"
        );
        assert_eq!(move_note(None, 0, ms(1_500), None), "1.500s");
    }
    use super::*;
    use crate::tournament::player::Kind;

    fn config(players: usize, schedule: Schedule, rounds: u32, games: u32) -> Config {
        let spec = |i: usize| PlayerSpec {
            name: format!("p{i}"),
            kind: Kind::Internal {
                engine: "random".into(),
            },
            limit: Limit::Depth(1),
            options: Vec::new(),
            threads: 1,
            hash_mb: 1,
            syzygy: None,
            seed: 0,
        };
        Config {
            players: (0..players).map(spec).collect(),
            schedule,
            rounds,
            games,
            openings: load_openings("tests/data/openings.epd").unwrap(),
            concurrency: 1,
            adjudication: Adjudication::default(),
            time_margin: Duration::ZERO,
            move_timeout: Duration::from_secs(1),
            event: String::new(),
        }
    }

    #[test]
    fn schedules_pair_everyone_and_swap_colours_on_each_opening() {
        let jobs = schedule(&config(4, Schedule::RoundRobin, 2, 2));
        assert_eq!(jobs.len(), 6 * 2 * 2, "six pairings, two rounds, two games");
        for pair in jobs.chunks(2) {
            assert_eq!(
                (pair[0].white, pair[0].black),
                (pair[1].black, pair[1].white)
            );
            assert_eq!(pair[0].opening, pair[1].opening);
        }
        let openings: std::collections::HashSet<usize> = jobs.iter().map(|j| j.opening).collect();
        assert_eq!(
            openings.len(),
            12,
            "each of the 12 pairs of games has its own opening"
        );
        let jobs = schedule(&config(4, Schedule::Gauntlet, 1, 4));
        assert_eq!(jobs.len(), 3 * 4);
        assert!(jobs.iter().all(|j| j.white == 0 || j.black == 0));
    }
}
