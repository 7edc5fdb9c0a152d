//! The strong engine's search: zugzwang positions with null-move pruning on, mates, repeatable
//! results, threads.

use rookery::core::game::uci;
use rookery::core::score::mate_moves;
use rookery::core::{Game, Limits};
use rookery::engine::{Engine, EngineOptions, Settings};
use rookery::search::engine::Rookery;

fn best(fen: &str, depth: u32, threads: usize) -> (String, Option<i32>, u64) {
    let mut e = Rookery::new(&EngineOptions::default());
    e.configure(&Settings {
        threads,
        ..Settings::default()
    });
    let a = e.analyse(&Game::from_fen(fen).unwrap(), &Limits::depth(depth));
    (uci(a.best.unwrap()), a.score, a.nodes)
}

#[test]
fn zugzwang_positions_solve_with_null_move_on() {
    // From ../shared/data/epd/null-move.epd (chessprogramming.org "Null Move Test-Positions").
    // The side to move has only its king and pawns, or the zugzwang hides behind a quiet move:
    // the null-move guard must not let "passing" refute the solution.
    assert_eq!(
        best("8/8/p1p5/1p5p/1P5p/8/PPP2K1p/4R1rk w - - 0 1", 16, 1).0,
        "e1f1"
    );
    assert_eq!(
        best("1q1k4/2Rr4/8/2Q3K1/8/8/8/8 w - - 0 1", 12, 1).0,
        "g5h6"
    );
}

#[test]
fn mates_are_found_and_scored_in_moves() {
    let (m, score, _) = best("6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1", 4, 1);
    assert_eq!(m, "d1d8");
    assert_eq!(score.and_then(mate_moves), Some(1));
    // Queen and pawn against the king: Qg7 mates at once, and the score says mate, not material.
    let (m, score, _) = best("6k1/5p1p/5PpQ/8/8/8/5PPP/6K1 w - - 0 1", 6, 1);
    assert_eq!((m.as_str(), score.and_then(mate_moves)), ("h6g7", Some(1)));
    let (_, score, _) = best("6k1/5p2/6p1/7p/8/5Q2/5PPP/4R1K1 w - - 0 1", 6, 1);
    assert!(
        score.is_some_and(|s| s > 300),
        "two rooks' worth up: {score:?}"
    );
}

#[test]
fn fixed_depth_searches_repeat_exactly() {
    let fen = "r1bqrnk1/pp2bppp/2p2n2/3p2B1/3P4/2NBPN2/PPQ2PPP/R4RK1 w - - 7 11";
    assert_eq!(best(fen, 8, 1), best(fen, 8, 1));
}

#[test]
fn two_threads_find_the_same_mate() {
    let (m, score, nodes) = best("6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1", 6, 2);
    assert_eq!(m, "d1d8");
    assert_eq!(score.and_then(mate_moves), Some(1));
    assert!(nodes > 0);
}
