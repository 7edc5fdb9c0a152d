//! The measuring tools besides `match`: the mate solver on the mate-in-N suites, and
//! `rookery epd` on test suites.

mod common;

use common::cli::{BIN, rookery, stderr, stdout, stdout_utf8};
use rookery::epd;
use rookery::mate::Solver;

#[test]
fn the_mate_solver_solves_every_mate_in_one_to_three_and_finds_none_shorter() {
    for n in 1..=3u32 {
        let records = epd::read(&format!("tests/data/mate-in-{n}.epd")).unwrap();
        let mut solver = Solver::default();
        let mut keys_as_given = 0;
        for r in &records {
            let sol = solver
                .solve(&r.pos, n)
                .unwrap_or_else(|| panic!("mate in {n} not found: {}", r.fen));
            assert_eq!(
                sol.moves, n,
                "a shorter mate than the suite says: {}",
                r.fen
            );
            assert_eq!(sol.line.len() as u32, 2 * n - 1, "{}", r.fen);
            if r.moves("bm").unwrap().contains(&sol.line[0]) {
                keys_as_given += 1;
            }
        }
        // A few problems have a second key (a "cook"); nearly all keys are the composer's.
        assert!(
            keys_as_given * 100 >= records.len() * 95,
            "mate in {n}: {keys_as_given}/{}",
            records.len()
        );
    }
}

#[test]
fn mate_command_prints_the_solution_and_says_when_there_is_none() {
    let fen = "8/8/8/8/1p1N4/1Bk1K3/3N4/b7 w - - 0 1";
    let out = rookery(&["mate", "--fen", fen, "--moves", "3"]);
    let text = stdout_utf8(&out);
    assert!(out.status.success());
    assert!(text.starts_with("Mate in 3: 1. Ne6 "), "{text}");
    assert!(text.contains("Positions searched: "));
    let out = rookery(&["mate", "--fen", fen, "--moves", "2"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stdout(&out).starts_with("No mate in 2 or fewer moves"));
}

#[test]
fn epd_command_scores_a_suite_and_writes_json() {
    let json = std::env::temp_dir().join(format!("rookery-epd-{}.json", std::process::id()));
    let suite = "tests/data/mate-in-2.epd";
    let out = rookery(&[
        "epd",
        suite,
        "--engine",
        "alphabeta",
        "--depth",
        "3",
        "--limit",
        "30",
        "--json",
        json.to_str().unwrap(),
    ]);
    let text = stdout_utf8(&out);
    assert!(out.status.success(), "{text}");
    // Depth 3 sees every mate in two; a key may differ only where a problem has two.
    let last = text.lines().last().unwrap();
    assert!(
        last.starts_with("Solved: ") && last.contains("/30 "),
        "{last}"
    );
    let solved: usize = last["Solved: ".len()..]
        .split('/')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert!(solved >= 28, "{text}");
    let entries: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(entries.as_array().unwrap().len(), 30);
    assert_eq!(
        entries
            .as_array()
            .unwrap()
            .iter()
            .filter(|e| e["solved"] == true)
            .count(),
        solved
    );
    std::fs::remove_file(&json).ok();

    assert_eq!(rookery(&["epd", "no/such/file.epd"]).status.code(), Some(2));
}

/// `rookery epd` with its engine, or with a program over UCI (here Rookery itself), writing JSON.
fn epd_json(program: bool) -> (std::process::Output, serde_json::Value) {
    let json =
        std::env::temp_dir().join(format!("rookery-epd-{}-{program}.json", std::process::id()));
    let json = json.to_str().unwrap();
    let mut args = vec!["epd", "tests/data/mate-in-2.epd", "--nodes", "20000"];
    args.extend(["--limit", "12", "--json", json]);
    if program {
        args.extend(["--cmd", BIN, "--option", "Hash=16"]);
    }
    let out = rookery(&args);
    let value = std::fs::read_to_string(json)
        .map(|t| serde_json::from_str(&t).unwrap())
        .unwrap_or_default();
    std::fs::remove_file(json).ok();
    (out, value)
}

#[test]
fn epd_command_tests_a_uci_program_as_it_tests_its_own_engine() {
    // The same engine at the same node count, once in process and once as a program over UCI:
    // the same moves, so a suite figure for another program is comparable with Rookery's.
    let (inside, a) = epd_json(false);
    let (outside, b) = epd_json(true);
    let text = stdout(&outside);
    assert!(
        inside.status.success() && outside.status.success(),
        "{text}"
    );
    let played = |v: &serde_json::Value| -> Vec<String> {
        v.as_array()
            .unwrap()
            .iter()
            .map(|e| e["played"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(played(&a).len(), 12);
    assert_eq!(played(&a), played(&b));
    // The program's name (the file's) is on the summary line; it reports no node count.
    let last = text.lines().last().unwrap();
    assert!(
        last.starts_with("Solved: ") && last.contains(" with rookery at 20000 nodes"),
        "{last}"
    );
    assert!(b[0]["nodes"].is_null() && a[0]["nodes"].as_u64().unwrap() > 0);

    // A program that cannot start, an option without a value, two limits: one line, exit 2.
    for (args, says) in [
        (vec!["--cmd", "/no/such/engine"], "engine"),
        (vec!["--cmd", BIN, "--option", "Threads"], "NAME=VALUE"),
        (
            vec!["--cmd", BIN, "--depth", "3", "--nodes", "9"],
            "one limit",
        ),
    ] {
        let out = rookery(
            &[
                &["epd", "tests/data/mate-in-2.epd", "--limit", "2"],
                &args[..],
            ]
            .concat(),
        );
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(err.contains(says) && err.lines().count() == 1, "{err}");
    }
}

#[test]
fn ladder_prints_one_row_per_rung_with_its_match_against_the_one_below() {
    let out = rookery(&[
        "ladder",
        "--games",
        "2",
        "--depth",
        "2",
        "--movetime",
        "20",
        "--rungs",
        "random,greedy,alphabeta",
    ]);
    let text = stdout_utf8(&out);
    assert!(out.status.success(), "{text}");
    let rows: Vec<&str> = text.lines().skip(1).take(3).collect();
    for (row, rung) in rows.iter().zip(["random", "greedy", "alphabeta"]) {
        assert!(row.starts_with(rung), "{text}");
    }
    // Each match row: `below: +W =D -L ...` adding up to the games played.
    for row in &rows[1..] {
        let counts: Vec<u32> = row
            .split_whitespace()
            .filter_map(|w| w.strip_prefix(['+', '=', '-']).and_then(|n| n.parse().ok()))
            .take(3)
            .collect();
        assert_eq!(counts.iter().sum::<u32>(), 2, "{row}");
    }
    assert_eq!(
        rookery(&["ladder", "--rungs", "nosuch"]).status.code(),
        Some(2)
    );
}
