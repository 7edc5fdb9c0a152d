//! The UCI engine as GUIs drive it: the built binary over pipes. Every wait has a timeout, so a
//! hang fails the test instead of blocking it.

mod common;

use std::time::{Duration, Instant};

use common::SEARCHERS;
use common::uci::{
    Engine, assert_a_move, assert_within, lines_starting, some_line_has, some_line_starts,
};

#[test]
fn handshake_lists_every_option() {
    let mut e = Engine::start();
    let lines = e.ask("uci", |l| l == "uciok");
    assert!(some_line_starts(&lines, "id name Rookery "));
    assert!(some_line_starts(&lines, "id author "));
    // Every option of the one table, in its order, and nothing else.
    let options = lines_starting(&lines, "option name ");
    assert_eq!(options.len(), rookery::options::OPTIONS.len());
    for (d, line) in rookery::options::OPTIONS.iter().zip(options) {
        assert!(
            line.starts_with(&format!("option name {} type ", d.name)),
            "{line}"
        );
    }
    for name in [
        "Hash",
        "Threads",
        "MultiPV",
        "Move Overhead",
        "SyzygyPath",
        "UCI_Elo",
    ] {
        assert!(rookery::options::find(name).is_some(), "{name}");
    }
    e.ready();
    e.quit();
}

#[test]
fn isready_during_infinite_and_one_bestmove_on_stop() {
    let mut e = Engine::start();
    e.send("position startpos moves e2e4");
    search_for(&mut e, "go infinite", 200);
    let lines = e.ready();
    assert!(
        !some_line_starts(&lines, "bestmove"),
        "infinite never ends by itself"
    );
    std::thread::sleep(Duration::from_millis(200));
    let (_, best) = e.bestmove_after("stop");
    assert!(best.starts_with("bestmove "), "{best}");
    e.send("stop");
    assert!(
        !e.quiet_for(Duration::from_millis(300))
            .iter()
            .any(|l| l.starts_with("bestmove")),
        "a second stop gives no second bestmove"
    );
    e.quit();
}

/// Sends `go` and lets the search run for `ms` milliseconds.
fn search_for(e: &mut Engine, go: &str, ms: u64) {
    e.send(go);
    std::thread::sleep(Duration::from_millis(ms));
}

/// Sends `cmd`: the engine must answer with a `bestmove` line.
fn assert_bestmove_after(e: &mut Engine, cmd: &str) {
    let (_, best) = e.bestmove_after(cmd);
    assert!(best.starts_with("bestmove "), "{cmd}: {best}");
}

/// Searches `fen` with `go`: the engine must play `mv` and score it `mate`.
fn assert_mates(e: &mut Engine, fen: &str, go: &str, mv: &str, mate: &str) {
    let (lines, best) = e.search(&format!("position fen {fen}"), go);
    assert!(some_line_has(&lines, &format!("score {mate}")), "{lines:?}");
    assert_eq!(best.split_whitespace().nth(1), Some(mv), "{lines:?}");
}

#[test]
fn mate_in_one_and_no_move_positions() {
    let mut e = Engine::start();
    let fen = "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1";
    assert_mates(&mut e, fen, "go depth 2", "d1d8", "mate 1");
    for fen in [
        "7k/6Q1/6K1/8/8/8/8/8 b - - 0 1",
        "7k/8/6QK/8/8/8/8/8 b - - 0 1",
    ] {
        let (_, best) = e.search(&format!("position fen {fen}"), "go depth 3");
        assert_eq!(best, "bestmove (none)", "{fen}");
    }
    e.quit();
}

#[test]
fn go_mate_searches_until_the_mate_is_proven() {
    // The first position of tests/data/mate-in-3.epd: the mate (Nde6) is not found within 6 plies, the depth
    // `go mate 3` used to stop at; the search must go on until the mate in 3 is proven.
    let mut e = Engine::start();
    let fen = "8/8/8/8/1p1N4/1Bk1K3/3N4/b7 w - - 0 1";
    assert_mates(&mut e, fen, "go mate 3", "d4e6", "mate 3");
    e.quit();
}

