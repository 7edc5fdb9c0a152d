//! The command line as a user runs it: the built binary, its output and exit codes.

mod common;

use std::process::Output;

use common::cli::{rookery, rookery_with_input, stderr, stdout};

/// A path in this file's own temporary folder, as an argument.
fn temp(name: &str) -> String {
    common::cli::temp("cli", name).to_str().unwrap().to_string()
}

/// `rookery play --engine ENGINE MORE...` with `input` typed on its standard input.
fn play(engine: &str, more: &[&str], input: &str) -> Output {
    let mut args = vec!["play", "--engine", engine];
    args.extend_from_slice(more);
    rookery_with_input(&args, input)
}

const MIDDLEGAME: &str = "r1bqrnk1/pp2bppp/2p2n2/3p2B1/3P4/2NBPN2/PPQ2PPP/R4RK1 w - - 7 11";

#[test]
fn every_command_has_help() {
    for cmd in [
        "engines", "play", "game", "analyse", "perft", "tree", "book",
    ] {
        let o = rookery(&[cmd, "--help"]);
        assert!(o.status.success(), "{cmd}");
        assert!(stdout(&o).contains("Usage"), "{cmd}");
    }
}

#[test]
fn engines_lists_the_ladder() {
    let o = rookery(&["engines"]);
    let text = stdout(&o);
    assert_eq!(text.lines().count(), 13);
    for name in [
        "random",
        "book",
        "greedy-incremental",
        "quiescence",
        "pst",
        "rookery-hce",
        "rookery",
    ] {
        assert!(text.contains(name), "{name}");
    }
}

#[test]
fn perft_counts_and_divides() {
    let o = rookery(&["perft", "3"]);
    assert!(o.status.success());
    assert_eq!(stdout(&o).lines().last(), Some("Nodes searched: 8902"));
    let kiwipete = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";
    let o = rookery(&["perft", "2", "--divide", "--fen", kiwipete]);
    let text = stdout(&o);
    assert!(text.contains("e1g1: "), "{text}");
    assert_eq!(text.lines().last(), Some("Nodes searched: 2039"));
}

#[test]
fn perft_suite_passes_and_fails() {
    let o = rookery(&["perft", "--suite", "tests/data/cpw.epd", "--max-depth", "3"]);
    assert!(o.status.success(), "{}", stdout(&o));
    assert_eq!(
        stdout(&o)
            .lines()
            .filter(|l| l.starts_with("pass "))
            .count(),
        7
    );
    let wrong = temp("wrong.epd");
    std::fs::write(
        &wrong,
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 ;D1 20 ;D2 401\n",
    )
    .unwrap();
    let o = rookery(&["perft", "--suite", &wrong]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stdout(&o).contains("FAIL #1"), "{}", stdout(&o));
    assert!(stdout(&o).contains("D2 expected 401, got 400"));
}

