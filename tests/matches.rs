//! `rookery match` end to end: ladder engines, external engines over UCI and xboard (the test-only
//! `rookery fake-engine`, scripted to crash, hang, play illegal moves or lose on time), SPRT.

mod common;

use serde_json::Value;

use common::cli::{BIN, rookery, stderr, stdout};

/// Runs `rookery match` with the words of `line`, then `extra`, plus a JSON summary; returns
/// (stdout, summary).
fn run_match(line: &str, extra: &[&str]) -> (String, Value) {
    let mut args: Vec<&str> = line.split_whitespace().collect();
    args.extend_from_slice(extra);
    let json = std::env::temp_dir().join(format!(
        "rookery-match-{}-{}.json",
        std::process::id(),
        args.join("_").len() + args.len() * 1000 + args.first().map_or(0, |a| a.len())
    ));
    let json = json.to_str().unwrap();
    let out = rookery(&[&["match"], &args[..], &["--json", json]].concat());
    let stdout = stdout(&out);
    assert!(out.status.success(), "{stdout}\n{}", stderr(&out));
    let summary: Value = serde_json::from_str(&std::fs::read_to_string(json).unwrap()).unwrap();
    std::fs::remove_file(json).ok();
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

/// A match of the scripted engine (first) against greedy at depth 1, two games.
fn match_with_fake(proto: &str, mode: &str, limit: &str, extra: &[&str]) -> Value {
    let greedy = "--engine name=greedy engine=greedy depth=1 --games 2";
    let mut args: Vec<String> = fake(proto, mode, limit);
    args.extend(
        greedy
            .split_whitespace()
            .chain(extra.iter().copied())
            .map(String::from),
    );
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    run_match("", &refs).1
}

#[test]
fn two_ladder_engines_play_a_match_with_pgn_and_summary() {
    let pgn = std::env::temp_dir().join(format!("rookery-match-{}.pgn", std::process::id()));
    std::fs::remove_file(&pgn).ok();
    let (stdout, s) = run_match(
        "--engine name=ab2 engine=alphabeta depth=2 --engine name=random engine=random depth=1 \
         --games 4 --openings tests/data/openings.epd --maxmoves 80 --pgn",
        &[pgn.to_str().unwrap()],
    );
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

/// Two games of the scripted engine in `mode` over `proto`, both lost, each by one `fault` (a
/// counter of its standing); the standing.
fn lost_by(proto: &str, mode: &str, limit: &str, extra: &[&str], fault: &str) -> Value {
    let s = match_with_fake(proto, mode, limit, extra);
    let f = standing(&s, &format!("fake-{mode}")).clone();
    assert_eq!(f[fault], 2, "{proto}: {fault} in two games");
    assert_eq!(f["result"]["losses"], 2, "{proto}");
    f
}

/// `lost_by` over UCI, then over xboard: the standings, with their protocol.
fn lost_over_both(mode: &str, limit: &str, fault: &str) -> [(&'static str, Value); 2] {
    ["uci", "xboard"].map(|proto| (proto, lost_by(proto, mode, limit, &[], fault)))
}

#[test]
fn crashes_are_losses_and_the_engine_is_restarted() {
    // One crash a game: the engine is restarted in between.
    lost_over_both("crash", "st=0.1", "crashes");
}

#[test]
fn a_hung_engine_is_killed_and_loses() {
    lost_by("uci", "hang", "st=0.1", &["--timeout", "1"], "hangs");
    let s = match_with_fake("xboard", "hang", "st=0.1", &["--timeout", "1"]);
    assert_eq!(standing(&s, "fake-hang")["hangs"], 2);
}

#[test]
fn illegal_moves_lose() {
    lost_over_both("illegal", "st=0.1", "illegal_moves");
}

#[test]
fn a_flag_fall_is_a_time_forfeit() {
    for (proto, f) in lost_over_both("flag", "tc=0.3+0", "time_forfeits") {
        // A player that never moved before its flag fell has no time left to report.
        assert!(f["least_time_left_ms"].is_null(), "{proto}: {f}");
    }
}

#[test]
fn sprt_stops_once_it_decides() {
    let (stdout, s) = run_match(
        "--engine name=ab engine=alphabeta depth=2 --engine name=random engine=random depth=1 \
         --games 2 --rounds 100 --maxmoves 60 --sprt elo0=0 elo1=300",
        &[],
    );
    let games = s["games"].as_u64().unwrap();
    assert!(games < 200, "stopped early: {games}");
    assert_eq!(s["sprt"]["state"], "H1", "{stdout}");
    assert!(stdout.contains("H1 accepted"));
}

#[test]
fn bad_match_settings_are_one_clear_error() {
    for settings in [
        "--engine engine=alphabeta depth=2",
        "--engine engine=alphabeta --engine engine=random depth=1",
        "--engine engine=nosuch depth=1 --engine engine=random depth=1",
        "--engine engine=random depth=1 --engine engine=random tc=abc",
        "--engine engine=random depth=1 --engine engine=random depth=1 --sprt elo0=5",
        // A rung takes Threads, Hash and (rookery) EvalFile; a net that does not load.
        "--engine engine=random option.Ponder=true depth=1 --engine engine=random depth=1",
        "--engine engine=rookery option.EvalFile=/no/such.nnue depth=1 --engine engine=random depth=1",
    ] {
        let args: Vec<&str> = ["match"].into_iter().chain(settings.split(' ')).collect();
        let out = rookery(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = stderr(&out);
        assert_eq!(err.trim().lines().count(), 1, "{args:?}: {err}");
    }
}

#[test]
fn three_engines_get_standings_and_a_crosstable() {
    let (stdout, s) = run_match(
        "--engine engine=random depth=1 --engine engine=greedy depth=1 \
         --engine engine=alphabeta depth=2 --games 2 --maxmoves 40",
        &[],
    );
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
