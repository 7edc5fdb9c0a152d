//! The learned evaluation as a user drives it: binary self-play data (`datagen --out DIR`), the
//! data tools, `train`, and the net in the engine (`Evaluation`, `EvalFile`, `eval`, `--net`).

mod common;

use std::io::Write;
use std::path::Path;
use std::process::Output;

use common::cli::{rookery, stderr, stdout, text, uci_script as uci};
use rookery::core::{Game, Limits};
use rookery::engine::{Engine, Evaluation, Settings};
use rookery::nnue::Network;
use rookery::search::engine::Rookery;

/// A path in this file's own temporary folder, as an argument.
fn temp(name: &str) -> String {
    common::cli::temp("nnue", name)
        .to_str()
        .unwrap()
        .to_string()
}

fn datagen(dir: &str, games: &str) -> Output {
    datagen_with(dir, games, &["--threads", "2"])
}

/// `datagen` at 400 nodes, seed 4, with more options.
fn datagen_with(dir: &str, games: &str, more: &[&str]) -> Output {
    let mut args = vec![
        "datagen", "--out", dir, "--games", games, "--nodes", "400", "--seed", "4", "--hash", "1",
    ];
    args.extend_from_slice(more);
    rookery(&args)
}

/// `train --data DATA --out OUT`: a net of `hidden` neurons, `epochs` passes over the data in
/// batches of 64, with more options.
fn train_net(data: &str, out: &str, hidden: &str, epochs: &str, more: &[&str]) -> Output {
    let mut args = vec![
        "train", "--data", data, "--out", out, "--hidden", hidden, "--epochs", epochs, "--batch",
        "64",
    ];
    args.extend_from_slice(more);
    rookery(&args)
}

/// Fails the test unless the run succeeded and said `words` (on either of its streams).
fn assert_ok_saying(o: &Output, words: &str) {
    assert!(o.status.success(), "{}", text(o));
    assert!(text(o).contains(words), "{}", text(o));
}

/// The chunk files of a data directory, concatenated.
fn chunk_bytes(dir: impl AsRef<Path>) -> Vec<u8> {
    let mut names: Vec<_> = std::fs::read_dir(dir.as_ref())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "bin"))
        .collect();
    names.sort();
    names
        .iter()
        .flat_map(|p| std::fs::read(p).unwrap())
        .collect()
}

