//! Syzygy tablebases: every probe of python-chess's test suite, the CLI, and endgames the strong
//! engine converts (or holds) with the tables.

mod common;

use common::cli::{rookery, stderr, stdout_utf8};
use rookery::core::game::parse_fen;
use rookery::core::{Game, Limits, Termination};
use rookery::driver::play_out;
use rookery::engine::{Engine, Settings};
use rookery::search::engine::Rookery;
use rookery::tb::Syzygy;
use shakmaty::Position;

const TABLES: &str = "tests/data/syzygy";

#[test]
fn every_probe_of_the_suite_gives_the_expected_wdl_and_dtz() {
    let tb = Syzygy::open(TABLES).unwrap();
    let text = std::fs::read_to_string("tests/data/syzygy-probes.epd").unwrap();
    let mut checked = 0;
    for line in text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
    {
        let fields: Vec<&str> = line.split_whitespace().collect();
        let fen = format!("{} 0 1", fields[..4].join(" "));
        let value = |key: &str| -> i32 {
            let i = fields.iter().position(|&f| f == key).unwrap();
            fields[i + 1].trim_end_matches(';').parse().unwrap()
        };
        let pos = parse_fen(&fen).unwrap();
        let wdl = tb.probe_wdl_after_zeroing(&pos).map(|w| w as i32);
        assert_eq!(wdl, Some(value("wdl")), "WDL of {fen}");
        assert_eq!(tb.probe_dtz(&pos), Some(value("dtz")), "DTZ of {fen}");
        checked += 1;
    }
    assert_eq!(checked, 200);
    assert!(tb.take_messages().is_empty());
}

#[test]
fn tb_probe_lists_the_result_and_every_move_best_first() {
    let fen = "8/4r3/8/K7/4R3/8/8/5k2 w - - 0 1";
    let out = rookery(&["tb", "probe", "--fen", fen, "--syzygy", TABLES]);
    assert!(out.status.success());
    let text = stdout_utf8(&out);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[..2], ["WDL: 2", "DTZ: 1"]);
    // The rook capture wins; of the other 17 moves those that keep the rook draw, the rest
    // lose, listed after the draws.
    assert!(lines[2].starts_with("Rxe7") && lines[2].contains("win"));
    assert_eq!(lines.len(), 2 + 18);
    let rest: Vec<&str> = lines[3..]
        .iter()
        .map(|l| l.split_whitespace().nth(2).unwrap())
        .collect();
    let draws = rest.iter().take_while(|&&r| r == "draw").count();
    assert!(
        draws > 0 && rest[draws..].iter().all(|&r| r == "loss"),
        "{rest:?}"
    );

    for args in [vec!["--syzygy", "/no/such/dir"], vec!["--syzygy", "src"]] {
        let fen = "8/8/8/8/8/8/1K6/k1Q5 b - - 0 1";
        let out = rookery(&[&["tb", "probe", "--fen", fen], &args[..]].concat());
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert_eq!(stderr(&out).lines().count(), 1);
    }
    // Too many pieces for the tables: one clear line, no panic.
    let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
    let out = rookery(&["tb", "probe", "--syzygy", TABLES, "--fen", start]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("32"));
}

fn engine(tables: bool) -> Rookery {
    let mut e = Rookery::new(0);
    e.configure(&Settings {
        syzygy: tables.then(|| Syzygy::open(TABLES).unwrap()),
        ..Settings::default()
    })
    .unwrap();
    e
}

/// Plays `fen` out, White and Black each with or without tables, at a fixed node count per move.
fn play(
    fen: &str,
    white_tables: bool,
    black_tables: bool,
    max_plies: usize,
) -> (Game, Termination) {
    let mut game = Game::from_fen(fen).unwrap();
    let (mut white, mut black) = (engine(white_tables), engine(black_tables));
    let limits = Limits {
        nodes: Some(20_000),
        ..Limits::default()
    };
    let end = play_out(
        &mut game,
        &mut white,
        &mut black,
        (&limits, &limits),
        max_plies,
        |_, _| Ok(()),
    )
    .unwrap();
    (game, end.termination)
}

#[test]
fn won_endings_are_won_within_the_distance_to_mate_and_a_small_margin() {
    // Distances to mate from tests/data/gaviota-dtm.epd (python-chess test data, from
    // Kirill Kryukov's longest-checkmates list): KQvK mate in 10, KRvK in 16, KPvK in 28.
    for (fen, dtm) in [
        ("8/8/8/5k2/8/8/1Q6/K7 w - - 0 1", 10),
        ("8/8/8/8/8/2k5/1R6/K7 w - - 0 1", 16),
        ("8/8/8/1k6/8/8/K5P1/8 w - - 0 1", 28),
    ] {
        // Both sides know the tables: the loser resists as long as it can.
        let (game, end) = play(fen, true, true, 300);
        let moves = game.ply().div_ceil(2);
        eprintln!("{fen}: mate in {moves} moves (DTM {dtm})");
        assert_eq!(end, Termination::Checkmate, "{fen}");
        assert!(
            moves <= dtm + dtm / 4 + 3,
            "{fen}: mate in {moves} moves, distance to mate {dtm}"
        );
    }
}

#[test]
fn a_drawn_rook_ending_is_held() {
    // KRvKR, a table draw: Black defends with the tables against White searching without them.
    let fen = "8/8/4k3/8/8/3K4/r7/7R w - - 0 1";
    let tb = Syzygy::open(TABLES).unwrap();
    assert_eq!(tb.probe_wdl(&parse_fen(fen).unwrap()), Some(0));
    let (game, end) = play(fen, false, true, 160);
    assert_ne!(end, Termination::Checkmate);
    let last = game.position();
    if let Some(w) = tb.probe_wdl(last) {
        let black_view = if last.turn() == shakmaty::Color::Black {
            w
        } else {
            -w
        };
        assert!(black_view >= 0, "Black ended lost: {end:?}");
    }
}
