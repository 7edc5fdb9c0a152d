//! `rookery match` end to end: ladder engines, external engines over UCI and xboard (the test-only
//! `rookery fake-engine`, scripted to crash, hang, play illegal moves or lose on time), SPRT.

use std::process::Command;

use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_rookery");

/// Runs `rookery match` with `args` plus a JSON summary; returns (stdout, summary).
fn run_match(args: &[&str]) -> (String, Value) {
    let json = std::env::temp_dir().join(format!(
        "rookery-match-{}-{}.json",
        std::process::id(),
        args.join("_").len() + args.len() * 1000 + args.first().map_or(0, |a| a.len())
    ));
    let out = Command::new(BIN)
        .arg("match")
        .args(args)
        .arg("--json")
        .arg(&json)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let summary: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    std::fs::remove_file(&json).ok();
    (stdout, summary)
}

fn fake(proto: &str, mode: &str, limit: &str) -> Vec<String> {
    vec![
        "--engine".into(),
        format!("name=fake-{mode}"),
        format!("cmd={BIN}"),
        "arg=fake-engine".into(),
        format!("arg=--proto={proto}"),
        format!("arg=--mode={mode}"),
        format!("proto={proto}"),
        limit.into(),
    ]
}

fn standing<'a>(s: &'a Value, name: &str) -> &'a Value {
    s["players"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == name)
        .unwrap()
}

fn match_with_fake(proto: &str, mode: &str, limit: &str, extra: &[&str]) -> Value {
    let mut args: Vec<String> = fake(proto, mode, limit);
    args.extend(
        [
            "--engine",
            "name=greedy",
            "engine=greedy",
            "depth=1",
            "--games",
            "2",
        ]
        .iter()
        .map(|s| s.to_string()),
    );
    args.extend(extra.iter().map(|s| s.to_string()));
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    run_match(&refs).1
}

#[test]
fn two_ladder_engines_play_a_match_with_pgn_and_summary() {
    let pgn = std::env::temp_dir().join(format!("rookery-match-{}.pgn", std::process::id()));
    std::fs::remove_file(&pgn).ok();
    let (stdout, s) = run_match(&[
        "--engine",
        "name=ab2",
        "engine=alphabeta",
        "depth=2",
        "--engine",
        "name=random",
        "engine=random",
        "depth=1",
        "--games",
        "4",
        "--openings",
        "tests/data/openings.epd",
        "--maxmoves",
        "80",
        "--pgn",
        pgn.to_str().unwrap(),
    ]);
    assert_eq!(s["games"], 4);
    let pair = &s["pairs"][0];
    let r = &pair["result"];
    let games =
        r["wins"].as_u64().unwrap() + r["draws"].as_u64().unwrap() + r["losses"].as_u64().unwrap();
    assert_eq!(games, 4);
    assert!(
        pair["score"].as_f64().unwrap() >= 0.5,
        "alphabeta beats random: {stdout}"
    );
    assert!(stdout.contains("Elo difference:") && stdout.contains("LOS:"));
    let text = std::fs::read_to_string(&pgn).unwrap();
    assert_eq!(text.matches("[Event ").count(), 4);
    assert!(text.contains("[Termination ") && text.contains("[Opening ") && text.contains("[FEN "));
    // The engines' moves carry score/depth and time (the random mover reports no score: time
    // alone); no clocks.
    assert!(text.contains("/2 0.0") && text.contains(" {0.0"), "{text}");
    assert!(!text.contains("%clk"));
    std::fs::remove_file(&pgn).ok();
}

#[test]
fn an_external_uci_engine_plays_legal_games() {
    let pgn = std::env::temp_dir().join(format!("rookery-match-uci-{}.pgn", std::process::id()));
    std::fs::remove_file(&pgn).ok();
    let s = match_with_fake("uci", "ok", "tc=5+0.1", &["--pgn", pgn.to_str().unwrap()]);
    let f = standing(&s, "fake-ok");
    assert_eq!(f["games"], 2);
    for fault in [
        "time_forfeits",
        "crashes",
        "hangs",
        "illegal_moves",
        "disconnects",
    ] {
        assert_eq!(f[fault], 0, "{fault}");
    }
    // The least time left is reported for a clocked player: below its 5 s start plus
    // increments, above zero since it never flagged.
    let least = f["least_time_left_ms"]
        .as_u64()
        .expect("a clocked player has a least time left");
    assert!(least > 0 && least <= 5_000 + 100 * 200, "{least}");
    // Each of its moves carries its clock after the move in the PGN, as lichess reads it; the
    // greedy engine has no clock, so only about half the moves do.
    let text = std::fs::read_to_string(&pgn).unwrap();
    std::fs::remove_file(&pgn).ok();
    let plies: usize = text
        .lines()
        .filter_map(|l| l.strip_prefix("[PlyCount \""))
        .map(|v| v.trim_end_matches("\"]").parse::<usize>().unwrap())
        .sum();
    let clocks = text.matches(" [%clk 0:00:").count();
    assert!(
        plies > 4 && clocks >= (plies - 2) / 2 && clocks <= plies.div_ceil(2) + 1,
        "{clocks} clocks in {plies} plies:\n{text}"
    );
}