#[test]
fn binary_self_play_goes_on_where_it_stopped_and_trains_a_net_the_engine_loads() {
    // Six games in one run, and three then three more in another directory: the same bytes.
    let whole = temp("whole");
    let parts = temp("parts");
    let o = datagen(&whole, "6");
    assert!(o.status.success(), "{}", text(&o));
    assert!(datagen(&parts, "3").status.success());
    let o = datagen(&parts, "3");
    assert!(text(&o).contains("going on from game 3"), "{}", text(&o));
    let bytes = chunk_bytes(&whole);
    assert!(bytes.len() >= 32 * 100, "{} bytes", bytes.len());
    assert_eq!(bytes.len() % 32, 0);
    assert_eq!(bytes, chunk_bytes(&parts));
    let manifest = std::fs::read_to_string(Path::new(&parts).join("manifest.json")).unwrap();
    assert!(
        manifest.contains("\"seed\": 4") && manifest.contains("datagen"),
        "{manifest}"
    );
    // A torn record at the end (a crash while writing) is cut and the game written again.
    let chunk = Path::new(&parts).join("chunk-000000.bin");
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(&chunk)
        .unwrap();
    f.write_all(&[1, 2, 3]).unwrap();
    drop(f);
    let o = datagen(&parts, "1");
    assert!(o.status.success(), "{}", text(&o));
    assert_eq!(std::fs::metadata(&chunk).unwrap().len() % 32, 0);
    // The seed's games go on only as they were played: with the hand-crafted evaluation they
    // would be other games, so the run is refused and the data stays as it was.
    let before = chunk_bytes(&parts);
    let o = datagen_with(&parts, "1", &["--eval", "hce"]);
    assert!(!o.status.success(), "{}", text(&o));
    assert!(
        text(&o).contains("seed 4") && text(&o).contains("eval hce"),
        "{}",
        text(&o)
    );
    assert_eq!(chunk_bytes(&parts), before);

    // The data tools.
    let w = &whole;
    let o = rookery(&["data", "stats", w]);
    let stats = text(&o);
    assert!(
        o.status.success() && stats.contains(&format!("positions: {}", bytes.len() / 32)),
        "{stats}"
    );
    assert!(stats.contains("results for the side to move"), "{stats}");
    let (train, val) = (temp("train.bin"), temp("val.bin"));
    let o = rookery(&[
        "data",
        "split",
        w,
        "--out",
        &train,
        "--val",
        &val,
        "--fraction",
        "0.1",
    ]);
    assert!(o.status.success(), "{}", text(&o));
    let n_train = std::fs::metadata(&train).unwrap().len() / 32;
    let n_val = std::fs::metadata(&val).unwrap().len() / 32;
    assert_eq!((n_train + n_val) as usize, bytes.len() / 32);
    assert!(n_val >= 1);
    let both = temp("both.bin");
    let o = rookery(&["data", "cat", &train, &val, "--out", &both]);
    assert!(o.status.success());
    let shuffled = temp("shuffled.bin");
    assert!(
        rookery(&["data", "shuffle", &both, "--out", &shuffled])
            .status
            .success()
    );
    let dedup = temp("dedup.bin");
    let o = rookery(&["data", "dedup", &shuffled, "--out", &dedup]);
    assert!(text(&o).contains("positions kept"), "{}", text(&o));
    let halved = temp("halved.bin");
    let o = rookery(&["data", "rescale", w, "--out", &halved, "--factor", "0.5"]);
    assert!(o.status.success(), "{}", text(&o));
    let halved_bytes = std::fs::read(&halved).unwrap();
    assert_eq!(halved_bytes.len(), bytes.len());
    let score = |b: &[u8], i: usize| i16::from_le_bytes([b[32 * i + 24], b[32 * i + 25]]);
    for i in 0..bytes.len() / 32 {
        let s = f64::from(score(&bytes, i)) * 0.5;
        assert!((f64::from(score(&halved_bytes, i)) - s).abs() <= 0.5, "{i}");
    }
    let o = rookery(&["data", "rescale", w, "--out", &halved, "--factor", "0"]);
    assert!(
        !o.status.success() && text(&o).contains("above 0"),
        "{}",
        text(&o)
    );
    // A file that is not records is named.
    let junk = temp("junk.bin");
    std::fs::write(&junk, b"0123456789").unwrap();
    let o = rookery(&["data", "stats", &junk]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o).contains("whole number"), "{}", text(&o));

    // Train a small net, then go on from its checkpoint for more epochs.
    let net = temp("small.nnue");
    let n = &net;
    let o = train_net(w, n, "16", "2", &["--threads", "2"]);
    assert_ok_saying(&o, "epoch 2/2");
    let csv = std::fs::read_to_string(format!("{n}.loss.csv")).unwrap();
    assert_eq!(csv.lines().count(), 3, "{csv}");
    assert!(
        std::fs::read_to_string(format!("{n}.loss.svg"))
            .unwrap()
            .contains("<polyline")
    );
    // Validation split one by one, as the nets before the split by games; an unknown split is
    // refused by name.
    let by_positions = temp("by-positions.nnue");
    let o = train_net(w, &by_positions, "8", "1", &["--val-split", "positions"]);
    assert!(o.status.success(), "{}", text(&o));
    let o = rookery(&[
        "train",
        "--data",
        w,
        "--out",
        &by_positions,
        "--val-split",
        "moves",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o).contains("unknown --val-split 'moves'"),
        "{}",
        text(&o)
    );
    let ckpt = format!("{n}.ckpt");
    let o = train_net(w, n, "16", "3", &["--resume", &ckpt]);
    assert!(text(&o).contains("going on from epoch 2"), "{}", text(&o));
    assert_eq!(
        std::fs::read_to_string(format!("{n}.loss.csv"))
            .unwrap()
            .lines()
            .count(),
        4
    );
    let loaded = Network::load(n).unwrap();
    assert_eq!(loaded.hidden(), 16);
    assert!(loaded.provenance.contains("positions:") && loaded.provenance.contains("command:"));
    assert!(
        loaded
            .provenance
            .contains("validation: 0.01 of the data, split by games"),
        "{}",
        loaded.provenance
    );
    // `data loss` scores a net file or the built-in net on a data set; a file that is no net
    // is named before any data is read.
    let o = rookery(&["data", "loss", &val, "--net", n, "--net", &train]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("not a Rookery net file"), "{}", text(&o));
    let o = rookery(&["data", "loss", &val, "--net", n]);
    assert!(o.status.success(), "{}", text(&o));
    let fit = stdout(&o);
    let loss_of = |line: &str| -> f64 {
        let v = line.split("loss ").nth(1).and_then(|r| r.split(',').next());
        v.and_then(|v| v.parse().ok())
            .unwrap_or_else(|| panic!("no loss in '{line}'"))
    };
    assert!(
        fit.starts_with(&format!("{n}: loss ")) && fit.contains(&format!("over {n_val} positions")),
        "{fit}"
    );
    let o = rookery(&["data", "loss", &val]);
    assert!(stdout(&o).starts_with("built-in: loss "), "{}", text(&o));
    let (small, built_in) = (loss_of(&fit), loss_of(&stdout(&o)));
    assert!(
        small > 0.0 && small < 0.25 && built_in > 0.0,
        "{small} {built_in}"
    );

    // The engine loads it over UCI, says which evaluation is in use, and plays with it.
    let out = uci(&format!(
        "setoption name EvalFile value {n}\nsetoption name Evaluation value net\neval\n\
         position startpos moves e2e4\ngo depth 6\nisready\nquit\n"
    ));
    assert!(
        out.contains("Net evaluation:") && out.contains("(768 -> 16) x 2 -> 1"),
        "{out}"
    );
    assert!(out.contains("In use: the net"), "{out}");
    assert!(out.contains("bestmove "), "{out}");
    assert!(!out.contains("bestmove 0000"), "{out}");
    // The bench with the net file.
    let o = rookery(&["bench", "4", "--eval", "net", "--net", n]);
    assert!(
        o.status.success() && text(&o).contains("nps"),
        "{}",
        text(&o)
    );
    let total = |o: &Output| text(o).lines().last().map(str::to_string);
    // `--eval` defaults to the net, so `--net` alone is that net; with `--eval hce` it is refused.
    let alone = rookery(&["bench", "4", "--net", n]);
    assert!(alone.status.success(), "{}", text(&alone));
    assert_eq!(
        total(&alone).map(|l| l.split_whitespace().next().map(str::to_string)),
        total(&o).map(|l| l.split_whitespace().next().map(str::to_string))
    );
    // Each instruction set this CPU runs searches the same tree; one it lacks is refused.
    for simd in ["portable", "avx2", "avx512"] {
        let o = rookery(&["bench", "4", "--net", n, "--simd", simd]);
        if o.status.success() {
            assert!(stdout(&o).starts_with(&format!("net inference: {simd}, ")));
            let nodes = |o: &Output| total(o).and_then(|l| l.split(' ').next().map(str::to_string));
            assert_eq!(nodes(&o), nodes(&alone), "{simd}");
        } else {
            assert_eq!(o.status.code(), Some(2), "{simd}");
            assert!(stderr(&o).contains(&format!("this CPU does not run {simd}")));
            assert_ne!(simd, "portable");
        }
    }
    let o = rookery(&["bench", "4", "--eval", "hce", "--net", n]);
    assert_eq!(o.status.code(), Some(2), "--net with --eval hce");
    assert!(text(&o).contains("--net needs --eval net"), "{}", text(&o));
    let _ = std::fs::remove_dir_all(Path::new(&whole).parent().unwrap());
}