#[test]
fn multipv_three_gives_three_lines() {
    let mut e = Engine::with_option("MultiPV", "3");
    let (lines, _) = e.search("position startpos", "go depth 5");
    let depth5 = lines_starting(&lines, "info depth 5 ");
    for k in 1..=3 {
        assert!(
            depth5.iter().any(|l| l.contains(&format!(" multipv {k} "))),
            "{depth5:?}"
        );
    }
    // Three different first moves.
    let firsts: std::collections::HashSet<&str> = depth5
        .iter()
        .filter_map(|l| l.split(" pv ").nth(1)?.split_whitespace().next())
        .collect();
    assert_eq!(firsts.len(), 3);
    e.quit();
}

/// Lines the engine answers with a word and outlives: other protocols' commands, values of the
/// wrong kind or out of range, options it lacks, positions it cannot set up, stray bytes.
const GARBAGE: [&str; 10] = [
    "xboard",
    "protover 2",
    "go depth banana",
    "setoption name Hash value -3",
    "setoption name NoSuchOption value 1",
    "setoption",
    "position fen this is not a fen",
    "position startpos moves e2e4 e7e4",
    "position lost",
    "\u{0}\u{7f}garbage",
];

#[test]
fn garbage_and_illegal_input_leave_it_running() {
    let mut e = Engine::start();
    for bad in GARBAGE {
        let lines = e.said(bad);
        assert!(lines.last().unwrap().len() > "info string ".len(), "{bad}");
    }
    // The illegal move left the position after 1. e4: Black to move.
    let lines = e.ask("d", |l| l.starts_with("Fen: "));
    assert!(lines.last().unwrap().contains(" b KQkq "), "{lines:?}");
    assert_bestmove_after(&mut e, "go depth 3");
    e.quit();
}

#[test]
fn go_nodes_repeats_exactly_after_ucinewgame() {
    let mut e = Engine::start();
    let mut runs = Vec::new();
    for _ in 0..2 {
        e.send("ucinewgame");
        let (lines, best) = e.search("position startpos moves d2d4 g8f6 c2c4", "go nodes 20000");
        let infos: Vec<String> = lines
            .iter()
            .filter(|l| l.starts_with("info depth"))
            .map(|l| {
                // Times and speeds vary; depth, score, nodes and pv must not.
                let words: Vec<&str> = l.split_whitespace().collect();
                let keep = |k: &str| {
                    words
                        .iter()
                        .position(|w| *w == k)
                        .map(|i| words[i + 1])
                        .unwrap_or("")
                };
                format!(
                    "{} {} {} {}",
                    keep("depth"),
                    keep("cp"),
                    keep("nodes"),
                    l.split(" pv ").nth(1).unwrap_or("")
                )
            })
            .collect();
        runs.push((infos, best));
    }
    assert_eq!(runs[0], runs[1]);
    assert!(!runs[0].0.is_empty());
    e.quit();
}

#[test]
fn commands_during_a_search_never_lose_a_bestmove() {
    let mut e = Engine::start();
    // go during a search: the first search ends with its bestmove, the second runs.
    e.send("position startpos");
    search_for(&mut e, "go infinite", 100);
    let (_, first) = e.bestmove_after("go depth 4");
    let (_, second) = e.bestmove();
    assert!(first.starts_with("bestmove ") && second.starts_with("bestmove "));
    // position during a search.
    search_for(&mut e, "go infinite", 100);
    e.send("position startpos moves e2e4");
    e.bestmove();
    let (_, best) = e.bestmove_after("go depth 3");
    let m = best.split_whitespace().nth(1).unwrap();
    assert!(
        m.starts_with(['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'])
            && (m.contains('7') || m.contains('8')),
        "{best}"
    );
    // setoption during a search applies afterwards.
    e.send("go infinite");
    e.set("Hash", "8");
    e.ready();
    e.send("stop");
    e.bestmove();
    // quit during a search ends the engine promptly.
    search_for(&mut e, "go infinite", 100);
    e.quit();
}

