//! UCI commands as types. Parsing never fails silently: every malformed command becomes a
//! `UciError` that the loop answers with `info string` before going on.

use std::fmt;

/// `go` parameters as given (moves still as text: they need the position to be read).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Go {
    pub wtime: Option<i64>,
    pub btime: Option<i64>,
    pub winc: Option<i64>,
    pub binc: Option<i64>,
    pub movestogo: Option<u32>,
    pub depth: Option<u32>,
    pub nodes: Option<u64>,
    pub mate: Option<u32>,
    pub movetime: Option<u64>,
    pub infinite: bool,
    pub ponder: bool,
    pub searchmoves: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    Uci,
    Debug(bool),
    IsReady,
    SetOption {
        name: String,
        value: Option<String>,
    },
    UciNewGame,
    /// `fen: None` is the start position.
    Position {
        fen: Option<String>,
        moves: Vec<String>,
    },
    Go(Go),
    Stop,
    PonderHit,
    Quit,
    /// Extras engine users rely on.
    Display,
    Eval,
    Bench(Option<u32>),
    Perft(u32),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum UciError {
    Unknown(String),
    Malformed {
        command: &'static str,
        reason: String,
    },
}

impl fmt::Display for UciError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            UciError::Unknown(word) => write!(f, "unknown command '{word}'"),
            UciError::Malformed { command, reason } => write!(f, "malformed '{command}': {reason}"),
        }
    }
}

fn malformed(command: &'static str, reason: impl Into<String>) -> UciError {
    UciError::Malformed {
        command,
        reason: reason.into(),
    }
}

fn number<T: std::str::FromStr>(
    command: &'static str,
    key: &str,
    value: Option<&str>,
) -> Result<T, UciError> {
    let v = value.ok_or_else(|| malformed(command, format!("'{key}' needs a value")))?;
    v.parse()
        .map_err(|_| malformed(command, format!("'{key} {v}' is not a number in range")))
}

/// Parses one input line; `Ok(None)` for a blank line.
pub fn parse(line: &str) -> Result<Option<Command>, UciError> {
    let mut words = line.split_whitespace();
    let Some(first) = words.next() else {
        return Ok(None);
    };
    let rest: Vec<&str> = words.collect();
    let cmd = match first {
        "uci" => Command::Uci,
        "debug" => Command::Debug(rest.first() == Some(&"on")),
        "isready" => Command::IsReady,
        "ucinewgame" => Command::UciNewGame,
        "stop" => Command::Stop,
        "ponderhit" => Command::PonderHit,
        "quit" => Command::Quit,
        "d" => Command::Display,
        "eval" => Command::Eval,
        "bench" => Command::Bench(match rest.first() {
            Some(d) => Some(number("bench", "depth", Some(d))?),
            None => None,
        }),
        "perft" => Command::Perft(number("perft", "depth", rest.first().copied())?),
        "setoption" => parse_setoption(&rest)?,
        "position" => parse_position(&rest)?,
        "go" => Command::Go(parse_go(&rest)?),
        other => return Err(UciError::Unknown(other.to_string())),
    };
    Ok(Some(cmd))
}

fn parse_setoption(words: &[&str]) -> Result<Command, UciError> {
    if words.first() != Some(&"name") {
        return Err(malformed(
            "setoption",
            "expected 'setoption name <name> [value <value>]'",
        ));
    }
    let value_at = words.iter().position(|w| *w == "value");
    let name_words = &words[1..value_at.unwrap_or(words.len())];
    if name_words.is_empty() {
        return Err(malformed("setoption", "the option name is missing"));
    }
    let value = value_at.map(|i| words[i + 1..].join(" "));
    Ok(Command::SetOption {
        name: name_words.join(" "),
        value,
    })
}

fn parse_position(words: &[&str]) -> Result<Command, UciError> {
    let moves_at = words.iter().position(|w| *w == "moves");
    let moves: Vec<String> = moves_at
        .map(|i| words[i + 1..].iter().map(|s| s.to_string()).collect())
        .unwrap_or_default();
    let setup = &words[..moves_at.unwrap_or(words.len())];
    let fen = match setup.first() {
        Some(&"startpos") if setup.len() == 1 => None,
        Some(&"fen") if setup.len() > 1 => Some(setup[1..].join(" ")),
        Some(&"fen") => return Err(malformed("position", "'fen' needs a FEN")),
        _ => {
            return Err(malformed(
                "position",
                "expected 'position startpos|fen <FEN> [moves ...]'",
            ));
        }
    };
    Ok(Command::Position { fen, moves })
}

