//! The strong engine's search: zugzwang positions with null-move pruning on, mates, repeatable
//! results, threads.

use rookery::core::game::uci;
use rookery::core::score::mate_moves;
use rookery::core::{Game, Limits};
use rookery::engine::{Engine, Evaluation, Settings};
use rookery::search::engine::Rookery;

/// Sets the engine's thread count, every other setting at its default.
fn set_threads(e: &mut Rookery, threads: usize) {
    e.configure(&Settings {
        threads,
        ..Settings::default()
    })
    .unwrap();
}

fn best(fen: &str, depth: u32, threads: usize) -> (String, Option<i32>, u64) {
    let mut e = Rookery::new(0);
    set_threads(&mut e, threads);
    let a = e.analyse(&Game::from_fen(fen).unwrap(), &Limits::depth(depth));
    (uci(a.best.unwrap()), a.score, a.nodes)
}

#[test]
fn zugzwang_positions_solve_with_null_move_on() {
    // tests/data/null-move.epd: in each the solution is a zugzwang that a careless null move
    // ("passing still holds") would refute. The guard (no null move with fewer than two pieces)
    // and the verification search of deep cut-offs must let every one be found. The node budget
    // is about 1.5 times what the search needed when this test was written (zugzwang.003: when
    // the null move learned to respect quiet mate threats, which moved its solution to depth 29,
    // about 37M through UCI with 256 MB), on the hand-crafted
    // evaluation, which the test keeps so that it measures the search alone (the built-in net
    // does not find zugzwang.003 within its budget: it reaches depth 28 and prefers Ke7).
    let text = std::fs::read_to_string("tests/data/null-move.epd").unwrap();
    let budgets = [
        ("zugzwang.001", 500_000),
        ("zugzwang.002", 500_000),
        ("zugzwang.003", 56_000_000),
        ("zugzwang.004", 9_000_000),
        ("zugzwang.005", 1_000_000),
    ];
    let mut checked = 0;
    for line in text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
    {
        let fields: Vec<&str> = line.split_whitespace().collect();
        let fen = fields[..4].join(" ");
        let bm = fields[fields.iter().position(|&f| f == "bm").unwrap() + 1].trim_end_matches(';');
        let id = line.split('"').nth(1).unwrap();
        let nodes = budgets.iter().find(|(i, _)| *i == id).unwrap().1;
        let game = Game::from_fen(&fen).unwrap();
        let mut e = Rookery::new(0);
        e.configure(&Settings {
            hash_mb: 256,
            eval: Evaluation::Hce,
            ..Settings::default()
        })
        .unwrap();
        let a = e.analyse(&game, &Limits::nodes(nodes));
        let expected = rookery::core::game::parse_move(game.position(), bm).unwrap();
        assert_eq!(a.best, Some(expected), "{id}: depth {}", a.depth);
        checked += 1;
    }
    assert_eq!(checked, 5);
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
fn a_quiet_mate_threat_does_not_hide_behind_a_null_move() {
    // WAC.001: Qg6 threatens Qh7 mate and fxg6 allows Nxg6 mate. After Qg6 the defender's
    // null move went straight to quiescence, which sees no quiet mate, so passing "held" and
    // Qg6 was found only at depth 16. With the guard it is a mate in two by depth 10.
    let (m, score, _) = best(
        "2rr3k/pp3pp1/1nnqbN1p/3pN3/2pP4/2P3Q1/PPB4P/R4RK1 w - - 0 1",
        10,
        1,
    );
    assert_eq!((m.as_str(), score.and_then(mate_moves)), ("g3g6", Some(2)));
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

#[test]
fn one_searched_move_is_still_searched_to_the_depth_asked() {
    // `go depth 10 searchmoves g4g5` analyses that one move; only a forced move in a game on the
    // clock may stop early.
    let game = Game::from_fen("7k/5K2/5P1p/3p4/6P1/3p4/8/8 w - - 0 1").unwrap();
    let g5 = rookery::core::game::parse_move(game.position(), "g5").unwrap();
    let mut e = Rookery::new(0);
    let a = e.analyse(
        &game,
        &Limits {
            depth: Some(10),
            searchmoves: vec![g5],
            ..Limits::default()
        },
    );
    assert_eq!((a.best, a.depth), (Some(g5), 10));
}

#[test]
fn a_mate_on_the_hundredth_half_move_is_a_mate() {
    // Rd8# is the 100th half-move without a capture or pawn move: checkmate ends the game
    // before the 50-move rule can be claimed.
    let (m, score, _) = best("6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 99 80", 4, 1);
    assert_eq!(m, "d1d8");
    assert_eq!(score.and_then(mate_moves), Some(1));
}

#[test]
fn a_node_limit_stops_every_thread_near_the_total() {
    let fen = "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10";
    let game = Game::from_fen(fen).unwrap();
    let mut e = Rookery::new(0);
    set_threads(&mut e, 3);
    for _ in 0..3 {
        let a = e.analyse(&game, &Limits::nodes(20_000));
        // Each thread publishes its count every 64 nodes, and all stop once the sum reaches
        // the limit: never short of it, and over it by at most a few polls.
        assert!(
            (20_000..=20_500).contains(&a.nodes),
            "{} nodes, depth {}",
            a.nodes,
            a.depth
        );
        assert!(a.best.is_some() && a.depth >= 1);
    }
}

#[test]
fn one_thread_searches_as_if_there_had_never_been_more() {
    // Threads 1 is the same search whether or not the engine ran with more before: the thread
    // machinery leaves nothing behind (a fresh table each time, so only the threads differ).
    let fen = "r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4";
    let game = Game::from_fen(fen).unwrap();
    let one = best(fen, 9, 1);
    let mut e = Rookery::new(0);
    for threads in [3, 1] {
        set_threads(&mut e, threads);
        e.new_game();
        let a = e.analyse(&game, &Limits::depth(9));
        if threads == 1 {
            assert_eq!((uci(a.best.unwrap()), a.score, a.nodes), one);
        } else {
            assert_eq!(a.depth, 9, "a fixed depth is the depth reported");
        }
    }
}

#[test]
fn a_fixed_movetime_is_spent_to_the_end() {
    // `go movetime` asks for that long: a clear best move (the queen hangs) does not cut it short,
    // as it cuts a clock's allotment short. Only a lower bound is asserted: a slow machine may
    // take longer, never less.
    let game =
        Game::from_fen("rnb1kbnr/pppp1ppp/8/4p3/4P2q/5N2/PPPP1PPP/RNBQKB1R w KQkq - 0 3").unwrap();
    let mut e = Rookery::new(0);
    let start = std::time::Instant::now();
    let a = e.analyse(&game, &Limits::movetime_ms(400));
    let took = start.elapsed();
    assert_eq!(uci(a.best.unwrap()), "f3h4");
    assert!(
        took >= std::time::Duration::from_millis(400),
        "{took:?}, depth {}",
        a.depth
    );
}