#[test]
fn ponder_then_ponderhit() {
    let mut e = Engine::with_option("Ponder", "true");
    e.send("position startpos moves e2e4 e7e5");
    search_for(&mut e, "go ponder wtime 2000 btime 2000 winc 0 binc 0", 300);
    let lines = e.ready();
    assert!(!some_line_starts(&lines, "bestmove"), "pondering waits");
    assert_bestmove_after(&mut e, "ponderhit");
    e.quit();
}

#[test]
fn clock_with_fifty_milliseconds_left_answers_in_time() {
    let mut e = Engine::start();
    e.send("position startpos moves e2e4 c7c5 g1f3 d7d6");
    let start = Instant::now();
    assert_bestmove_after(&mut e, "go wtime 50 btime 50");
    // Not a speed test: with 50 ms left the answer must come well before the flag falls
    // (the generous bound allows for a slow machine and process start-up).
    assert_within(start, Duration::from_secs(2), "bestmove");
    e.quit();
}

#[test]
fn every_engine_value_plays() {
    let mut e = Engine::start();
    let below = ["random", "book", "greedy", "greedy-incremental"];
    for name in below.into_iter().chain(SEARCHERS).chain(["rookery"]) {
        e.set("Engine", name);
        let (_, best) = e.search(
            "position startpos moves g1f3 d7d5",
            "go depth 2 movetime 200",
        );
        let m = best.split_whitespace().nth(1).unwrap_or("");
        assert_eq!(m.len(), 4, "{name}: {best}");
    }
    e.quit();
}

#[test]
fn chess960_castling_is_king_takes_rook() {
    let mut e = Engine::with_option("UCI_Chess960", "true");
    // White can castle king side only by moving the king onto its rook's square.
    e.send("position fen rk5r/pppppppp/8/8/8/8/PPPPPPPP/RK5R w HAha - 0 1");
    let lines = e.ask("perft 1", |l| l.starts_with("Nodes searched"));
    assert!(some_line_starts(&lines, "b1h1: "), "{lines:?}");
    e.send("position fen rk5r/pppppppp/8/8/8/8/PPPPPPPP/RK5R w HAha - 0 1 moves b1h1");
    let lines = e.ask("d", |l| l.starts_with("Fen: "));
    assert!(lines.last().unwrap().contains("/R4RK1 b"), "{lines:?}");
    e.quit();
}

#[test]
fn eval_and_bench_extras() {
    let mut e = Engine::start();
    e.send("position startpos moves e2e4");
    let lines = e.ask("eval", |l| l.starts_with("Final evaluation"));
    assert!(some_line_starts(&lines, "mobility"));
    let lines = e.ask("bench 4", |l| l.ends_with(" nps"));
    assert_eq!(
        lines
            .iter()
            .filter(|l| l.contains(" nodes ") && l.contains(" ms "))
            .count(),
        50
    );
    e.quit();
}

#[test]
fn every_engine_answers_stop_at_once() {
    let mut e = Engine::start();
    for name in SEARCHERS.into_iter().chain(["rookery"]) {
        e.set("Engine", name);
        e.send("position startpos moves e2e4 e7e5");
        // A depth none of them finishes in any reasonable time.
        search_for(&mut e, "go depth 12", 150);
        let asked = Instant::now();
        let (_, best) = e.bestmove_after("stop");
        assert_a_move(&best, name);
        assert_within(asked, Duration::from_secs(5), &format!("{name} stopping"));
    }
    e.quit();
}

#[test]
fn ladder_engines_report_each_iteration() {
    let mut e = Engine::with_option("Engine", "tt");
    let (lines, _) = e.search("position startpos moves e2e4 c7c5", "go depth 4");
    let depths: Vec<u32> = lines_starting(&lines, "info depth ")
        .iter()
        .filter_map(|l| l.split_whitespace().nth(2)?.parse().ok())
        .collect();
    assert_eq!(depths, vec![1, 2, 3, 4], "{lines:?}");
    e.quit();
}

