//! The tutorial's checks on the ladder: evaluations, equal values across the search rungs, node
//! counts, greedy = greedy-incremental, the book engine staying in book.

mod common;

use common::SEARCHERS;
use rookery::book::{Book, BookPolicy};
use rookery::core::Bound;
use rookery::core::trace::NoTrace;
use rookery::core::{Game, Limits};
use rookery::driver::GameEnd;
use rookery::driver::play_out;
use rookery::engine::{Engine, EngineOptions};
use rookery::eval::material;
use rookery::ladder::{alphabeta, minimax, negamax};
use rookery::registry;
use shakmaty::Position;
use std::sync::Arc;

const MIDDLEGAME: &str = "r1bqrnk1/pp2bppp/2p2n2/3p2B1/3P4/2NBPN2/PPQ2PPP/R4RK1 w - - 7 11";

fn no_book(seed: u64) -> EngineOptions {
    EngineOptions {
        seed,
        ..EngineOptions::default()
    }
}

fn game(fen: &str) -> Game {
    Game::from_fen(fen).unwrap()
}

/// A game from the start position of at most `plies` half-moves, both sides at `limits`.
fn self_play(
    white: &mut dyn Engine,
    black: &mut dyn Engine,
    limits: &Limits,
    plies: usize,
) -> (Game, GameEnd) {
    let mut g = Game::default();
    let end = play_out(&mut g, white, black, (limits, limits), plies, |_, _| Ok(())).unwrap();
    (g, end)
}

#[test]
fn tutorial_evaluations() {
    for (fen, pawns) in [
        ("8/8/4kpp1/3p1b2/p6P/2B5/6P1/6K1 b - - 0 47", -2),
        (
            "r4k1r/1b2bPR1/p4n2/3p4/4P2P/1q2B2B/PpP5/1K4R1 w - - 0 26",
            -10,
        ),
        ("Kn2rn1k/1p2P3/8/8/8/8/8/8 w - - 0 1", -11),
    ] {
        assert_eq!(
            material::evaluate(game(fen).position().board()),
            pawns * 100,
            "{fen}"
        );
    }
}

#[test]
fn greedy_scores_the_promotion_position() {
    let expected = [
        ("e7f8q", 0),
        ("e7f8r", -4),
        ("e7f8b", -6),
        ("e7f8n", -6),
        ("a8b7", -10),
        ("a8a7", -11),
    ];
    for name in ["greedy", "greedy-incremental"] {
        let mut e = registry::create(name, &no_book(1)).unwrap();
        let g = game("Kn2rn1k/1p2P3/8/8/8/8/8/8 w - - 0 1");
        let a = e.analyse(&g, &Limits::depth(1));
        assert_eq!(a.moves.len(), expected.len());
        for (uci, pawns) in expected {
            let m = a
                .moves
                .iter()
                .find(|s| rookery::core::game::uci(s.mv) == uci)
                .unwrap_or_else(|| panic!("{name}: {uci} missing"));
            assert_eq!(m.score, Some(pawns * 100), "{name} {uci}");
        }
        assert_eq!(rookery::core::game::uci(a.best.unwrap()), "e7f8q");
    }
}

/// The value every search rung reports at `depth` (side to move's point of view).
fn values_at(fen: &str, depth: u32) -> Vec<(&'static str, i32)> {
    let g = game(fen);
    let limits = Limits::depth(depth);
    let mut values = vec![
        (
            "minimax",
            minimax::search(&g, &limits, depth, &mut NoTrace)
                .score
                .unwrap(),
        ),
        (
            "alphabeta",
            alphabeta::search(&g, &limits, depth, &mut NoTrace)
                .score
                .unwrap(),
        ),
        (
            "negamax",
            negamax::search(&g, &limits, depth, &mut NoTrace)
                .score
                .unwrap(),
        ),
    ];
    for name in ["iterative", "tt"] {
        let mut e = registry::create(name, &no_book(0)).unwrap();
        let a = e.analyse(&g, &limits);
        assert_eq!(a.depth, depth, "{name} finished depth {depth}");
        values.push((name, a.score.unwrap()));
    }
    values
}

