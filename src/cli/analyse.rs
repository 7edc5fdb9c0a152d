//! `rookery analyse`: every legal move of a position with its score, best first, then depth,
//! nodes and time; `--json` for scripts.

use clap::Args;
use serde_json::json;
use shakmaty::Position;

use super::args::{DEFAULT_ENGINE, EngineArgs, SearchArgs};
use crate::core::Game;
use crate::core::game::{san, san_line, uci};
use crate::core::score::{format_score, mate_moves};
use crate::engine::{Analysis, Bound, Report};
use crate::error::Error;

#[derive(Args, Debug)]
pub struct AnalyseArgs {
    /// The engine to analyse with
    #[arg(long, default_value = DEFAULT_ENGINE)]
    pub engine: String,
    /// The position [default: the initial position]
    #[arg(long)]
    pub fen: Option<String>,
    /// Print the analysis as JSON
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub search: SearchArgs,
    #[command(flatten)]
    pub engine_args: EngineArgs,
}

pub fn run(args: AnalyseArgs) -> Result<i32, Error> {
    let game = Game::from_optional_fen(args.fen.as_deref())?;
    let seed = args.engine_args.seed();
    // Analysis searches: only the `book` engine (and an explicit --book) use a book here.
    let book = if args.engine == "book" || args.engine_args.book.is_some() {
        args.engine_args.load_book()?
    } else {
        None
    };
    let mut engine = args.engine_args.engine(&args.engine, seed, book)?;
    let mut limits = args.search.limits(engine.as_ref());
    limits.score_all_moves = true;
    // A long search shows that it works: after a second, each iteration on stderr, when that
    // is a terminal.
    let started = std::time::Instant::now();
    let watched = std::io::IsTerminal::is_terminal(&std::io::stderr());
    let pos = game.position().clone();
    let mut a = engine.search(&game, &limits, &mut |r| {
        if let Report::Iteration(a) = r
            && watched
            && started.elapsed().as_secs() >= 1
            && let Some(best) = a.best
        {
            eprintln!(
                "depth {:>2}  {:<8} {:>7}  {:.1} s",
                a.depth,
                san(&pos, best),
                a.score.map_or(String::new(), format_score),
                started.elapsed().as_secs_f64()
            );
        }
    });
    rank(&mut a);
    let pos = game.position();
    let unscored = a.moves.iter().filter(|s| s.score.is_none()).count();
    if args.json {
        let moves: Vec<_> = a
            .moves
            .iter()
            .map(|s| {
                json!({
                    "move": uci(s.mv),
                    "san": san(pos, s.mv),
                    "score_cp": s.score.filter(|&v| mate_moves(v).is_none()),
                    "mate": s.score.and_then(mate_moves),
                    "bound": s.bound,
                    "weight": s.weight,
                })
            })
            .collect();
        let doc = json!({
            "fen": game.fen(),
            "engine": engine.name(),
            "best": a.best.map(uci),
            "score_cp": a.score.filter(|&v| mate_moves(v).is_none()),
            "mate": a.score.and_then(mate_moves),
            "pv": a.pv.iter().map(|&m| uci(m)).collect::<Vec<_>>(),
            "depth": a.depth,
            "seldepth": a.seldepth,
            "nodes": a.nodes,
            "time_ms": a.elapsed.as_millis() as u64,
            "book": a.from_book,
            "unscored": unscored,
            "moves": moves,
        });
        println!(
            "{}",
            serde_json::to_string_pretty(&doc).expect("JSON of plain values")
        );
        return Ok(0);
    }
    println!("Position: {}", game.fen());
    println!(
        "Engine:   {} (scores from the side to move, in pawns)",
        engine.name()
    );
    if pos.legal_moves().is_empty() {
        println!("No legal moves: the game is over.");
        return Ok(0);
    }
    for (i, s) in a.moves.iter().enumerate() {
        let score = match (s.score, s.bound) {
            (Some(v), Bound::Exact) => format_score(v),
            (Some(v), Bound::Upper) => format!("<={}", format_score(v)),
            (Some(v), Bound::Lower) => format!(">={}", format_score(v)),
            (None, _) => "-".to_string(),
        };
        let weight = s.weight.map_or(String::new(), |w| format!(" weight {w}"));
        println!("{:>3}. {:<8} {:>8}{weight}", i + 1, san(pos, s.mv), score);
    }
    if unscored > 0 && a.moves.iter().any(|s| s.score.is_some()) {
        println!(
            "          (-: {unscored} move{} the limit left unscored)",
            if unscored == 1 { "" } else { "s" }
        );
    }
    if let Some(best) = a.best {
        println!("Best:     {}", san(pos, best));
    }
    if !a.pv.is_empty() {
        println!("Line:     {}", san_line(pos, &a.pv));
    }
    let ms = a.elapsed.as_millis();
    let nps = if a.elapsed.as_secs_f64() > 0.0 {
        (a.nodes as f64 / a.elapsed.as_secs_f64()) as u64
    } else {
        0
    };
    println!(
        "Depth {} (seldepth {}), {} nodes, {} ms, {} nodes/s{}",
        a.depth,
        a.seldepth,
        a.nodes,
        ms,
        nps,
        if a.from_book { ", from the book" } else { "" }
    );
    Ok(0)
}

/// Ranks the moves by their scores, best first (the move the engine chose first among equals,
/// unscored moves last), and makes the best move and its line the first row's.
fn rank(a: &mut Analysis) {
    let chosen = a.best;
    a.moves.sort_by_key(|m| {
        (
            std::cmp::Reverse(m.score.unwrap_or(i32::MIN)),
            Some(m.mv) != chosen,
        )
    });
    let Some(first) = a.moves.first() else {
        return;
    };
    if first.score.is_none() && chosen.is_some() {
        // Nothing scored (a book move, a random mover): the engine's choice stands.
        return;
    }
    if chosen != Some(first.mv) {
        a.best = Some(first.mv);
        a.score = first.score;
        a.pv = a
            .lines
            .iter()
            .find(|l| l.pv.first() == Some(&first.mv))
            .map_or_else(|| vec![first.mv], |l| l.pv.clone());
    }
}