#[test]
fn syzygy_tables_are_probed_and_bad_or_corrupt_ones_reported() {
    let mut e = Engine::start();
    let said = e.said("setoption name SyzygyPath value tests/data/syzygy");
    assert!(said.last().unwrap().contains("up to 4 pieces"), "{said:?}");
    // KRvK: the tables are probed (tbhits) and the search plays a winning move.
    let (lines, best) = e.search("position fen 8/8/8/8/8/2k5/1R6/K7 w - - 0 1", "go depth 8");
    let last = lines.iter().rev().find(|l| l.contains(" tbhits ")).unwrap();
    let hits: u64 = last
        .split_whitespace()
        .skip_while(|&w| w != "tbhits")
        .nth(1)
        .unwrap()
        .parse()
        .unwrap();
    assert!(hits > 0, "{last}");
    assert_ne!(best, "bestmove (none)");

    let said = e.said("setoption name SyzygyPath value /no/such/dir");
    assert!(said.last().unwrap().contains("not a directory"), "{said:?}");

    // A table whose header is destroyed: found when first probed, said once, play goes on.
    let dir = std::env::temp_dir().join(format!("rookery-corrupt-tb-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for f in std::fs::read_dir("tests/data/syzygy").unwrap() {
        let f = f.unwrap().path();
        std::fs::copy(&f, dir.join(f.file_name().unwrap())).unwrap();
    }
    let bad = dir.join("KRvK.rtbw");
    let mut bytes = std::fs::read(&bad).unwrap();
    bytes[..4].copy_from_slice(&[0, 0, 0, 0]);
    std::fs::write(&bad, bytes).unwrap();
    e.ask(
        &format!("setoption name SyzygyPath value {}", dir.display()),
        |l| l.starts_with("info string"),
    );
    let (lines, best) = e.search("position fen 8/8/8/8/8/2k5/1R6/K7 w - - 0 1", "go depth 6");
    let reports = lines_starting(&lines, "info string");
    assert_eq!(reports.len(), 1, "{lines:#?}");
    assert!(reports[0].contains("KRvK") && reports[0].contains("without tablebases"));
    assert_ne!(best, "bestmove (none)");
    let (lines, _) = e.bestmove_after("go depth 6");
    assert!(
        !some_line_starts(&lines, "info string"),
        "said once: {lines:#?}"
    );
    e.ready();
    e.quit();
    std::fs::remove_dir_all(&dir).ok();
}

/// `bench` searches with the evaluation the `Evaluation` option sets (the net by default).
#[test]
fn bench_follows_the_evaluation_option() {
    let mut e = Engine::start();
    let mut total = |setting: Option<&str>| {
        if let Some(value) = setting {
            e.set("Evaluation", value);
        }
        let lines = e.ask("bench 5", |l| l.ends_with(" nps"));
        let last = lines.last().unwrap();
        last.split_whitespace()
            .next()
            .unwrap()
            .parse::<u64>()
            .unwrap()
    };
    let default = total(None);
    let hce = total(Some("hce"));
    let net = total(Some("net"));
    assert_ne!(default, hce);
    assert_eq!(default, net);
    e.quit();
}

/// `isready` is answered at once and `stop` ends a long perft or bench, which then says
/// `interrupted` instead of a total that would look final.
#[test]
fn perft_and_bench_run_off_the_loop_and_stop_when_told() {
    let mut e = Engine::start();
    for (long, done) in [("perft 9", "Nodes searched"), ("bench 25", " nps")] {
        e.send(long);
        std::thread::sleep(Duration::from_millis(200));
        let asked = Instant::now();
        let lines = e.ready();
        assert_within(asked, Duration::from_secs(1), &format!("{long}: readyok"));
        assert!(!some_line_has(&lines, done), "{long}: {lines:?}");
        let asked = Instant::now();
        let lines = e.ask("stop", |l| l == "interrupted");
        assert_within(asked, Duration::from_secs(1), &format!("{long}: stopped"));
        assert!(!some_line_has(&lines, done), "{long}: {lines:?}");
    }
    // A finished perft still gives its total; `go` during a perft stops it first.
    e.ask("perft 3", |l| l == "Nodes searched: 8902");
    e.send("perft 8");
    let (lines, best) = e.bestmove_after("go depth 3");
    assert!(lines.iter().any(|l| l == "interrupted"), "{lines:?}");
    assert!(best.starts_with("bestmove "));
    // Depths out of range are said, and nothing runs.
    for (bad, words) in [
        ("perft 13", "perft depth must be 1 to 12"),
        ("perft 0", "perft depth must be 1 to 12"),
        ("bench 31", "bench depth must be 1 to 30"),
        ("bench 0", "bench depth must be 1 to 30"),
        ("perft 99999999999", "not a number in range"),
    ] {
        let said = e.said(bad);
        assert!(said.last().unwrap().contains(words), "{bad}: {said:?}");
    }
    e.ready();
    e.quit();
}

/// `quit` and the end of input leave within a second whatever runs.
#[test]
fn quit_and_end_of_input_leave_within_a_second() {
    for (work, by_eof) in [
        ("perft 10", false),
        ("bench 30", false),
        ("go infinite", false),
        ("perft 10", true),
        ("go infinite", true),
        ("go depth 60", true),
    ] {
        let mut e = Engine::start();
        e.send("position startpos moves e2e4");
        e.send(work);
        std::thread::sleep(Duration::from_millis(300));
        let asked = Instant::now();
        if by_eof {
            e.close_input();
        } else {
            e.send("quit");
        }
        let status = e.exits_within(Duration::from_secs(1));
        assert!(
            status.is_some_and(|s| s.success()),
            "{work} ({}): {status:?} after {:?}",
            if by_eof { "end of input" } else { "quit" },
            asked.elapsed()
        );
    }
}

/// A Hash (or a thread count) beyond what the process may have is refused before anything is
/// allocated: the engine says what was asked and what it keeps, and plays on. The limit is on
/// the address space, as `prlimit --as` sets it.
#[cfg(unix)]
#[test]
fn hash_beyond_the_memory_there_is_is_refused_and_play_goes_on() {
    let mut e = Engine::start_limited(1 << 30);
    let said = e.said("setoption name Hash value 2048");
    let text = said.last().unwrap();
    assert!(
        text.contains("2048 MB")
            && text.contains("does not fit")
            && text.contains("stays at 16 MB"),
        "{text}"
    );
    // A size that fits is taken without a word.
    e.set("Hash", "64");
    let lines = e.ready();
    assert!(!some_line_starts(&lines, "info string"), "{lines:?}");
    let said = e.said("setoption name Hash value 32768");
    assert!(said.last().unwrap().contains("stays at 64 MB"), "{said:?}");
    // 256 threads: refused for their memory, or taken as the CPUs there are (fewer here).
    let said = e.said("setoption name Threads value 256");
    let text = said.last().unwrap();
    assert!(
        text.contains("Threads stays at 1") || text.contains("searching with"),
        "{said:?}"
    );
    let (_, best) = e.search("position startpos moves e2e4 e7e5", "go depth 8");
    assert_a_move(&best, "bestmove");
    e.quit();
}

/// A net or book path naming a FIFO (whose opening waits for a writer), an endless device or a
/// directory is refused at once, before it is opened: the engine says why, keeps what it had,
/// answers `isready` and plays. Its address space is limited, so reading `/dev/zero` to the
/// end would fail the test by aborting as well as by hanging.
#[cfg(target_os = "linux")]
#[test]
fn a_net_or_book_path_that_is_no_file_is_refused_without_waiting() {
    let fifo = common::cli::temp("uci-fifo", "net.fifo");
    let dir = fifo.parent().unwrap().to_path_buf();
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .expect("mkfifo");
    assert!(made.success());
    let mut e = Engine::start_limited(1 << 30);
    e.set("OwnBook", "true");
    let paths = [fifo.to_str().unwrap(), "/dev/zero", dir.to_str().unwrap()];
    for (option, keeps) in [
        ("EvalFile", "the net in use stays"),
        ("BookFile", "playing without a book"),
    ] {
        for path in paths {
            let asked = Instant::now();
            let said = e.said(&format!("setoption name {option} value {path}"));
            let text = said.last().unwrap();
            assert!(
                text.contains(path)
                    && (text.contains("not a regular file") || text.contains("is a directory"))
                    && text.contains(keeps),
                "{option} {path}: {text}"
            );
            assert_within(asked, Duration::from_secs(5), &format!("{option} {path}"));
        }
    }
    e.ready();
    let (_, best) = e.search("position startpos moves e2e4", "go depth 6");
    assert_a_move(&best, "bestmove");
    e.quit();
    let _ = std::fs::remove_dir_all(&dir);
}

/// Clocks below zero or beyond any game are said and read as sane values: a move comes.
#[test]
fn negative_and_absurd_clocks_give_a_move() {
    let mut e = Engine::start();
    let asked = Instant::now();
    let (lines, best) = e.bestmove_after("go wtime -5000 btime -5000 winc -10 binc -10");
    assert_a_move(&best, "bestmove");
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("info string wtime -5000")),
        "{lines:?}"
    );
    assert_within(asked, Duration::from_secs(2), "bestmove");
    let said = e.said("go wtime 9223372036854775807 btime 1 winc 9223372036854775807 movestogo 0");
    assert!(said.last().unwrap().contains("read as"), "{said:?}");
    std::thread::sleep(Duration::from_millis(200));
    let (_, best) = e.bestmove_after("stop");
    assert_a_move(&best, "bestmove");
    e.quit();
}