#[test]
fn an_external_xboard_engine_plays_legal_games() {
    let s = match_with_fake("xboard", "ok", "tc=5+0.1", &[]);
    let f = standing(&s, "fake-ok");
    assert_eq!(f["games"], 2);
    assert_eq!(f["crashes"], 0);
    assert_eq!(f["illegal_moves"], 0);
}

#[test]
fn crashes_are_losses_and_the_engine_is_restarted() {
    for proto in ["uci", "xboard"] {
        let s = match_with_fake(proto, "crash", "st=0.1", &[]);
        let f = standing(&s, "fake-crash");
        assert_eq!(
            f["crashes"], 2,
            "{proto}: one crash a game, restarted in between"
        );
        assert_eq!(f["result"]["losses"], 2);
    }
}

#[test]
fn a_hung_engine_is_killed_and_loses() {
    let s = match_with_fake("uci", "hang", "st=0.1", &["--timeout", "1"]);
    let f = standing(&s, "fake-hang");
    assert_eq!(f["hangs"], 2);
    assert_eq!(f["result"]["losses"], 2);
    let s = match_with_fake("xboard", "hang", "st=0.1", &["--timeout", "1"]);
    assert_eq!(standing(&s, "fake-hang")["hangs"], 2);
}

#[test]
fn illegal_moves_lose() {
    for proto in ["uci", "xboard"] {
        let s = match_with_fake(proto, "illegal", "st=0.1", &[]);
        let f = standing(&s, "fake-illegal");
        assert_eq!(f["illegal_moves"], 2, "{proto}");
        assert_eq!(f["result"]["losses"], 2);
    }
}

#[test]
fn a_flag_fall_is_a_time_forfeit() {
    for proto in ["uci", "xboard"] {
        let s = match_with_fake(proto, "flag", "tc=0.3+0", &[]);
        let f = standing(&s, "fake-flag");
        assert_eq!(f["time_forfeits"], 2, "{proto}");
        assert_eq!(f["result"]["losses"], 2);
        // A player that never moved before its flag fell has no time left to report.
        assert!(f["least_time_left_ms"].is_null(), "{proto}: {f}");
    }
}

#[test]
fn sprt_stops_once_it_decides() {
    let (stdout, s) = run_match(&[
        "--engine",
        "name=ab",
        "engine=alphabeta",
        "depth=2",
        "--engine",
        "name=random",
        "engine=random",
        "depth=1",
        "--games",
        "2",
        "--rounds",
        "100",
        "--maxmoves",
        "60",
        "--sprt",
        "elo0=0",
        "elo1=300",
    ]);
    let games = s["games"].as_u64().unwrap();
    assert!(games < 200, "stopped early: {games}");
    assert_eq!(s["sprt"]["state"], "H1", "{stdout}");
    assert!(stdout.contains("H1 accepted"));
}

#[test]
fn bad_match_settings_are_one_clear_error() {
    for args in [
        vec!["--engine", "engine=alphabeta", "depth=2"],
        vec![
            "--engine",
            "engine=alphabeta",
            "--engine",
            "engine=random",
            "depth=1",
        ],
        vec![
            "--engine",
            "engine=nosuch",
            "depth=1",
            "--engine",
            "engine=random",
            "depth=1",
        ],
        vec![
            "--engine",
            "engine=random",
            "depth=1",
            "--engine",
            "engine=random",
            "tc=abc",
        ],
        vec![
            "--engine",
            "engine=random",
            "depth=1",
            "--engine",
            "engine=random",
            "depth=1",
            "--sprt",
            "elo0=5",
        ],
    ] {
        let out = Command::new(BIN).arg("match").args(&args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(err.trim().lines().count(), 1, "{args:?}: {err}");
    }
}

#[test]
fn three_engines_get_standings_and_a_crosstable() {
    let (stdout, s) = run_match(&[
        "--engine",
        "engine=random",
        "depth=1",
        "--engine",
        "engine=greedy",
        "depth=1",
        "--engine",
        "engine=alphabeta",
        "depth=2",
        "--games",
        "2",
        "--maxmoves",
        "40",
    ]);
    assert_eq!(s["games"], 6, "three pairings, two games each");
    assert_eq!(s["pairs"].as_array().unwrap().len(), 3);
    assert!(
        stdout.contains("Crosstable") && stdout.contains("Elo vs field"),
        "{stdout}"
    );
    let total: f64 = s["players"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["points"].as_f64().unwrap())
        .sum();
    assert_eq!(total, 6.0, "every game gives out one point");
}