#[test]
fn packed_game_logs_give_back_the_data_byte_for_byte_and_the_generator_goes_on_from_them() {
    // Its own directory: the test above removes its own when it ends.
    let root = std::env::temp_dir().join(format!("rookery-logs-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    std::fs::create_dir_all(&root).unwrap();
    let path = |name: &str| root.join(name).to_str().unwrap().to_string();
    let (made, packed, restored, eight) = (
        path("made"),
        path("packed"),
        path("restored"),
        path("eight"),
    );
    assert!(datagen(&made, "4").status.success());
    let o = rookery(&["data", "pack", &made, "--out", &packed]);
    assert_ok_saying(&o, "of 4 games in 1 chunks packed");
    // The packed set holds logs and the manifest, no records, and reads as the same data.
    let names: Vec<String> = std::fs::read_dir(&packed)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(names.iter().all(|n| !n.ends_with(".bin")), "{names:?}");
    assert!(
        names.contains(&"chunk-000000.games".to_string()),
        "{names:?}"
    );
    let made_bytes = chunk_bytes(&made);
    let stats = text(&rookery(&["data", "stats", &packed]));
    assert!(
        stats.contains(&format!("positions: {}", made_bytes.len() / 32)),
        "{stats}"
    );
    // Packed: the coded form, smaller than the generator's plain log even for four games (the
    // coder's models learn as they go: a whole chunk packs far smaller, the test below).
    let log_of = |set: &str| std::fs::read(root.join(set).join("chunk-000000.games")).unwrap();
    let (packed_log, plain_log) = (log_of("packed"), log_of("made"));
    assert!(packed_log.starts_with(b"RKGAMES2") && plain_log.starts_with(b"RKGAMES1"));
    assert!(
        packed_log.len() < plain_log.len(),
        "{} bytes packed, {} plain",
        packed_log.len(),
        plain_log.len()
    );
    // Unpacked: the records, the logs and the manifest as the generator wrote them.
    let o = rookery(&["data", "unpack", &packed, "--out", &restored]);
    assert!(o.status.success(), "{}", text(&o));
    assert_eq!(chunk_bytes(&restored), made_bytes);
    assert_eq!(log_of("restored"), plain_log);
    assert_eq!(
        std::fs::read(root.join("restored/manifest.json")).unwrap(),
        std::fs::read(root.join("made/manifest.json")).unwrap()
    );
    // A copy that holds a chunk as a plain log (packed before logs were coded) keeps it plain,
    // brought up to date as it grows.
    let old_copy = path("old-copy");
    std::fs::create_dir_all(&old_copy).unwrap();
    for name in ["chunk-000000.games", "manifest.json"] {
        std::fs::copy(
            root.join("made").join(name),
            root.join("old-copy").join(name),
        )
        .unwrap();
    }
    let grown = path("grown");
    let o = rookery(&["data", "unpack", &packed, "--out", &grown]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(datagen(&grown, "6").status.success());
    let o = rookery(&["data", "pack", &grown, "--out", &old_copy]);
    assert!(
        o.status.success() && text(&o).contains("of 10 games in 1 chunks packed"),
        "{}",
        text(&o)
    );
    assert_eq!(log_of("old-copy"), log_of("grown"));
    assert!(log_of("old-copy").starts_with(&plain_log));
    // Training filters: plies come from the logs (the packed set and the full one agree), the
    // score from the records; a file of bare records cannot skip plies.
    let filtered = |data: &str, extra: &[&str]| {
        let net = path("filtered.nnue");
        (train_net(data, &net, "8", "1", extra), net)
    };
    let kept = |o: &Output| -> (u64, u64) {
        let t = text(o);
        let line = t.lines().find(|l| l.starts_with("filters (")).unwrap_or("");
        let words: Vec<&str> = line.split("): ").nth(1).unwrap_or("").split(' ').collect();
        let n = |i: usize| words.get(i).and_then(|w| w.parse().ok()).unwrap_or(0);
        (n(0), n(2))
    };
    let all = (made_bytes.len() / 32) as u64;
    let (o, net) = filtered(&packed, &["--skip-plies", "10", "--max-score", "60"]);
    assert!(o.status.success(), "{}", text(&o));
    let (k, read) = kept(&o);
    assert!(
        read == all && k > 0 && k < all,
        "{k} of {read}: {}",
        text(&o)
    );
    let provenance = Network::load(&net).unwrap().provenance;
    assert!(
        provenance.contains("filters: |score| <= 60, 10 plies"),
        "{provenance}"
    );
    let (o, _) = filtered(&made, &["--skip-plies", "10", "--max-score", "60"]);
    assert_eq!(kept(&o), (k, all), "{}", text(&o));
    let (o, _) = filtered(&made, &["--skip-plies", "10"]);
    let (by_ply, _) = kept(&o);
    let (o, _) = filtered(&made, &["--max-score", "60"]);
    let (by_score, _) = kept(&o);
    assert!(by_ply > k && by_score > k && by_ply < all && by_score < all);
    let scores = made_bytes
        .chunks_exact(32)
        .filter(|r| i16::from_le_bytes([r[24], r[25]]).abs() <= 60)
        .count() as u64;
    assert_eq!(by_score, scores);
    let bare = path("bare.bin");
    std::fs::write(&bare, &made_bytes).unwrap();
    let (o, _) = filtered(&bare, &["--skip-plies", "4"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("holds no plies"), "{}", text(&o));
    let (o, _) = filtered(&bare, &["--max-score", "0"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    // Nothing is written over: not the set itself, not a set already there, not another set.
    for (args, says) in [
        (
            ["data", "pack", &made, "--out", &made],
            "the data set itself",
        ),
        (
            ["data", "unpack", &packed, "--out", &restored],
            "holds a data set already",
        ),
        (["data", "pack", &made, "--out", &path("..")], "not empty"),
    ] {
        let o = rookery(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert!(text(&o).contains(says), "{args:?}: {}", text(&o));
    }
    let other = path("other");
    let o = rookery(&[
        "datagen", "--out", &other, "--games", "1", "--nodes", "300", "--seed", "5",
    ]);
    assert!(o.status.success(), "{}", text(&o));
    let o = rookery(&["data", "pack", &other, "--out", &packed]);
    assert!(text(&o).contains("holds another data set"), "{}", text(&o));
    // The generator goes on in the restored set as if it had never left: four more games are
    // the bytes of eight in one run.
    let o = datagen(&restored, "4");
    assert!(text(&o).contains("going on from game 4"), "{}", text(&o));
    assert!(datagen(&eight, "8").status.success());
    assert_eq!(chunk_bytes(&restored), chunk_bytes(&eight));
    assert_eq!(
        std::fs::read(root.join("restored/chunk-000000.games")).unwrap(),
        std::fs::read(root.join("eight/chunk-000000.games")).unwrap()
    );
    // A damaged log is named, and nothing is written from it.
    let log = root.join("packed/chunk-000000.games");
    let mut bytes = std::fs::read(&log).unwrap();
    let n = bytes.len();
    bytes.truncate(n - 3);
    std::fs::write(&log, &bytes).unwrap();
    let o = rookery(&["data", "unpack", &packed, "--out", &path("bad")]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("chunk-000000.games"), "{}", text(&o));
    let o = rookery(&["data", "stats", &packed]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    let o = rookery(&["data", "pack", &path("nowhere"), "--out", &path("p2")]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    // A chunk written before the generator kept logs: the generator starts a new chunk (with
    // its log) and `pack` leaves the old one out, saying so.
    let manifest = root.join("eight/manifest.json");
    let text_m = std::fs::read_to_string(&manifest).unwrap();
    let old: String = text_m
        .lines()
        .filter(|l| !l.contains("\"log_bytes\""))
        .collect::<Vec<_>>()
        .join("\n")
        .replace("\"next_game\": 8,", "\"next_game\": 8");
    std::fs::write(&manifest, old).unwrap();
    std::fs::remove_file(root.join("eight/chunk-000000.games")).unwrap();
    assert!(datagen(&eight, "2").status.success());
    assert!(root.join("eight/chunk-000001.games").exists());
    let o = rookery(&["data", "pack", &eight, "--out", &path("p3")]);
    assert!(
        o.status.success() && text(&o).contains("of 2 games in 1 chunks packed"),
        "{}",
        text(&o)
    );
    assert!(text(&o).contains("1 chunks written before"), "{}", text(&o));
    let _ = std::fs::remove_dir_all(&root);
}

/// Five games as fastchess and OpenBench write them: fastchess's full comments with book moves, a
/// mate score and a mating capture; a game from a FEN with checks, a promotion and Black's
/// scores; a game with an illegal move; an unfinished one; OpenBench's compact form (no move
/// numbers, `{unknown}` where it lost the comment).
const ENGINE_GAMES: &str = r#"[Event "Fastchess Tournament"]
[Site "?"]
[Date "2026.11.26"]
[Round "1"]
[White "rookery-dev"]
[Black "rookery-base"]
[Result "1-0"]
[GameDuration "00:00:01"]
[PlyCount "7"]
[Termination "normal"]
[TimeControl "10+0.1"]
[ECO "C20"]

1. e4 {book} e5 {book} 2. Qh5 {+0.31/12 0.102s, tl=9.898s, latency=0.002s}
Nc6 {-0.45/11 0.095s, tl=9.905s} 3. Bc4 {+0.80/13 0.110s, tl=9.790s}
Nf6 {-M2/18 0.020s, tl=9.885s} 4. Qxf7# {+M1/245 0.001s, tl=9.789s, White mates} 1-0

[Event "Fastchess Tournament"]
[Site "?"]
[Date "2026.11.26"]
[Round "2"]
[White "rookery-dev"]
[Black "rookery-base"]
[Result "1-0"]
[SetUp "1"]
[FEN "4k3/1P6/8/8/8/8/4P3/R3K3 w Q - 0 30"]
[Termination "adjudication"]

30. b8=Q+ {+9.50/18 0.101s, tl=9.899s} Kd7 {-9.60/17 0.099s, tl=9.901s}
31. Qb7+ {+9.70/19 0.100s, tl=9.799s} Ke6 {-9.80/18 0.098s, tl=9.803s}
32. e4 {+10.00/20 0.102s, tl=9.697s}
Kf6 {-10.10/19 0.097s, tl=9.706s, White wins by adjudication} 1-0

[Event "Fastchess Tournament"]
[Round "3"]
[Result "0-1"]

1. e4 {book} e5 {book} 2. Ke3 {+0.10/3 0.010s, tl=9.990s} 0-1

[Event "Fastchess Tournament"]
[Round "4"]
[Result "*"]

1. d4 {book} d5 {book} 2. c4 {+0.25/10 0.050s, tl=9.950s} *

[Event "OpenBench"]
[Site "?"]
[Date "2026.11.26"]
[Round "5"]
[White "Rookery"]
[Black "Rookery"]
[Result "0-1"]
[TimeControl "N=5000"]
[ScaleFactor "1.0"]

f3 {book} e5 {+0.20/10} g4 {unknown} Qh4# {+M1/1, line=info string pgncomment x} 0-1
"#;

#[test]
fn engine_games_in_pgn_become_records_that_train_a_net() {
    use rookery::core::game::parse_fen;
    use rookery::data::Record;
    let pgn = temp("games.pgn");
    std::fs::write(&pgn, ENGINE_GAMES).unwrap();
    let out = temp("imported.bin");
    let o = rookery(&["data", "import", &pgn, "--out", &out]);
    assert!(o.status.success(), "{}", text(&o));
    assert_eq!(
        stdout(&o),
        format!(
            "games: 5 read, 3 used, 1 without a result, 1 bad\n\
             positions: 7 written to {out}\n\
             left out: 4 without a score (book moves), 0 before ply 0, 2 in check, \
             2 captures or promotions, 2 with |score| >= 5000\n"
        )
    );
    // The bad game is named, once, and left out.
    assert_eq!(
        common::cli::stderr(&o),
        format!("warning: {pgn}: game 3: move 'Ke3': illegal in this position, ply 3; left out\n")
    );
    // Each record is the position before the move, the mover's score, the mover's result.
    let records = rookery::data::store::load(&out).unwrap();
    let before = |fen: &str, score, white| Record::new(&parse_fen(fen).unwrap(), score, white);
    let expected = [
        before(
            "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2",
            31,
            1.0,
        ),
        before(
            "rnbqkbnr/pppp1ppp/8/4p2Q/4P3/8/PPPP1PPP/RNB1KBNR b KQkq - 1 2",
            -45,
            1.0,
        ),
        before(
            "r1bqkbnr/pppp1ppp/2n5/4p2Q/4P3/8/PPPP1PPP/RNB1KBNR w KQkq - 2 3",
            80,
            1.0,
        ),
        before("1Q6/3k4/8/8/8/8/4P3/R3K3 w Q - 1 31", 970, 1.0),
        before("8/1Q6/4k3/8/8/8/4P3/R3K3 w Q - 3 32", 1000, 1.0),
        before("8/1Q6/4k3/8/4P3/8/8/R3K3 b Q - 0 32", -1010, 1.0),
        before(
            "rnbqkbnr/pppppppp/8/8/8/5P2/PPPPP1PP/RNBQKBNR b KQkq - 0 1",
            20,
            0.0,
        ),
    ];
    assert_eq!(records, expected);
    // The signs, written out: White's and Black's scores and results as each side sees them.
    let labels: Vec<(i16, u8)> = records.iter().map(|r| (r.score, r.result)).collect();
    assert_eq!(
        labels,
        [
            (31, 2),
            (-45, 0),
            (80, 2),
            (970, 2),
            (1000, 2),
            (-1010, 0),
            (20, 2)
        ]
    );
    // The options: later plies only; or every scored move, mates, checks and captures included.
    let late = temp("late.bin");
    let o = rookery(&["data", "import", &pgn, "--out", &late, "--min-ply", "3"]);
    assert!(
        text(&o).contains("positions: 4 written") && text(&o).contains("5 before ply 3"),
        "{}",
        text(&o)
    );
    let all = temp("all.bin");
    let o = rookery(&[
        "data",
        "import",
        &pgn,
        &pgn,
        "--out",
        &all,
        "--keep-checks",
        "--keep-noisy",
        "--max-score",
        "32767",
    ]);
    assert!(text(&o).contains("games: 10 read, 6 used"), "{}", text(&o));
    assert!(text(&o).contains("positions: 26 written"), "{}", text(&o));
    let every = rookery::data::store::load(&all).unwrap();
    let mates: Vec<i16> = every[..13]
        .iter()
        .filter(|r| r.score.unsigned_abs() > 20_000)
        .map(|r| r.score)
        .collect();
    assert_eq!(
        mates,
        [-29_998, 29_999, 29_999],
        "mated in 2, mates in 1, twice"
    );

    // The data tools and the trainer read it as they read converted EPD.
    let o = rookery(&["data", "stats", &out]);
    assert!(
        o.status.success() && text(&o).contains("positions: 7\n"),
        "{}",
        text(&o)
    );
    assert!(text(&o).contains("win 5 (71.4%)"), "{}", text(&o));
    let net = temp("imported.nnue");
    let o = train_net(&out, &net, "16", "1", &["--threads", "1"]);
    assert_ok_saying(&o, "epoch 1/1");
    assert!(Network::load(&net).is_ok());

    // Bad input: one line, exit 2, nothing written.
    let bad = |name: &str, bytes: &[u8]| {
        let path = temp(name);
        std::fs::write(&path, bytes).unwrap();
        path
    };
    let only_illegal = bad("illegal.pgn", b"[Result \"1-0\"]\n\n1. e4 e5 2. Ke3 1-0\n");
    for (file, says) in [
        (temp("missing.pgn"), "missing.pgn"),
        (bad("empty.pgn", b""), "no games in it"),
        (
            bad("prose.pgn", b"Dear reader,\nthis is a letter.\n"),
            "game 1: move 'Dear'",
        ),
        (only_illegal, "game 1: move 'Ke3': illegal in this position"),
        (
            bad("binary.pgn", &[0x52, 0x4b, 0, 1, 2, 0xff]),
            "binary.pgn",
        ),
    ] {
        let nothing = temp("nothing.bin");
        let o = rookery(&["data", "import", &pgn, &file, "--out", &nothing]);
        let err = common::cli::stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{file}: {}", text(&o));
        assert_eq!(err.lines().count(), 1, "{file}: {err}");
        assert!(err.starts_with("error: ") && err.contains(says), "{err}");
        assert!(!Path::new(&nothing).exists(), "{file}");
    }
}

/// `rookery train` on `data` into `net`, small and quick (batches of 128, one thread, a
/// learning rate of 0.005), with the options `more`.
fn train_small(data: &str, net: &str, more: &[&str]) -> std::process::Output {
    train_small_at(data, net, "0.005", more)
}

/// `train_small` at the learning rate `lr`.
fn train_small_at(data: &str, net: &str, lr: &str, more: &[&str]) -> std::process::Output {
    let mut args = vec![
        "train",
        "--data",
        data,
        "--out",
        net,
        "--batch",
        "128",
        "--threads",
        "1",
        "--lr",
        lr,
    ];
    args.extend_from_slice(more);
    rookery(&args)
}

/// Records of the perft suite's positions and those a move below, scored by material, in a
/// file `name` of the test's temporary directory.
fn material_records(name: &str) -> String {
    use shakmaty::Position;
    let values = [100, 300, 300, 500, 900, 0];
    let mut records = Vec::new();
    for line in include_str!("data/standard.epd").lines() {
        let Some(fen) = line.split(';').next().filter(|f| !f.starts_with('#')) else {
            continue;
        };
        let Ok(game) = Game::from_fen(fen.trim()) else {
            continue;
        };
        for m in game.position().legal_moves() {
            let mut pos = game.position().clone();
            pos.play_unchecked(m);
            let score: i32 = pos
                .board()
                .iter()
                .map(|(_, p)| {
                    values[p.role as usize - 1] * if p.color == pos.turn() { 1 } else { -1 }
                })
                .sum();
            records.push(rookery::data::Record::new(&pos, score, 0.5));
        }
    }
    assert!(records.len() > 1000, "{}", records.len());
    let data = temp(name);
    std::fs::write(&data, rookery::data::records_to_bytes(&records)).unwrap();
    data
}

/// `train --layers L1,L2`: a net with a deep head trains from records, is written in the net
/// file's newest version, loads with its head and says it, and the engine searches with it;
/// sizes the format does not allow and a resumed run with other sizes are each refused in one
/// line, and the net stays as it was.
#[test]
fn a_net_with_a_deep_head_trains_loads_and_plays() {
    let data = material_records("deep-data.bin");
    let net = temp("deep.nnue");
    let train = |more: &[&str]| train_small(&data, &net, &[&["--buckets", "2"], more].concat());
    let o = train(&["--epochs", "2", "--hidden", "32", "--layers", "8,4"]);
    assert_ok_saying(&o, "(768 -> 32) x 2 -> 8 -> 4 -> 1");
    let bytes = std::fs::read(&net).unwrap();
    assert_eq!(&bytes[4..8], &4u32.to_le_bytes());
    let loaded = Network::load(&net).unwrap();
    assert_eq!(
        loaded.architecture(),
        "(768 -> 32) x 2 -> 8 -> 4 -> 1 x 2 buckets, SCReLU"
    );
    assert!(
        loaded.provenance.contains("deep layers: 8, 4"),
        "{}",
        loaded.provenance
    );
    // The first deep layer's scale was chosen on the validation positions and is named.
    let ql1 = loaded.deep().unwrap().ql1;
    assert!(
        loaded.provenance.contains(&format!(
            "first deep layer scale: {ql1}, chosen on the validation positions"
        )),
        "{}",
        loaded.provenance
    );
    let ckpt = format!("{net}.ckpt");
    for (more, says) in [
        (
            vec!["--epochs", "1", "--hidden", "32", "--layers", "12,4"],
            "--layers 12,4 with --hidden 32: deep layers of 12 and 4",
        ),
        (
            vec!["--epochs", "1", "--hidden", "20", "--layers", "8,4"],
            "--layers 8,4 with --hidden 20",
        ),
        (
            vec!["--epochs", "1", "--hidden", "32", "--layers", "8"],
            "--layers takes two sizes, L1,L2",
        ),
        (
            vec![
                "--epochs", "3", "--hidden", "32", "--layers", "16,4", "--resume", &ckpt,
            ],
            "deep layers 8,4), not 32 (SCReLU, 2 output buckets, inputs plain, deep layers 16,4)",
        ),
        (
            vec!["--epochs", "3", "--hidden", "32", "--resume", &ckpt],
            "deep layers 8,4), not 32 (SCReLU, 2 output buckets, inputs plain)",
        ),
    ] {
        refused_in_one_line(&train(&more), &more, says);
    }
    assert_eq!(std::fs::read(&net).unwrap(), bytes);
    let o = train(&[
        "--epochs", "3", "--hidden", "32", "--layers", "8,4", "--resume", &ckpt,
    ]);
    assert!(text(&o).contains("going on from epoch 2"), "{}", text(&o));
    let trained = validation_loss(&o);
    // `--init`: a run from the written net's weights, at a learning rate too small to move it,
    // ends where that net stands, not where a run from random weights does, and says where it
    // started.
    let from = |out: &str, more: &[&str]| {
        let shape = ["--epochs", "1", "--hidden", "32", "--buckets", "2"];
        train_small_at(&data, out, "0.00001", &[&shape[..], more].concat())
    };
    let fresh = temp("deep-fresh.nnue");
    let started = temp("deep-init.nnue");
    let random = validation_loss(&from(&fresh, &["--layers", "8,4"]));
    let o = from(&started, &["--layers", "8,4", "--init", &net]);
    assert!(
        text(&o).contains(&format!("starting from the weights of {net}")),
        "{}",
        text(&o)
    );
    let init = validation_loss(&o);
    assert!(
        random > trained && (init - trained).abs() < (random - trained) / 20.0,
        "from the net {init}, the net itself {trained}, from random weights {random}"
    );
    let provenance = Network::load(&started).unwrap().provenance;
    assert!(
        provenance.contains(&format!("started from: {net}")),
        "{provenance}"
    );
    // A net of another shape is refused in one line, and nothing is written.
    let before = std::fs::read(&started).unwrap();
    let more = ["--layers", "16,4", "--init", &net];
    refused_in_one_line(
        &from(&started, &more),
        &more,
        "a net of 32 hidden (SCReLU, 2 output buckets, inputs plain, deep layers 8,4), not 32 (SCReLU, 2 output buckets, inputs plain, deep layers 16,4)",
    );
    assert_eq!(std::fs::read(&started).unwrap(), before);
    // King buckets start from a net without them only if it mirrors as they do.
    let more = ["--layers", "8,4", "--inputs", "mirror-kb4", "--init", &net];
    refused_in_one_line(
        &from(&started, &more),
        &more,
        "its inputs (plain) cannot start the king buckets of mirror-kb4",
    );
    assert_eq!(std::fs::read(&started).unwrap(), before);
    // A trained mirrored net spread over four king buckets (factorised) starts where the net
    // stands: at a learning rate too small to move it, its validation loss is the net's own,
    // far from a random net's.
    let mirrored = temp("deep-mirror.nnue");
    let own = validation_loss(&train_small(
        &data,
        &mirrored,
        &[
            "--epochs",
            "2",
            "--hidden",
            "32",
            "--buckets",
            "2",
            "--layers",
            "8,4",
            "--inputs",
            "mirror",
        ],
    ));
    let kb4 = temp("deep-kb4.nnue");
    let more = [
        "--layers",
        "8,4",
        "--inputs",
        "mirror-kb4",
        "--factorise",
        "--init",
        &mirrored,
    ];
    let o = from(&kb4, &more);
    assert!(
        text(&o).contains("its feature rows in each of 4 king buckets"),
        "{}",
        text(&o)
    );
    let spread = validation_loss(&o);
    assert!(
        random - own > (random - trained) / 2.0 && (spread - own).abs() < (random - own) / 20.0,
        "spread over king buckets {spread}, the mirrored net {own}, a random one {random}"
    );
    // The engine loads it over UCI, names its head, and plays with it.
    plays_over_uci(&net, "x 2 -> 8 -> 4 -> 1");
}

/// The validation loss a training run's last line names: `... (validation loss X); ...`.
fn validation_loss(o: &std::process::Output) -> f64 {
    let out = text(o);
    let at = out.rfind("(validation loss ").expect("a validation loss") + 17;
    out[at..]
        .split(')')
        .next()
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("{out}"))
}

/// `train --layers L1,L2 --paired`: a net whose deep head reads pairs' products trains, is
/// written as version 5, loads and plays; `--paired` without a head, and a resumed run that
/// changes it, are refused in one line.
#[test]
fn a_paired_deep_head_trains_loads_and_plays() {
    let data = material_records("paired-data.bin");
    let net = temp("paired.nnue");
    let train = |more: &[&str]| train_small(&data, &net, &[&["--buckets", "2"], more].concat());
    let o = train(&[
        "--epochs", "2", "--hidden", "64", "--layers", "8,4", "--paired",
    ]);
    assert_ok_saying(&o, "(768 -> 64) x 2 -> 64 paired -> 8 -> 4 -> 1");
    let bytes = std::fs::read(&net).unwrap();
    assert_eq!(&bytes[4..8], &5u32.to_le_bytes());
    let loaded = Network::load(&net).unwrap();
    assert_eq!(
        loaded.architecture(),
        "(768 -> 64) x 2 -> 64 paired -> 8 -> 4 -> 1 x 2 buckets, SCReLU"
    );
    assert!(loaded.deep().unwrap().paired);
    assert!(
        loaded.provenance.contains("deep layers: 8, 4 (paired)"),
        "{}",
        loaded.provenance
    );
    let ckpt = format!("{net}.ckpt");
    for (more, says) in [
        (
            vec!["--epochs", "1", "--hidden", "64", "--paired"],
            "--paired needs a deep head (--layers L1,L2)",
        ),
        (
            vec![
                "--epochs", "3", "--hidden", "64", "--layers", "8,4", "--resume", &ckpt,
            ],
            "deep layers 8,4 paired), not 64 (SCReLU, 2 output buckets, inputs plain, deep layers 8,4)",
        ),
    ] {
        refused_in_one_line(&train(&more), &more, says);
    }
    assert_eq!(std::fs::read(&net).unwrap(), bytes);
    plays_over_uci(&net, "x 2 -> 64 paired -> 8 -> 4 -> 1");
}

/// The engine loads `net` by `EvalFile`, says `says` in its `eval`, and plays a legal move
/// with it.
fn plays_over_uci(net: &str, says: &str) {
    let out = uci(&format!(
        "setoption name EvalFile value {net}\neval\nposition startpos moves e2e4 e7e5 e1e2\n\
         go depth 7\nisready\nquit\n"
    ));
    assert!(out.contains(says), "{out}");
    assert!(
        out.contains("bestmove ") && !out.contains("bestmove 0000"),
        "{out}"
    );
}

/// A training run refused in one line (`error: ...`, saying `says`), exit 2: a resumed run
/// says what it loaded before it reads the checkpoint, so the error is the last line.
fn refused_in_one_line(o: &std::process::Output, more: &[&str], says: &str) {
    let err = common::cli::stderr(o);
    assert_eq!(o.status.code(), Some(2), "{more:?}: {}", text(o));
    let errors: Vec<&str> = err.lines().filter(|l| l.starts_with("error")).collect();
    assert_eq!(errors.len(), 1, "{err}");
    assert!(
        err.trim_end().ends_with(errors[0]) && errors[0].contains(says),
        "{err}"
    );
}

/// `train --inputs mirror-kb4`: a net of king buckets and mirroring trains from records, loads
/// with its layout, says it, and the engine searches with it; a resumed run with another layout,
/// mirror images with a mirrored layout and an unknown layout are each refused in one line.
#[test]
fn a_net_with_king_buckets_and_mirroring_trains_loads_and_plays() {
    use shakmaty::Position;
    let data = material_records("layout-data.bin");
    let net = temp("kb4.nnue");
    let train = |more: &[&str]| train_small(&data, &net, &[&["--hidden", "16"], more].concat());
    let o = train(&["--epochs", "2", "--inputs", "mirror-kb4"]);
    assert_ok_saying(&o, "inputs mirror-kb4: mirrored, 4 king buckets");
    let loaded = Network::load(&net).unwrap();
    assert_eq!(
        *loaded.layout(),
        rookery::nnue::InputLayout::preset("mirror-kb4").unwrap()
    );
    assert_eq!(
        loaded.architecture(),
        "(768 x 4 -> 16) x 2 -> 1, SCReLU, inputs mirror-kb4: mirrored, 4 king buckets"
    );
    assert!(
        loaded.provenance.contains("inputs: mirror-kb4"),
        "{}",
        loaded.provenance
    );
    // The net reads a position and its mirror image alike.
    let a = Game::from_fen("4k3/1pp5/8/8/3N4/8/PP6/1K6 w - - 0 1").unwrap();
    let b = Game::from_fen("3k4/5pp1/8/8/4N3/8/6PP/6K1 w - - 0 1").unwrap();
    let score = |g: &Game| loaded.evaluate_board(g.position().board(), g.position().turn());
    assert_eq!(score(&a), score(&b));

    // Going on from the checkpoint with another layout, or mirror images with a mirrored
    // layout, or a layout of no name: one line each, exit 2, and the net stays as it was.
    let ckpt = format!("{net}.ckpt");
    let resume_factorised = vec![
        "--epochs",
        "3",
        "--inputs",
        "mirror-kb4",
        "--factorise",
        "--resume",
        &ckpt,
    ];
    let before = std::fs::read(&net).unwrap();
    for (more, says) in [
        (
            vec!["--epochs", "3", "--resume", &ckpt],
            "inputs mirror-kb4: mirrored, 4 king buckets), not 16 (SCReLU, 1 output buckets, inputs plain)",
        ),
        (
            vec!["--epochs", "3", "--inputs", "mirror-kb8", "--resume", &ckpt],
            "inputs mirror-kb8",
        ),
        (
            vec!["--epochs", "1", "--inputs", "mirror", "--mirror"],
            "--mirror needs --inputs plain",
        ),
        (
            vec!["--epochs", "1", "--inputs", "kb99"],
            "unknown input layout 'kb99' (plain, mirror, mirror-kb4, mirror-kb8)",
        ),
        (
            vec!["--epochs", "1", "--inputs", "mirror", "--factorise"],
            "--factorise needs king buckets",
        ),
        (
            resume_factorised.clone(),
            "inputs mirror-kb4: mirrored, 4 king buckets), not 16 (SCReLU, 1 output buckets, inputs mirror-kb4: mirrored, 4 king buckets, factorised)",
        ),
    ] {
        refused_in_one_line(&train(&more), &more, says);
    }
    assert_eq!(std::fs::read(&net).unwrap(), before);
    // The same layout goes on.
    let o = train(&["--epochs", "3", "--inputs", "mirror-kb4", "--resume", &ckpt]);
    assert!(text(&o).contains("going on from epoch 2"), "{}", text(&o));
    assert_eq!(Network::load(&net).unwrap().layout(), loaded.layout());

    // Factorised: the same layout in the file (the shared rows added into the buckets'), the
    // training named in the provenance; its checkpoint goes on only factorised.
    let o = train(&["--epochs", "2", "--inputs", "mirror-kb4", "--factorise"]);
    assert_ok_saying(&o, "4 king buckets, factorised");
    let factorised = Network::load(&net).unwrap();
    assert_eq!(factorised.layout(), loaded.layout());
    assert_eq!(factorised.architecture(), loaded.architecture());
    assert!(
        factorised
            .provenance
            .contains("inputs: mirror-kb4: mirrored, 4 king buckets (trained factorised)"),
        "{}",
        factorised.provenance
    );
    assert_eq!(score(&a), score(&b));
    let fa = |g: &Game| factorised.evaluate_board(g.position().board(), g.position().turn());
    assert_eq!(fa(&a), fa(&b));
    let o = train(&["--epochs", "3", "--inputs", "mirror-kb4", "--resume", &ckpt]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains(", factorised), not 16"), "{}", text(&o));
    let o = train(&resume_factorised);
    assert!(text(&o).contains("going on from epoch 2"), "{}", text(&o));

    // The engine loads it over UCI, names its layout, and plays with it.
    plays_over_uci(&net, "inputs mirror-kb4");
}

#[test]
fn a_bad_net_file_is_named_and_the_net_in_use_stays() {
    let cut = temp("cut.nnue");
    let good = Network::default_net().to_bytes();
    std::fs::write(&cut, &good[..good.len() / 2]).unwrap();
    let out = uci(&format!(
        "uci\nsetoption name Evaluation value net\nsetoption name EvalFile value {}\n\
         setoption name EvalFile value /no/such/file.nnue\nsetoption name Evaluation value neural\n\
         eval\nposition startpos\ngo depth 4\nisready\nquit\n",
        cut
    ));
    assert!(
        out.contains("option name Evaluation type combo default net var net var hce"),
        "{out}"
    );
    assert!(out.contains("option name EvalFile type string"), "{out}");
    assert!(
        out.contains("info string") && out.contains("cut short"),
        "{out}"
    );
    assert!(out.contains("/no/such/file.nnue"), "{out}");
    assert!(out.contains("'neural' is not one of net, hce"), "{out}");
    assert!(
        out.contains("built-in net") && out.contains("In use: the net"),
        "{out}"
    );
    assert!(
        out.contains("bestmove ") && out.contains("readyok"),
        "{out}"
    );
    let o = rookery(&[
        "datagen",
        "--out",
        &temp("x"),
        "--games",
        "1",
        "--eval",
        "net",
        "--net",
        &cut,
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o).contains("cut short"), "{}", text(&o));
}

/// Searches with the net: in test builds every evaluation checks its incrementally updated
/// accumulators against a refresh (a debug assertion), through captures, castling, en passant,
/// promotions and null moves.
#[test]
fn searches_with_the_net_keep_their_accumulators_exact() {
    let mut engine = Rookery::new(1);
    engine
        .configure(&Settings {
            eval: Evaluation::Net(Network::default_net()),
            ..Settings::default()
        })
        .unwrap();
    for fen in [
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
        "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
        "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
    ] {
        let game = Game::from_fen(fen).unwrap();
        let a = engine.analyse(&game, &Limits::depth(9));
        assert!(a.best.is_some() && a.nodes > 1000, "{fen}");
    }
    // The hand-crafted evaluation and the net disagree somewhere: the setting is in force.
    let game =
        Game::from_fen("r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4")
            .unwrap();
    engine.new_game();
    let with_net = engine.analyse(&game, &Limits::depth(6)).nodes;
    engine
        .configure(&Settings {
            eval: Evaluation::Hce,
            ..Settings::default()
        })
        .unwrap();
    let with_hce = engine.analyse(&game, &Limits::depth(6)).nodes;
    assert_ne!(with_net, with_hce);
    // The default settings are the built-in net's.
    engine.configure(&Settings::default()).unwrap();
    engine.new_game();
    assert_eq!(engine.analyse(&game, &Limits::depth(6)).nodes, with_net);
}

/// The net is the default; the rung `rookery-hce` and the weakened engine (`UCI_Elo` was measured
/// on it) search with the hand-crafted evaluation whatever the settings ask for.
#[test]
fn the_net_is_the_default_and_the_hand_crafted_evaluation_stays_where_it_is_asked_for() {
    let game =
        Game::from_fen("r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4")
            .unwrap();
    let nodes = |engine: &mut dyn Engine, settings: &Settings| {
        engine.configure(settings).unwrap();
        engine.new_game();
        let a = engine.analyse(&game, &Limits::depth(6));
        (a.nodes, a.best)
    };
    let net = Settings::default();
    let hce = Settings {
        eval: Evaluation::Hce,
        ..Settings::default()
    };
    assert_eq!(net.eval, Evaluation::builtin_net());
    let default = nodes(&mut Rookery::new(1), &net);
    let hand_crafted = nodes(&mut Rookery::new(1), &hce);
    assert_ne!(default.0, hand_crafted.0);
    let options = rookery::engine::EngineOptions::default();
    let mut rung = rookery::registry::create("rookery-hce", &options).unwrap();
    assert_eq!(rung.name(), "rookery-hce");
    assert_eq!(nodes(rung.as_mut(), &net), hand_crafted);
    let mut top = rookery::registry::create("rookery", &options).unwrap();
    assert_eq!(nodes(top.as_mut(), &net), default);
    assert_eq!(nodes(top.as_mut(), &hce), hand_crafted);
    // Weakened: the same choices and node counts whichever evaluation is set.
    let weak = |eval: Evaluation| Settings {
        limit_elo: Some(1400),
        eval,
        ..Settings::default()
    };
    let a = nodes(&mut Rookery::new(5), &weak(Evaluation::builtin_net()));
    let b = nodes(&mut Rookery::new(5), &weak(Evaluation::Hce));
    assert_eq!(a, b);
}

/// A data set of the repository, unpacked and packed again: at most three bytes a position in
/// the coded form, and unpacked from it, the plain logs and records it came from.
#[test]
fn a_self_play_set_packs_within_three_bytes_a_position_and_back() {
    let root = std::env::temp_dir().join(format!("rookery-dense-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    let path = |name: &str| root.join(name).to_str().unwrap().to_string();
    let o = rookery(&[
        "data",
        "unpack",
        "data/selfplay/gen6-b",
        "--out",
        &path("plain"),
    ]);
    assert!(o.status.success(), "{}", text(&o));
    let o = rookery(&["data", "pack", &path("plain"), "--out", &path("dense")]);
    assert!(o.status.success(), "{}", text(&o));
    let t = text(&o);
    let per_position: f64 = t
        .split(" bytes a position")
        .next()
        .and_then(|s| s.rsplit(' ').next())
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("{t}"));
    assert!(per_position <= 3.0, "{t}");
    let o = rookery(&["data", "unpack", &path("dense"), "--out", &path("back")]);
    assert!(o.status.success(), "{}", text(&o));
    for entry in std::fs::read_dir(root.join("plain")).unwrap() {
        let name = entry.unwrap().file_name();
        assert!(
            std::fs::read(root.join("plain").join(&name)).unwrap()
                == std::fs::read(root.join("back").join(&name)).unwrap(),
            "{name:?} differs"
        );
    }
    let _ = std::fs::remove_dir_all(&root);
}

#[test]
fn the_self_play_data_in_the_repository_reads_back_as_its_manifest_counts() {
    let mut sets = 0;
    for entry in std::fs::read_dir("data/selfplay").expect("data/selfplay holds the data sets") {
        let dir = entry.unwrap().path();
        let manifest: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(dir.join("manifest.json")).unwrap())
                .unwrap();
        let chunks = manifest["chunks"].as_array().unwrap();
        let counted: u64 = chunks
            .iter()
            .map(|c| c["positions"].as_u64().unwrap())
            .sum();
        for c in chunks {
            let log = dir.join(c["file"].as_str().unwrap().replace(".bin", ".games"));
            assert!(
                !log.with_extension("bin").exists(),
                "records are not kept here"
            );
            let len = std::fs::metadata(&log)
                .unwrap_or_else(|e| panic!("{}: {e}", log.display()))
                .len();
            assert_eq!(len, c["log_bytes"].as_u64().unwrap(), "{}", log.display());
        }
        // Chunk by chunk, so the test holds one chunk's records at a time however large the
        // data set grows; each chunk's positions and games are checked against the manifest.
        let mut replayed = 0u64;
        rookery::data::store::for_each_chunk(dir.to_str().unwrap(), |records| {
            // The generator's rules hold: no decided scores, more than four pieces.
            assert!(
                records
                    .iter()
                    .all(|r| i32::from(r.score).abs() < 5_000 && r.piece_count() > 4)
            );
            replayed += records.len() as u64;
        })
        .unwrap();
        assert_eq!(replayed, counted, "{}", dir.display());
        assert!(counted > 0);
        sets += 1;
    }
    assert!(sets >= 1, "no data set in data/selfplay");
}

#[test]
fn datagen_records_the_verification_and_a_soft_limit_and_refuses_other_settings() {
    let dir = temp("verified");
    let checked = ["--soft-nodes", "--verify", "--verify-nodes", "300"];
    let o = datagen_with(&dir, "2", &checked);
    assert_ok_saying(&o, "openings rejected by the verification");
    let manifest = std::fs::read_to_string(Path::new(&dir).join("manifest.json")).unwrap();
    assert!(
        manifest.contains("soft nodes 400, hard nodes 3200")
            && manifest.contains("verify 1000 cp at 300 nodes"),
        "{manifest}"
    );
    // The seed's games go on only under the settings they were played with.
    let before = chunk_bytes(&dir);
    assert!(!before.is_empty());
    for other in [
        &[][..],
        &["--soft-nodes"][..],
        &["--verify", "--verify-nodes", "300"][..],
        &["--soft-nodes", "--verify", "500", "--verify-nodes", "300"][..],
    ] {
        let o = datagen_with(&dir, "1", other);
        assert!(!o.status.success(), "{other:?}: {}", text(&o));
        assert!(text(&o).contains("seed 4"), "{other:?}: {}", text(&o));
        assert_eq!(chunk_bytes(&dir), before, "{other:?}");
    }
    let o = datagen_with(&dir, "1", &checked);
    assert!(text(&o).contains("going on from game 2"), "{}", text(&o));
    // Bad settings: one line, exit 2, nothing written.
    for (bad, says) in [
        (
            &["--soft-nodes", "--hard-nodes", "100"][..],
            "--hard-nodes 100",
        ),
        (&["--hard-nodes", "5000"][..], "--soft-nodes"),
        (
            &["--verify", "0", "--verify-nodes", "0"][..],
            "--verify-nodes",
        ),
        (&["--verify=-5"][..], "--verify -5"),
    ] {
        let o = datagen_with(&temp("bad-settings"), "1", bad);
        assert_eq!(o.status.code(), Some(2), "{bad:?}: {}", text(&o));
        assert!(text(&o).contains(says), "{bad:?}: {}", text(&o));
    }
    assert!(
        !Path::new(&temp("bad-settings"))
            .join("manifest.json")
            .exists()
    );
}