/// A line of two megabytes is dropped with a word; the engine goes on.
#[test]
fn an_overlong_line_is_dropped() {
    let mut e = Engine::start();
    let long = format!("position startpos moves {}", "e2e4 ".repeat(400_000));
    let said = e.said(&long);
    assert!(said.last().unwrap().contains("longer than"), "{said:?}");
    assert_bestmove_after(&mut e, "go depth 2");
    e.quit();
}

/// The last `info` line with a PV before `bestmove`: clients (fastchess, cutechess, GUIs) take it
/// as the engine's verdict, so its PV must start with the move played and carry a score, however
/// the search ended: a finished depth, a clock, a node count, or a `stop` at any moment.
#[test]
fn the_last_info_line_starts_with_the_move_played_then_the_ponder_move() {
    let positions = [
        "position startpos",
        "position fen r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4",
        "position fen r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        "position fen 8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
        "position fen r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
        "position fen 6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1",
    ];
    let goes: Vec<String> = [1, 2, 3, 5, 8, 13, 21, 40]
        .iter()
        .map(|t| format!("go movetime {t}"))
        .chain(
            [200, 700, 1500, 4000, 12_000]
                .iter()
                .map(|n| format!("go nodes {n}")),
        )
        .chain(["go depth 1".into(), "go depth 6".into()])
        .chain(["go wtime 300 btime 300 winc 3 binc 3".into()])
        .collect();
    let mut e = Engine::start();
    let (mut checked, mut pondered) = (0, 0);
    for (i, position) in positions.iter().enumerate() {
        let mut finish = |e: &mut Engine, lines: &[String], best: &str, how: &str| {
            let played = best.split_whitespace().nth(1).unwrap().to_string();
            let last = lines
                .iter()
                .rev()
                .find(|l| l.starts_with("info ") && l.contains(" pv "))
                .unwrap_or_else(|| panic!("{position}, {how}: no info line with a PV"));
            let pv = last.split(" pv ").nth(1).unwrap();
            assert_eq!(
                pv.split_whitespace().next(),
                Some(played.as_str()),
                "{position}, {how}: the last line {last:?} does not start with {best:?}"
            );
            assert!(last.contains(" score "), "{position}, {how}: {last}");
            // A ponder move is the line's second move: a client pondering on it ponders on the
            // line it was shown.
            if let Some(ponder) = best.split(" ponder ").nth(1) {
                assert_eq!(
                    pv.split_whitespace().nth(1),
                    Some(ponder.trim()),
                    "{position}, {how}: the last line {last:?} does not go on with the ponder move of {best:?}"
                );
                pondered += 1;
            }
            checked += 1;
            e.send("ucinewgame");
        };
        for go in &goes {
            let (lines, best) = e.search(position, go);
            finish(&mut e, &lines, &best, go);
        }
        // `stop` at moments spread over the first iterations and deeper ones.
        for wait in [0, 1, 2, 4, 7, 11, 17, 30, 60 + 10 * i as u64] {
            e.send(position);
            search_for(&mut e, "go infinite", wait);
            let (lines, best) = e.bestmove_after("stop");
            finish(&mut e, &lines, &best, &format!("stop after {wait} ms"));
        }
    }
    assert_eq!(checked, positions.len() * (goes.len() + 9));
    assert!(
        pondered * 2 > checked,
        "{pondered} of {checked} with a ponder move"
    );
    e.quit();
}