#[test]
fn search_rungs_agree_on_values() {
    let positions = [
        MIDDLEGAME,
        "7k/7P/7P/8/8/p7/8/7K b - - 0 1",
        "8/8/4kpp1/3p1b2/p6P/2B5/6P1/6K1 b - - 0 47",
        "r4k1r/1b2bPR1/p4n2/3p4/4P2P/1q2B2B/PpP5/1K4R1 w - - 0 26",
        "Kn2rn1k/1p2P3/8/8/8/8/8/8 w - - 0 1",
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        // Mate in two for White (Qh6 ... Qg7#): the values must agree on mate scores too.
        "6k1/5p1p/6p1/8/8/5Q2/5PPP/6K1 w - - 0 1",
    ];
    for fen in positions {
        for depth in 1..=3 {
            let values = values_at(fen, depth);
            let first = values[0].1;
            assert!(
                values.iter().all(|&(_, v)| v == first),
                "{fen} depth {depth}: {values:?}"
            );
        }
    }
    let values = values_at(MIDDLEGAME, 4);
    assert!(values.iter().all(|&(_, v)| v == values[0].1), "{values:?}");
}

#[test]
fn node_counts_match_the_tutorial() {
    let g = game(MIDDLEGAME);
    let limits = Limits::default();
    let m3 = minimax::search(&g, &limits, 3, &mut NoTrace).nodes;
    let m4 = minimax::search(&g, &limits, 4, &mut NoTrace).nodes;
    assert_eq!(m3, 70_119);
    assert_eq!(m4, 2_342_944);
    let a3 = alphabeta::search(&g, &limits, 3, &mut NoTrace).nodes;
    let a4 = alphabeta::search(&g, &limits, 4, &mut NoTrace).nodes;
    assert!(a3 * 10 < m3, "alphabeta visits {a3} of {m3}");
    assert!(a4 * 20 < m4, "alphabeta visits {a4} of {m4}");
    // Negamax is the same search written once: same positions.
    assert_eq!(negamax::search(&g, &limits, 3, &mut NoTrace).nodes, a3);
    assert_eq!(negamax::search(&g, &limits, 4, &mut NoTrace).nodes, a4);
}

#[test]
fn alphabeta_bounds_and_exact_analysis() {
    let g = game(MIDDLEGAME);
    let plain = alphabeta::search(&g, &Limits::depth(2), 2, &mut NoTrace);
    let mut exact_limits = Limits::depth(2);
    exact_limits.score_all_moves = true;
    let exact = alphabeta::search(&g, &exact_limits, 2, &mut NoTrace);
    let full = minimax::search(&g, &Limits::depth(2), 2, &mut NoTrace);
    assert!(plain.moves.iter().any(|m| m.bound == Bound::Upper));
    // With exact root scores every move gets its minimax value.
    for m in &full.moves {
        let e = exact.moves.iter().find(|x| x.mv == m.mv).unwrap();
        assert_eq!((e.score, e.bound), (m.score, Bound::Exact), "{:?}", m.mv);
        // An upper bound is never below the true value.
        let p = plain.moves.iter().find(|x| x.mv == m.mv).unwrap();
        assert!(p.score.unwrap() >= m.score.unwrap());
    }
}

#[test]
fn every_engine_plays_legal_moves_and_stops_at_the_end() {
    for name in registry::names() {
        let options = EngineOptions {
            seed: 11,
            book: Some(Arc::new(Book::builtin())),
            book_policy: BookPolicy::default(),
            dtm: None,
        };
        let mut white = registry::create(name, &options).unwrap();
        let mut black = registry::create(name, &options).unwrap();
        let limits = Limits {
            depth: Some(2),
            movetime: Some(std::time::Duration::from_millis(20)),
            ..Limits::default()
        };
        let (g, end) = self_play(white.as_mut(), black.as_mut(), &limits, 16);
        assert_eq!(g.ply(), 16, "{name}: {end:?}");
        // A mated side gets no move.
        let mated = game("7k/6Q1/6K1/8/8/8/8/8 b - - 0 1");
        let a = white.analyse(&mated, &limits);
        assert_eq!(a.best, None, "{name}");
    }
}

#[test]
fn greedy_incremental_replays_greedy() {
    for seed in [1, 2, 3, 42] {
        let mut moves = Vec::new();
        for name in ["greedy", "greedy-incremental"] {
            let options = EngineOptions {
                seed,
                book: Some(Arc::new(Book::builtin())),
                book_policy: BookPolicy::default(),
                dtm: None,
            };
            let mut white = registry::create(name, &options).unwrap();
            let mut black = registry::create(
                name,
                &EngineOptions {
                    seed: seed + 1,
                    ..options
                },
            )
            .unwrap();
            let (g, _) = self_play(white.as_mut(), black.as_mut(), &Limits::depth(1), 200);
            moves.push(g.moves().to_vec());
        }
        assert!(moves[0].len() > 10);
        assert_eq!(moves[0], moves[1], "seed {seed}");
    }
}