#[test]
fn bad_input_is_one_clear_line_and_exit_2() {
    // A hash table no machine has: refused before it is allocated.
    let huge_hash: &[&str] = &[
        "epd",
        "tests/data/mate-in-1.epd",
        "--depth",
        "1",
        "--hash",
        "1000000000",
    ];
    let cases: [&[&str]; 13] = [
        &["analyse", "--fen", "not a fen"],
        &["bench", "2", "--simd", "mmx"],
        huge_hash,
        &["perft", "13"],
        &["bench", "31"],
        &["analyse", "--engine", "deep-blue"],
        &["perft", "--suite", "/nonexistent/suite.epd"],
        &["play", "--book", "/nonexistent/book.bin"],
        // Endless devices: refused at once, never read until the memory runs out.
        &["play", "--book", "/dev/zero"],
        &["epd", "/dev/zero"],
        &["perft", "--suite", "/dev/zero"],
        &["game", "--white", "random", "--black", "nope"],
        &[
            "tree",
            "--engine",
            "minimax",
            "--depth",
            "2",
            "--fen",
            "8/8/8/8/8/8/8/8 w - - 0 1",
        ],
    ];
    for args in cases {
        let o = rookery(args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        let err = stderr(&o);
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(err.starts_with("error: "), "{err}");
        assert!(!err.contains("panicked"));
    }
    let o = rookery(huge_hash);
    assert!(
        stderr(&o).contains("a hash table of 1000000000 MB does not fit"),
        "{}",
        stderr(&o)
    );
    let corrupt = temp("corrupt.bin");
    std::fs::write(&corrupt, [1u8; 20]).unwrap();
    let o = rookery(&["book", "probe", "--book", &corrupt]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("bad opening book"), "{}", stderr(&o));
    assert_eq!(
        stderr(&o).matches("bad opening book").count(),
        1,
        "{}",
        stderr(&o)
    );
}

#[test]
fn analyse_scores_every_move() {
    let promotion = "Kn2rn1k/1p2P3/8/8/8/8/8/8 w - - 0 1";
    let o = rookery(&["analyse", "--engine", "greedy", "--fen", promotion]);
    let text = stdout(&o);
    assert!(text.contains("exf8=Q+     +0.00"), "{text}");
    assert!(text.contains("Ka7        -11.00"), "{text}");
    let o = rookery(&[
        "analyse", "--engine", "negamax", "--depth", "2", "--fen", MIDDLEGAME, "--json",
    ]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["depth"], 2);
    assert_eq!(v["moves"].as_array().unwrap().len(), 48);
    assert!(
        v["moves"]
            .as_array()
            .unwrap()
            .iter()
            .all(|m| m["bound"] == "exact")
    );
    assert!(v["nodes"].as_u64().unwrap() > 48);
}

/// `analyse` ranks by the scores it prints and names as best the move it ranks first, in text
/// and JSON, whatever the limit: a finished depth or a time that cuts an iteration short; moves
/// a limit left unscored come last, marked and counted.
#[test]
fn analyse_ranks_by_its_scores_and_names_the_first_row_best() {
    let positions = [
        "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3",
        MIDDLEGAME,
        "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
        "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1",
    ];
    let limits: [&[&str]; 7] = [
        &["--depth", "1"],
        &["--depth", "3"],
        &["--depth", "6"],
        &["--movetime", "1"],
        &["--movetime", "30"],
        &["--movetime", "200"],
        &["--movetime", "5"],
    ];
    // A score as a number that orders mates beyond every centipawn score.
    let value = |m: &serde_json::Value| -> Option<i64> {
        match (m["score_cp"].as_i64(), m["mate"].as_i64()) {
            (Some(cp), _) => Some(cp),
            (None, Some(n)) if n > 0 => Some(1_000_000 - n),
            (None, Some(n)) => Some(-1_000_000 - n),
            (None, None) => None,
        }
    };
    for fen in positions {
        for limit in limits {
            let what = format!("{fen} {limit:?}");
            let mut args = vec!["analyse", "--fen", fen];
            args.extend_from_slice(limit);
            let o = rookery(&[&args[..], &["--json"]].concat());
            assert!(o.status.success(), "{what}: {}", stderr(&o));
            let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
            let moves = v["moves"].as_array().unwrap();
            assert_eq!(v["best"], moves[0]["move"], "{what}");
            assert_eq!(v["pv"][0], moves[0]["move"], "{what}");
            let values: Vec<Option<i64>> = moves.iter().map(value).collect();
            assert!(values[0].is_some(), "{what}: the best move has no score");
            assert_eq!(
                value(&v),
                values[0],
                "{what}: the score is not the first row's"
            );
            // Scored rows in order, then the unscored ones.
            let scored: Vec<i64> = values.iter().map_while(|x| *x).collect();
            assert!(
                scored.windows(2).all(|w| w[0] >= w[1]),
                "{what}: {values:?}"
            );
            let unscored = values.len() - scored.len();
            assert!(values[scored.len()..].iter().all(Option::is_none), "{what}");
            assert_eq!(v["unscored"], unscored, "{what}");
            // The text names the same first row best, and marks what is unscored.
            let o = rookery(&args);
            let text = stdout(&o);
            let first = text
                .lines()
                .find(|l| l.starts_with("  1. "))
                .and_then(|l| l.split_whitespace().nth(1))
                .unwrap_or_else(|| panic!("{what}: {text}"));
            assert!(
                text.contains(&format!("Best:     {first}\n")),
                "{what}: {text}"
            );
            // (A search of its own: with a time limit, its count of unscored moves is its own.)
            let rows: Vec<&str> = text
                .lines()
                .filter(|l| l.len() > 5 && l[..5].trim_end().ends_with('.'))
                .collect();
            let dashes = rows.iter().filter(|l| l.trim_end().ends_with(" -")).count();
            assert_eq!(
                text.contains(&format!("(-: {dashes} move")),
                dashes > 0,
                "{what}: {text}"
            );
            assert!(!rows[0].trim_end().ends_with(" -"), "{what}: {text}");
        }
    }
}

#[test]
fn tree_counts_and_draws() {
    let o = rookery(&[
        "tree", "--engine", "minimax", "--depth", "3", "--fen", MIDDLEGAME,
    ]);
    let text = stdout(&o);
    assert!(
        text.contains("depth 1: 48") && text.contains("depth 2: 1464"),
        "{text}"
    );
    assert_eq!(text.lines().last(), Some("Nodes: 70119"));
    let dot = temp("tree.dot");
    let o = rookery(&[
        "tree",
        "--engine",
        "alphabeta",
        "--depth",
        "2",
        "--fen",
        MIDDLEGAME,
        "--dot",
        &dot,
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let drawing = std::fs::read_to_string(&dot).unwrap();
    assert!(drawing.starts_with("digraph tree {"));
    assert!(drawing.contains("pruned"));
    assert!(drawing.contains("Nf3") || drawing.contains("a3"));
    // Too large to draw: refused, with the size and a depth that fits.
    let o = rookery(&[
        "tree", "--engine", "minimax", "--depth", "3", "--fen", MIDDLEGAME, "--dot", &dot,
    ]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(
        err.contains("70119 nodes") && err.contains("depth 2"),
        "{err}"
    );
}

#[test]
fn engine_game_replays_with_its_seed() {
    let pgn = temp("game.pgn");
    let args = [
        "game",
        "--white",
        "greedy",
        "--black",
        "random",
        "--seed",
        "9",
        "--max-plies",
        "60",
        "--pgn",
        &pgn,
    ];
    let first = rookery(&args);
    assert!(first.status.success(), "{}", stderr(&first));
    let text = stdout(&first);
    assert!(text.contains("Result: "), "{text}");
    assert!(text.starts_with("greedy - random (seed 9)"));
    let pgn_text = std::fs::read_to_string(&pgn).unwrap();
    for tag in [
        "[Event ",
        "[Date ",
        "[White \"greedy\"]",
        "[Black \"random\"]",
        "[Result ",
        "[Termination ",
        "[Seed \"9\"]",
    ] {
        assert!(pgn_text.contains(tag), "{tag} in {pgn_text}");
    }
    assert!(!pgn_text.contains("[FEN "));
    let second = rookery(&args);
    assert_eq!(stdout(&second), text, "same seed, same game");
}

#[test]
fn engine_game_from_a_position_records_it() {
    let pgn = temp("fen.pgn");
    let fen = "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1";
    let o = rookery(&[
        "game", "--white", "minimax", "--black", "minimax", "--depth", "2", "--fen", fen, "--pgn",
        &pgn, "--show", "--ascii",
    ]);
    let text = stdout(&o);
    assert!(text.contains("Result: 1-0 (White mates)"), "{text}");
    assert!(text.contains("Rd8#"));
    let pgn_text = std::fs::read_to_string(&pgn).unwrap();
    assert!(pgn_text.contains(&format!("[FEN \"{fen}\"]")) && pgn_text.contains("[SetUp \"1\"]"));
    assert!(pgn_text.contains("1. Rd8# {White mates} 1-0"), "{pgn_text}");
}

#[test]
fn play_in_the_terminal() {
    let input = "e4\nmoves\nKe2e9\nhint\nundo\nd4\nquit\n";
    let o = play("greedy", &["--seed", "1", "--ascii", "--no-book"], input);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(text.contains("you play White against greedy"), "{text}");
    assert!(text.contains("greedy plays "), "{text}");
    assert!(text.contains("Legal moves: "), "{text}");
    assert!(text.contains("move 'Ke2e9'"), "{text}");
    assert!(text.contains("Hint: "), "{text}");
    assert!(text.contains("Took back 2 half-move(s)."), "{text}");
    assert!(
        text.contains("Game over: * (game left unfinished)"),
        "{text}"
    );
    assert!(text.contains("1. d4 "), "undo then d4: {text}");
    assert!(!text.contains("1. e4 "), "e4 was taken back: {text}");
    // The board: ASCII, White at the bottom, last move in brackets.
    assert!(text.contains(" 8  r  n  b  q  k  b  n  r  8"), "{text}");
}

/// Bad input to each command is refused before any work: exit code 2, the error on one line
/// (clap's own refusals of a value add its line "For more information, try '--help'."), nothing
/// on standard output, and nothing written.
#[test]
fn bad_input_is_refused_before_any_work_and_nothing_is_written() {
    let inputs = std::path::PathBuf::from(temp("refusal-inputs"));
    std::fs::create_dir_all(&inputs).unwrap();
    let empty = inputs.join("empty.epd");
    std::fs::write(&empty, "").unwrap();
    let suite = inputs.join("one.epd");
    std::fs::write(
        &suite,
        "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - bm Rd8#; id \"m1\";\n",
    )
    .unwrap();
    let outputs = std::path::PathBuf::from(temp("refusal-outputs"));
    let _ = std::fs::remove_dir_all(&outputs);
    std::fs::create_dir_all(&outputs).unwrap();
    let (empty, suite) = (empty.to_str().unwrap(), suite.to_str().unwrap());
    let dir = outputs.to_str().unwrap();
    let file = |name: &str| outputs.join(name).to_str().unwrap().to_string();
    let (pgn, data, net) = (file("game.pgn"), file("data"), file("net.nnue"));
    let missing_dir = file("no/such/dir/game.pgn");
    let two = [
        "--engine",
        "engine=greedy",
        "depth=1",
        "--engine",
        "engine=random",
        "depth=1",
    ];
    let with = |head: &[&str], tail: &[&str]| -> Vec<String> {
        head.iter().chain(tail).map(|s| s.to_string()).collect()
    };
    let cases: Vec<(Vec<String>, &str)> = vec![
        (with(&["play", "--pgn", dir], &[]), "a directory"),
        (
            with(
                &[
                    "game", "--white", "random", "--black", "random", "--pgn", dir,
                ],
                &[],
            ),
            "a directory",
        ),
        (
            with(
                &[
                    "game",
                    "--white",
                    "random",
                    "--black",
                    "random",
                    "--pgn",
                    &missing_dir,
                ],
                &[],
            ),
            "no directory",
        ),
        (
            with(&["tree", "--engine", "minimax", "--depth", "99"], &[]),
            "would visit about",
        ),
        (
            with(
                &[
                    "tree",
                    "--engine",
                    "alphabeta",
                    "--depth",
                    "3",
                    "--dot",
                    dir,
                ],
                &[],
            ),
            "a directory",
        ),
        (
            with(&["tree", "--engine", "minimax", "--depth", "0"], &[]),
            "0 is not in 1..",
        ),
        (with(&["analyse", "--depth", "0"], &[]), "0 is not in 1.."),
        (
            with(&["analyse", "--movetime", "0"], &[]),
            "0 is not in 1..",
        ),
        (
            with(&["analyse", "--depth", "1000"], &[]),
            "1000 is not in 1..=120",
        ),
        (with(&["epd", empty], &[]), "no positions"),
        (with(&["epd", suite, "--json", dir], &[]), "a directory"),
        (
            with(&["epd", suite, "--threads", "0"], &[]),
            "0 is not in 1..",
        ),
        (with(&["epd", suite, "--hash", "0"], &[]), "0 is not in 1.."),
        (with(&["perft", "--suite", empty], &[]), "no positions"),
        (
            with(&["perft", "--suite", suite, "--max-depth", "0"], &[]),
            "0 is not in 1..",
        ),
        (
            with(
                &[
                    "match",
                    "--engine",
                    "engine=greedy",
                    "depth=1",
                    "--engine",
                    "cmd=/nonexistent",
                    "depth=1",
                    "--pgn",
                    &pgn,
                ],
                &[],
            ),
            "no program '/nonexistent'",
        ),
        (
            with(&["match"], &two)
                .into_iter()
                .chain(["--concurrency".into(), "0".into()])
                .collect(),
            "0 is not in 1..",
        ),
        (
            with(&["match"], &two)
                .into_iter()
                .chain(["--json".into(), dir.into()])
                .collect(),
            "a directory",
        ),
        (
            with(&["ladder", "--concurrency", "0"], &[]),
            "0 is not in 1..",
        ),
        (
            with(&["datagen", "--out", &data, "--threads", "0"], &[]),
            "0 is not in 1..",
        ),
        (
            with(&["datagen", "--out", &data, "--hash", "0"], &[]),
            "0 is not in 1..",
        ),
        (
            with(
                &["train", "--data", suite, "--out", &net, "--threads", "0"],
                &[],
            ),
            "0 is not in 1..",
        ),
        (
            with(&["tune", "--data", suite, "--threads", "0"], &[]),
            "0 is not in 1..",
        ),
        (
            with(&["train", "--data", suite, "--out", dir], &[]),
            "a directory",
        ),
        (
            with(&["tune", "--data", suite, "--out", dir], &[]),
            "a directory",
        ),
        (
            with(&["book", "build", "--pgn", suite, "--out", dir], &[]),
            "a directory",
        ),
        (
            with(&["data", "cat", suite, "--out", dir], &[]),
            "a directory",
        ),
        (
            with(&["data", "split", suite, "--out", &net, "--val", dir], &[]),
            "a directory",
        ),
        (
            with(&["data", "convert", suite, "--out", &missing_dir], &[]),
            "no directory",
        ),
        (
            with(&["epd", "/nonexistent/suite.epd"], &[]),
            "no such file or directory",
        ),
        (with(&["epd", suite, "--book", suite], &[]), "do not apply"),
    ];
    for (args, says) in &cases {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let o = rookery(&args);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(says), "{args:?}: {err}");
        let lines: Vec<&str> = err.lines().filter(|l| !l.is_empty()).collect();
        assert!(
            lines.len() == 1
                || (lines.len() == 2 && lines[1] == "For more information, try '--help'."),
            "{args:?}: {err}"
        );
        assert!(lines[0].starts_with("error: "), "{args:?}: {err}");
        assert_eq!(stdout(&o), "", "{args:?}");
        let written: Vec<_> = std::fs::read_dir(&outputs).unwrap().collect();
        assert!(written.is_empty(), "{args:?} wrote {written:?}");
    }
}

/// Each command's `--help` lists only options that apply to it, with no dates in its texts.
#[test]
fn help_texts_name_only_what_applies() {
    let o = rookery(&["epd", "--help"]);
    let text = stdout(&o);
    assert!(
        text.contains("--engine") && !text.contains("--book") && !text.contains("--weighted"),
        "{text}"
    );
    for cmd in [
        "play", "game", "analyse", "perft", "tree", "bench", "match", "ladder", "mate", "epd",
        "datagen", "train", "tune", "params",
    ] {
        let text = stdout(&rookery(&[cmd, "--help"]));
        let dated = text
            .as_bytes()
            .windows(10)
            .any(|w| w[..2] == *b"20" && w[4] == b'-' && w[7] == b'-' && w[2].is_ascii_digit());
        assert!(!dated, "{cmd}: {text}");
    }
}

/// `genfens` with a count far beyond need streams its FENs, and a reader that stops reading
/// ends it: the first lines come at once, and the program leaves when the pipe closes.
#[test]
fn a_huge_genfens_count_streams_and_ends_with_its_reader() {
    use std::io::{BufRead, BufReader};
    use std::time::Duration;
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_rookery"))
        .arg("genfens 1000000000000 seed 1 book None")
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // The reader on a thread of its own, so a program that prints nothing fails the test
    // instead of blocking it.
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let firsts: Vec<String> = BufReader::new(stdout)
            .lines()
            .take(3)
            .map_while(Result::ok)
            .collect();
        let _ = tx.send(firsts);
    });
    let firsts = rx.recv_timeout(Duration::from_secs(30));
    let status = (0..1500).find_map(|_| {
        std::thread::sleep(Duration::from_millis(20));
        child.try_wait().unwrap()
    });
    if status.is_none() {
        let _ = child.kill();
    }
    let firsts = firsts.expect("no FEN within 30 s");
    assert_eq!(firsts.len(), 3, "{firsts:?}");
    assert!(
        firsts.iter().all(|l| l.starts_with("info string genfens ")),
        "{firsts:?}"
    );
    assert!(status.is_some(), "genfens went on after its reader left");
}

/// A newcomer's game: castling with zeros, an empty line, a mistyped move, help, a promotion
/// without its piece, a `quit` taken back and one confirmed; one board a move; the prompt says
/// when the side to move is in check; the engine is shown thinking.
#[test]
fn a_newcomers_game_is_clear_at_every_answer() {
    let input = "0-0\n\nxyz\nhelp\na8\nquit\nn\nquit\ny\n";
    let fen = "4k3/P7/8/8/8/8/8/4K2R w K - 0 1";
    let o = play("greedy", &["--seed", "1", "--ascii", "--fen", fen], input);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    for says in [
        "You play O-O.",
        "greedy is thinking...",
        "Type a move (e4, Nf3, O-O), or 'help'.",
        "move 'xyz': not a move",
        "Commands: moves",
        "You play a8=Q+.",
        "Leave this game unfinished? (y/n) Playing on.",
        "Game over: * (game left unfinished)",
        "1. O-O ",
        " 2. a8=Q+ ",
    ] {
        assert!(text.contains(says), "{says:?} in {text}");
    }
    // One board before each of the person's three turns, none between.
    let boards = text.lines().filter(|l| l.starts_with(" 8 ")).count();
    assert_eq!(boards, 3, "{text}");
    // In check, the prompt says so.
    let fen = "4k3/8/8/8/8/8/8/r3K3 w - - 0 1";
    let text = stdout(&play("greedy", &["--ascii", "--fen", fen], "quit\ny\n"));
    assert!(text.contains("Your move (you are in check): "), "{text}");
}

#[test]
fn play_to_mate_writes_pgn() {
    let pgn = temp("play.pgn");
    let fen = "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1";
    let o = play("random", &["--fen", fen, "--pgn", &pgn], "Rd8#\n");
    let text = stdout(&o);
    assert!(text.contains("Game over: 1-0 (White mates)"), "{text}");
    let pgn_text = std::fs::read_to_string(&pgn).unwrap();
    assert!(pgn_text.contains("[White \"Human\"]") && pgn_text.contains("[Result \"1-0\"]"));
    assert!(!pgn_text.contains("♖"), "PGN uses SAN letters");
}

#[test]
fn play_as_black_resign_and_eof() {
    let o = play("random", &["--color", "black", "--seed", "4"], "resign\n");
    let text = stdout(&o);
    assert!(text.contains("you play Black against random"));
    assert!(text.contains("random plays "));
    assert!(text.contains("Game over: 1-0 (Black resigns)"), "{text}");
    // Black's view: rank 1 on top.
    assert!(text.lines().any(|l| l.starts_with(" 1 ")), "{text}");
    // End of input leaves cleanly.
    let o = play("random", &[], "");
    assert!(o.status.success());
    assert!(stdout(&o).contains("game left unfinished"));
}

#[test]
fn book_build_and_probe() {
    let pgn = temp("games.pgn");
    std::fs::write(
        &pgn,
        "[Result \"1-0\"]\n\n1. e4 e5 2. Nf3 1-0\n\n[Result \"1/2-1/2\"]\n\n1. e4 c5 1/2-1/2\n\n[Result \"0-1\"]\n\n1. d4 d5 0-1\n",
    )
    .unwrap();
    let book = temp("games.bin");
    let o = rookery(&[
        "book",
        "build",
        "--pgn",
        &pgn,
        "--out",
        &book,
        "--min-games",
        "1",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("3 games read"), "{}", stdout(&o));
    let o = rookery(&["book", "probe", "--book", &book]);
    let text = stdout(&o);
    assert!(text.contains("e4       e2e4        15"), "{text}");
    assert!(
        !text.contains("d4"),
        "a lost move has weight 0 and is left out: {text}"
    );
    // The built-in book knows the start position.
    let o = rookery(&["book", "probe"]);
    assert!(stdout(&o).contains("e2e4"));
}

#[test]
fn datagen_appends_the_next_games_and_names_a_bad_line() {
    let out = temp("datagen.epd");
    let _ = std::fs::remove_file(&out);
    let path = out.as_str();
    let args = [
        "datagen", "--out", path, "--games", "2", "--nodes", "300", "--seed", "9", "--hash", "1",
    ];
    let o = rookery(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    let first = std::fs::read_to_string(&out).unwrap();
    assert!(first.lines().count() > 10);
    assert!(
        first
            .lines()
            .all(|l| l.contains("c9 \"") && l.contains("ce "))
    );
    // A second run goes on with games 2 and 3, after the first two.
    let o = rookery(&args);
    assert!(
        stdout(&o).contains("going on from game 2"),
        "{}",
        stdout(&o)
    );
    let both = std::fs::read_to_string(&out).unwrap();
    assert!(both.starts_with(&first) && both.contains("g3\";"));
    // The tuner reads it and writes Rust source.
    let tuned = temp("tuned.rs");
    let o = rookery(&["tune", "--data", path, "--epochs", "3", "--out", &tuned]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("loss"));
    let source = std::fs::read_to_string(&tuned).unwrap();
    assert!(source.contains("pub const TERMS: Terms") && source.contains("EG_TABLE"));
    // A cut line: named, nothing written, exit 2.
    std::fs::write(&out, format!("{both}rnbqkbnr/pppp")).unwrap();
    let o = rookery(&args);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("cut short"), "{}", stderr(&o));
    let o = rookery(&["tune", "--data", path]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains(&format!("line {}", both.lines().count() + 1)),
        "{}",
        stderr(&o)
    );
}

#[test]
fn genfens_follows_openbench() {
    let o = rookery(&["genfens 4 seed 12 book None", "quit"]);
    assert!(o.status.success());
    let lines: Vec<String> = stdout(&o).lines().map(str::to_string).collect();
    assert_eq!(lines.len(), 4);
    assert!(lines.iter().all(|l| l.starts_with("info string genfens ")));
    let again = rookery(&["genfens 4 seed 12 book None", "quit"]);
    assert_eq!(stdout(&again), stdout(&o));
    let bad = rookery(&["genfens four", "quit"]);
    assert_eq!(bad.status.code(), Some(2));
}

/// The SPSA tune's state in `data/spsa` names only parameters of the table as they are called
/// now, each value within the table's range, so `scripts/spsa --state` can go on from it.
#[test]
fn the_spsa_state_names_the_parameters_as_they_are_called_now() {
    let text = std::fs::read_to_string("data/spsa/search-20k.json").unwrap();
    let state: serde_json::Value = serde_json::from_str(&text).unwrap();
    let params = state["params"].as_array().unwrap();
    assert!(params.len() >= 30, "{} parameters", params.len());
    for p in params {
        let name = p["name"].as_str().unwrap();
        let found = rookery::core::params::PARAMS
            .iter()
            .find(|q| q.name == name)
            .unwrap_or_else(|| panic!("{name} is not a parameter of the table"));
        let value = p["value"].as_f64().unwrap();
        assert!(
            (f64::from(found.min)..=f64::from(found.max)).contains(&value),
            "{name}: {value} outside the table's range"
        );
    }
}

/// `rookery params`: every search parameter in OpenBench's SPSA input format, and a table.
#[test]
fn params_prints_the_spsa_input_and_a_table() {
    let o = rookery(&["params"]);
    assert!(o.status.success());
    let text = stdout(&o);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), rookery::core::params::PARAMS.len());
    for (line, p) in lines.iter().zip(rookery::core::params::PARAMS) {
        assert_eq!(
            *line,
            format!(
                "{}, int, {}, {}, {}, {}, 0.002",
                p.name, p.default, p.min, p.max, p.step
            )
        );
    }
    let o = rookery(&["params", "--table"]);
    assert!(o.status.success());
    let text = stdout(&o);
    assert!(text.lines().next().unwrap().starts_with("name"));
    assert!(text.contains("rfp_margin") && text.contains("Reverse futility pruning"));
    assert_eq!(
        text.lines().count(),
        rookery::core::params::PARAMS.len() + 1
    );
}