/// `Debug Log File` appends every line in and out with the time it passed: each `go` before
/// its `bestmove`, the output in the order it left; a bad path is an `info string` and no log;
/// an empty value ends the log.
#[test]
fn the_debug_log_holds_every_line_with_its_time() {
    let path = std::env::temp_dir().join(format!("rookery-debug-log-{}.txt", std::process::id()));
    let _ = std::fs::remove_file(&path);
    let mut e = Engine::start();
    let said = e.said("setoption name Debug Log File value /no/such/dir/log.txt");
    assert!(
        some_line_has(&said, "cannot open the debug log"),
        "{said:?}"
    );
    e.set("Debug Log File", path.to_str().unwrap());
    e.ready();
    let mut searches = Vec::new();
    for go in [
        "go depth 6",
        "go nodes 3000",
        "go wtime 2000 btime 2000 winc 20 binc 20",
    ] {
        let (lines, best) = e.search("position startpos moves e2e4 e7e5", go);
        searches.push((go, lines, best));
    }
    e.set("Debug Log File", "<empty>");
    e.ready();
    e.search("position startpos", "go depth 2");
    e.quit();

    let text = std::fs::read_to_string(&path).unwrap();
    let _ = std::fs::remove_file(&path);
    let entries: Vec<(f64, &str, &str)> = text
        .lines()
        .map(|l| {
            let mut parts = l.splitn(3, ' ');
            let t: f64 = parts.next().unwrap().parse().expect(l);
            let dir = parts.next().expect(l);
            assert!(dir == "<<" || dir == ">>", "{l}");
            (t, dir, parts.next().unwrap_or(""))
        })
        .collect();
    // The texts of the entries in one direction, in order.
    let texts =
        |dir: &str| -> Vec<&str> { entries.iter().filter(|e| e.1 == dir).map(|e| e.2).collect() };
    // Inputs from the first `isready` to the `setoption` that ends the log, in order.
    let inputs = texts("<<");
    let mut expected = vec!["isready"];
    for (go, _, _) in &searches {
        expected.extend(["position startpos moves e2e4 e7e5", go]);
    }
    expected.push("setoption name Debug Log File value <empty>");
    assert_eq!(inputs, expected);
    // Outputs: every line the client read, in order, and nothing after the log ended.
    let outputs = texts(">>");
    let mut read = vec!["readyok"];
    for (_, lines, best) in &searches {
        assert_eq!(lines.last(), Some(best));
        read.extend(lines.iter().map(String::as_str));
    }
    assert_eq!(outputs, read);
    // Each `go` arrived before its `bestmove` left, within the time a search may take.
    let times = |dir: &str, prefix: &str| -> Vec<f64> {
        entries
            .iter()
            .filter(|e| e.1 == dir && e.2.starts_with(prefix))
            .map(|e| e.0)
            .collect()
    };
    let (goes, bests) = (times("<<", "go "), times(">>", "bestmove "));
    assert_eq!((goes.len(), bests.len()), (3, 3));
    for (g, b) in goes.iter().zip(&bests) {
        assert!(g <= b && b - g < 10.0, "go at {g}, bestmove at {b}");
    }
    let out_times = times(">>", "");
    assert!(
        out_times.windows(2).all(|w| w[0] <= w[1]),
        "outputs in time order"
    );
}