#[test]
fn book_engine_plays_only_book_moves_in_book() {
    let book = Arc::new(Book::builtin());
    let policy = BookPolicy::default();
    for seed in 0..20 {
        let options = EngineOptions {
            seed,
            book: Some(book.clone()),
            book_policy: policy,
            dtm: None,
        };
        let mut e = registry::create("book", &options).unwrap();
        let mut g = Game::default();
        let mut in_book = 0;
        for _ in 0..20 {
            let pos = g.position().clone();
            let candidates: Vec<_> = book
                .entries(&pos)
                .into_iter()
                .filter(|x| x.weight >= policy.min_weight)
                .map(|x| x.mv)
                .collect();
            let a = e.analyse(&g, &Limits::default());
            let m = a.best.unwrap();
            if candidates.is_empty() {
                assert!(!a.from_book);
            } else {
                in_book += 1;
                assert!(
                    a.from_book && candidates.contains(&m),
                    "seed {seed}: {m:?} not in book"
                );
            }
            g.play(m).unwrap();
        }
        assert!(in_book >= 1, "seed {seed}: the start position is in book");
    }
}

#[test]
fn weighted_book_prefers_heavy_moves() {
    let book = Book::builtin();
    let start = shakmaty::Chess::default();
    let entries = book.entries(&start);
    let heaviest = entries[0].mv;
    let mut rng = rookery::core::Rng::new(5);
    let policy = BookPolicy {
        min_weight: 0,
        weighted: true,
    };
    let picks = (0..2000)
        .filter(|_| book.choose(&start, policy, &mut rng) == Some(heaviest))
        .count();
    let share =
        f64::from(entries[0].weight) / entries.iter().map(|e| f64::from(e.weight)).sum::<f64>();
    let observed = picks as f64 / 2000.0;
    assert!((observed - share).abs() < 0.05, "{observed} vs {share}");
}

#[test]
fn quiescence_sees_the_recapture() {
    // Qxd5 wins a pawn and loses the queen to Nxd5: the depth-1 material search takes it;
    // the capture search sees the recapture.
    let g = game("4k3/8/5n2/3p4/8/8/3Q4/4K3 w - - 0 1");
    let limits = Limits::depth(1);
    let mut tt = registry::create("tt", &no_book(0)).unwrap();
    let mut q = registry::create("quiescence", &no_book(0)).unwrap();
    let naive = tt.analyse(&g, &limits);
    let careful = q.analyse(&g, &limits);
    let uci = |m| rookery::core::game::uci(m);
    assert_eq!(uci(naive.best.unwrap()), "d2d5");
    assert_ne!(uci(careful.best.unwrap()), "d2d5");
    assert!(careful.seldepth > careful.depth);
}

#[test]
fn iterative_stops_on_time_with_a_move() {
    let g = game(MIDDLEGAME);
    for name in ["iterative", "tt", "quiescence", "pst"] {
        let mut e = registry::create(name, &no_book(0)).unwrap();
        let a = e.analyse(&g, &Limits::movetime_ms(50));
        let m = a.best.expect("a move");
        assert!(g.position().is_legal(m), "{name}");
        assert!(a.depth >= 1);
        // It stopped by itself, long before any deep search could finish.
        assert!(a.elapsed.as_secs() < 10, "{name} ran {:?}", a.elapsed);
        assert_eq!(a.pv.first(), Some(&m));
    }
}

#[test]
fn engines_see_mates_and_repetition_draws() {
    // Mate in one: every searcher at depth >= 1 finds it.
    let g = game("6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1");
    for name in ["greedy"].into_iter().chain(SEARCHERS) {
        let mut e = registry::create(name, &no_book(0)).unwrap();
        let a = e.analyse(&g, &Limits::depth(2));
        assert_eq!(rookery::core::game::uci(a.best.unwrap()), "d1d8", "{name}");
        assert_eq!(
            rookery::core::score::mate_moves(a.score.unwrap()),
            Some(1),
            "{name}"
        );
    }
    // Fivefold repetition is a draw the search sees: a side that is lost repeats.
    let mut g = Game::default();
    for _ in 0..4 {
        for m in ["Nf3", "Nf6", "Ng1", "Ng8"] {
            g.play_text(m).unwrap();
        }
    }
    assert_eq!(g.repetitions(), 5);
    assert!(g.outcome().is_some());
}

#[test]
fn unknown_engine_is_an_error() {
    assert!(matches!(
        registry::create("stockfish", &no_book(0)),
        Err(rookery::Error::UnknownEngine { .. })
    ));
    assert_eq!(registry::names().count(), 13);
}