fn parse_go(words: &[&str]) -> Result<Go, UciError> {
    let mut go = Go::default();
    let mut i = 0;
    while i < words.len() {
        let key = words[i];
        let value = words.get(i + 1).copied();
        match key {
            "infinite" => go.infinite = true,
            "ponder" => go.ponder = true,
            "searchmoves" => {
                let keys = [
                    "wtime",
                    "btime",
                    "winc",
                    "binc",
                    "movestogo",
                    "depth",
                    "nodes",
                    "mate",
                    "movetime",
                    "infinite",
                    "ponder",
                ];
                while i + 1 < words.len() && !keys.contains(&words[i + 1]) {
                    go.searchmoves.push(words[i + 1].to_string());
                    i += 1;
                }
            }
            "wtime" => go.wtime = Some(number("go", key, value)?),
            "btime" => go.btime = Some(number("go", key, value)?),
            "winc" => go.winc = Some(number("go", key, value)?),
            "binc" => go.binc = Some(number("go", key, value)?),
            "movestogo" => go.movestogo = Some(number("go", key, value)?),
            "depth" => go.depth = Some(number("go", key, value)?),
            "nodes" => go.nodes = Some(number("go", key, value)?),
            "mate" => go.mate = Some(number("go", key, value)?),
            "movetime" => go.movetime = Some(number("go", key, value)?),
            other => return Err(malformed("go", format!("unknown parameter '{other}'"))),
        }
        // A key with a value steps over it.
        if !matches!(key, "infinite" | "ponder" | "searchmoves") {
            i += 1;
        }
        i += 1;
    }
    Ok(go)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands() {
        assert_eq!(parse("  ").unwrap(), None);
        assert_eq!(parse("isready").unwrap(), Some(Command::IsReady));
        assert_eq!(
            parse("setoption name Move Overhead value 30").unwrap(),
            Some(Command::SetOption {
                name: "Move Overhead".into(),
                value: Some("30".into())
            })
        );
        assert_eq!(
            parse("setoption name Clear Hash").unwrap(),
            Some(Command::SetOption {
                name: "Clear Hash".into(),
                value: None
            })
        );
        assert_eq!(
            parse("position startpos moves e2e4 e7e5").unwrap(),
            Some(Command::Position {
                fen: None,
                moves: vec!["e2e4".into(), "e7e5".into()]
            })
        );
        let Some(Command::Position { fen, moves }) =
            parse("position fen 8/8/8/8/8/8/1k6/K7 w - - 0 1").unwrap()
        else {
            panic!()
        };
        assert_eq!(fen.as_deref(), Some("8/8/8/8/8/8/1k6/K7 w - - 0 1"));
        assert!(moves.is_empty());
        let Some(Command::Go(go)) = parse(
            "go wtime 1000 btime 900 winc 10 binc 10 movestogo 5 searchmoves e2e4 d2d4 ponder",
        )
        .unwrap() else {
            panic!()
        };
        assert_eq!(
            (go.wtime, go.btime, go.winc, go.movestogo),
            (Some(1000), Some(900), Some(10), Some(5))
        );
        assert_eq!(go.searchmoves, vec!["e2e4", "d2d4"]);
        assert!(go.ponder && !go.infinite);
    }

    #[test]
    fn errors() {
        assert_eq!(parse("xboard"), Err(UciError::Unknown("xboard".into())));
        assert!(parse("go depth").is_err());
        assert!(parse("go depth x").is_err());
        assert!(parse("go nodes -5").is_err());
        assert!(parse("go fast").is_err());
        assert!(parse("position").is_err());
        assert!(parse("position fen").is_err());
        assert!(parse("setoption Hash 5").is_err());
        assert!(parse("perft").is_err());
        // Negative clock times happen (a GUI's clock ran out): they parse.
        assert!(parse("go wtime -20 btime 100").is_ok());
    }
}
