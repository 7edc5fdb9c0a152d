//! Gaviota tablebases (builds with `--features gaviota`): distances to mate against
//! python-chess's test suite, and the tutorial's engines playing endgames by distance to mate.
//! Without the feature, asking for Gaviota tables is one clear error.

use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_rookery");

#[cfg(feature = "gaviota")]
mod with_tables {
    use super::*;
    use rookery::core::{Game, Limits, Termination};
    use rookery::driver::play_out;
    use rookery::engine::EngineOptions;
    use rookery::registry;
    use rookery::tb::open_gaviota;

    const DIR: &str = "tests/data/gaviota";

    /// The table file a position needs (Gaviota names the stronger side first).
    fn table(pos: &shakmaty::Chess) -> String {
        use shakmaty::{Color, Position, Role};
        let side = |c: Color| {
            let mut s = String::from("k");
            for r in [
                Role::Queen,
                Role::Rook,
                Role::Bishop,
                Role::Knight,
                Role::Pawn,
            ] {
                let n = (pos.board().by_color(c) & pos.board().by_role(r)).count();
                s.push_str(&r.char().to_string().repeat(n));
            }
            s
        };
        let value = |c: Color| {
            [
                (Role::Queen, 9),
                (Role::Rook, 5),
                (Role::Bishop, 3),
                (Role::Knight, 3),
                (Role::Pawn, 1),
            ]
            .iter()
            .map(|&(r, v)| v * (pos.board().by_color(c) & pos.board().by_role(r)).count())
            .sum::<usize>()
        };
        let (w, b) = (side(Color::White), side(Color::Black));
        let name = if value(Color::White) >= value(Color::Black) {
            w + &b
        } else {
            b + &w
        };
        format!("{DIR}/{name}.gtb.cp4")
    }

    #[test]
    fn distances_to_mate_match_the_suite_where_tables_are_present() {
        let tables = open_gaviota(DIR).unwrap();
        let records = rookery::epd::read("tests/data/gaviota-dtm.epd").unwrap();
        let mut checked = 0;
        for r in &records {
            if !std::path::Path::new(&table(&r.pos)).exists() {
                continue;
            }
            let dm: i32 = r.op("dm").unwrap()[0].parse().unwrap();
            // python-chess's convention: plies, positive when the side to move mates.
            let expected = if dm > 0 { 2 * dm - 1 } else { 2 * dm };
            assert_eq!(tables.probe_dtm(&r.pos), Some(expected), "{}", r.fen);
            checked += 1;
        }
        assert!(checked >= 20, "only {checked} positions had their tables");
    }

    #[test]
    fn ladder_engines_mate_by_distance_to_mate() {
        // KQvK, mate in 10 with best play on both sides: both sides play from the tables.
        let tables = open_gaviota(DIR).unwrap();
        let options = EngineOptions {
            dtm: Some(tables),
            ..EngineOptions::default()
        };
        let mut white = registry::create("alphabeta", &options).unwrap();
        let mut black = registry::create("alphabeta", &options).unwrap();
        let mut game = Game::from_fen("8/8/8/5k2/8/8/1Q6/K7 w - - 0 1").unwrap();
        let limits = Limits::depth(2);
        let end = play_out(
            &mut game,
            &mut *white,
            &mut *black,
            (&limits, &limits),
            100,
            |_, _| Ok(()),
        )
        .unwrap();
        assert_eq!(end.termination, Termination::Checkmate);
        assert_eq!(game.ply(), 19, "exactly the distance to mate");
    }

    #[test]
    fn tb_probe_prints_the_distance_to_mate() {
        let out = Command::new(BIN)
            .args([
                "tb",
                "probe",
                "--fen",
                "8/8/8/5k2/8/8/1Q6/K7 w - - 0 1",
                "--gaviota",
                DIR,
            ])
            .output()
            .unwrap();
        let text = String::from_utf8(out.stdout).unwrap();
        assert!(out.status.success());
        assert_eq!(text.lines().next(), Some("DTM: 19"));
        assert!(text.lines().nth(1).unwrap().ends_with("#10"), "{text}");
        let out = Command::new(BIN)
            .args([
                "game", "--white", "negamax", "--black", "negamax", "--depth", "1",
            ])
            .args(["--fen", "8/8/8/8/8/2k5/1R6/K7 w - - 0 1", "--gaviota", DIR])
            .output()
            .unwrap();
        let text = String::from_utf8(out.stdout).unwrap();
        assert!(out.status.success(), "{text}");
        assert!(text.contains("1-0"), "KRvK is won by the tables: {text}");
    }
}

#[cfg(not(feature = "gaviota"))]
#[test]
fn without_the_feature_gaviota_is_one_clear_error() {
    let out = Command::new(BIN)
        .args(["tb", "probe", "--fen", "8/8/8/5k2/8/8/1Q6/K7 w - - 0 1"])
        .args(["--gaviota", "tests/data/gaviota"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--features gaviota"), "{err}");
    assert_eq!(err.trim().lines().count(), 1);
}
