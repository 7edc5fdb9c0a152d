//! `rookery fake-engine` (test only, marked so in `--help`): a tiny scripted engine that speaks
//! UCI or xboard and misbehaves on request, so the match runner's failure paths can be tested
//! with a real process.
//! It always plays the first legal move in shakmaty's order.

use std::io::{BufRead, Write};
use std::time::Duration;

use clap::Args;
use shakmaty::{Chess, Position};

use crate::core::game::{parse_fen, parse_move, uci};

#[derive(Args, Debug)]
pub struct FakeArgs {
    /// uci or xboard
    #[arg(long, default_value = "uci")]
    pub proto: String,
    /// ok (legal moves), crash (exits when asked to move), hang (never answers a move),
    /// illegal (answers an illegal move), flag (thinks past its clock)
    #[arg(long, default_value = "ok")]
    pub mode: String,
}

pub fn run(args: FakeArgs) -> Result<i32, crate::Error> {
    let stdin = std::io::stdin();
    let mut out = std::io::stdout();
    let mut pos = Chess::default();
    let mut my_time_ms: u64 = 1000;
    let xboard = args.proto == "xboard";
    let mut force = true;
    let say = |out: &mut std::io::Stdout, s: &str| {
        let _ = writeln!(out, "{s}");
        let _ = out.flush();
    };
    for line in stdin.lock().lines() {
        let Ok(line) = line else { break };
        let words: Vec<&str> = line.split_whitespace().collect();
        let Some(&cmd) = words.first() else { continue };
        let mut must_move = false;
        match (xboard, cmd) {
            (_, "quit") => break,
            (false, "uci") => {
                say(&mut out, "id name Fake");
                say(&mut out, "uciok");
            }
            (false, "isready") => say(&mut out, "readyok"),
            (false, "position") => {
                let moves_at = words.iter().position(|&w| w == "moves");
                let head = &words[1..moves_at.unwrap_or(words.len())];
                pos = if head.first() == Some(&"fen") {
                    parse_fen(&head[1..].join(" ")).unwrap_or_default()
                } else {
                    Chess::default()
                };
                for m in moves_at.map_or(&[][..], |i| &words[i + 1..]) {
                    if let Ok(mv) = parse_move(&pos, m) {
                        pos.play_unchecked(mv);
                    }
                }
            }
            (false, "go") => {
                let key = if pos.turn().is_white() {
                    "wtime"
                } else {
                    "btime"
                };
                if let Some(i) = words.iter().position(|&w| w == key) {
                    my_time_ms = words
                        .get(i + 1)
                        .and_then(|w| w.parse().ok())
                        .unwrap_or(1000);
                }
                must_move = true;
            }
            (true, "protover") => say(
                &mut out,
                "feature usermove=1 setboard=1 ping=1 myname=\"Fake\" done=1",
            ),
            (true, "ping") => say(&mut out, &format!("pong {}", words.get(1).unwrap_or(&""))),
            (true, "new") => {
                pos = Chess::default();
                force = false;
            }
            (true, "force") => force = true,
            (true, "setboard") => pos = parse_fen(&words[1..].join(" ")).unwrap_or_default(),
            (true, "time") => {
                my_time_ms = words
                    .get(1)
                    .and_then(|w| w.parse::<u64>().ok())
                    .unwrap_or(100)
                    * 10;
            }
            (true, "usermove") => {
                if let Some(mv) = words.get(1).and_then(|m| parse_move(&pos, m).ok()) {
                    pos.play_unchecked(mv);
                    must_move = !force;
                }
            }
            (true, "go") => {
                force = false;
                must_move = true;
            }
            _ => {}
        }
        if !must_move {
            continue;
        }
        match args.mode.as_str() {
            "crash" => std::process::exit(3),
            "hang" => loop {
                std::thread::sleep(Duration::from_secs(3600));
            },
            "flag" => std::thread::sleep(Duration::from_millis(my_time_ms + 500)),
            _ => {}
        }
        let text = if args.mode == "illegal" {
            "a1a1".to_string()
        } else {
            match pos.legal_moves().first() {
                Some(&m) => {
                    pos.play_unchecked(m);
                    uci(m)
                }
                None => "(none)".into(),
            }
        };
        if xboard {
            say(&mut out, &format!("1 0 0 1 {text}"));
            say(&mut out, &format!("move {text}"));
        } else {
            say(&mut out, "info depth 1 score cp 0 nodes 1");
            say(&mut out, &format!("bestmove {text}"));
        }
    }
    Ok(0)
}
