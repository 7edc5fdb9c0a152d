//! A small PGN reader: enough to replay the main line of each game of a file, for building
//! books and reading openings. Comments, variations, NAGs, move numbers and annotation marks are
//! skipped; tags are kept.

use shakmaty::{Chess, Move, Position};

use crate::core::game::{parse_fen, parse_move};
use crate::error::Error;

/// One game: its tags and main-line moves.
#[derive(Clone, Debug, Default)]
pub struct PgnGame {
    pub tags: Vec<(String, String)>,
    pub start: Chess,
    pub moves: Vec<Move>,
    /// The first problem met while replaying moves, if any (the moves before it are kept).
    pub error: Option<String>,
}

impl PgnGame {
    pub fn tag(&self, name: &str) -> Option<&str> {
        self.tags
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// Splits PGN text into games and replays each game's main line.
pub fn read_games(text: &str) -> Vec<PgnGame> {
    let mut games = Vec::new();
    let mut tags: Vec<(String, String)> = Vec::new();
    let mut movetext = String::new();
    let mut in_movetext = false;
    for line in text.lines() {
        let trimmed = line.trim();
        if trimmed.starts_with('[') && !in_movetext_open(&movetext) {
            if in_movetext {
                games.push(finish(std::mem::take(&mut tags), &movetext));
                movetext.clear();
                in_movetext = false;
            }
            if let Some(tag) = parse_tag(trimmed) {
                tags.push(tag);
            }
        } else if trimmed.starts_with('%') {
            // Escape line: ignored by the PGN standard.
        } else if !trimmed.is_empty() {
            in_movetext = true;
            movetext.push_str(line);
            movetext.push('\n');
        }
    }
    if in_movetext || !tags.is_empty() {
        games.push(finish(tags, &movetext));
    }
    games
}

/// True while a brace comment is open in the movetext read so far (a `[` inside it is no tag).
fn in_movetext_open(movetext: &str) -> bool {
    movetext.matches('{').count() > movetext.matches('}').count()
}

fn parse_tag(line: &str) -> Option<(String, String)> {
    let inner = line.strip_prefix('[')?.trim_end().strip_suffix(']')?;
    let (name, rest) = inner.split_once(char::is_whitespace)?;
    let value = rest.trim().strip_prefix('"')?.strip_suffix('"')?;
    Some((name.to_string(), value.replace("\\\"", "\"")))
}

fn finish(tags: Vec<(String, String)>, movetext: &str) -> PgnGame {
    let mut game = PgnGame {
        tags,
        ..PgnGame::default()
    };
    if let Some(fen) = game.tag("FEN").map(str::to_string) {
        match parse_fen(&fen) {
            Ok(pos) => game.start = pos,
            Err(e) => {
                game.error = Some(e.to_string());
                return game;
            }
        }
    }
    let mut pos = game.start.clone();
    for token in main_line_tokens(movetext) {
        match parse_move(&pos, &token) {
            Ok(m) => {
                pos.play_unchecked(m);
                game.moves.push(m);
            }
            Err(e) => {
                game.error = Some(e.to_string());
                break;
            }
        }
    }
    game
}

/// The SAN tokens of the main line: no comments, variations, NAGs, numbers or results.
fn main_line_tokens(movetext: &str) -> Vec<String> {
    let mut tokens = Vec::new();
    let mut depth = 0usize; // nesting of ( ) variations
    let mut chars = movetext.chars().peekable();
    let mut word = String::new();
    let flush = |word: &mut String, depth: usize, tokens: &mut Vec<String>| {
        if depth == 0
            && !word.is_empty()
            && let Some(t) = clean_token(word)
        {
            tokens.push(t);
        }
        word.clear();
    };
    while let Some(c) = chars.next() {
        match c {
            '{' => {
                flush(&mut word, depth, &mut tokens);
                for c in chars.by_ref() {
                    if c == '}' {
                        break;
                    }
                }
            }
            ';' => {
                flush(&mut word, depth, &mut tokens);
                for c in chars.by_ref() {
                    if c == '\n' {
                        break;
                    }
                }
            }
            '(' => {
                flush(&mut word, depth, &mut tokens);
                depth += 1;
            }
            ')' => {
                flush(&mut word, depth, &mut tokens);
                depth = depth.saturating_sub(1);
            }
            c if c.is_whitespace() => flush(&mut word, depth, &mut tokens),
            c => word.push(c),
        }
    }
    flush(&mut word, depth, &mut tokens);
    tokens
}

fn clean_token(word: &str) -> Option<String> {
    if word.starts_with('$') || matches!(word, "1-0" | "0-1" | "1/2-1/2" | "*") {
        return None;
    }
    // "12." "12..." "12.e4": drop the move number.
    let w = word.trim_start_matches(|c: char| c.is_ascii_digit());
    let w = if w.len() < word.len() {
        w.trim_start_matches('.')
    } else {
        word
    };
    let w = w.trim_end_matches(['!', '?']);
    if w.is_empty() {
        None
    } else {
        Some(w.to_string())
    }
}

/// Reads a PGN file.
pub fn read_file(path: &str) -> Result<Vec<PgnGame>, Error> {
    let bytes = std::fs::read(path).map_err(|e| Error::io(path, e))?;
    Ok(read_games(&String::from_utf8_lossy(&bytes)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_main_lines() {
        let text = r#"[Event "Test"]
[Result "1-0"]

1. e4 {best by test} e5 (1... c5 2. Nf3) 2. Nf3 $1 Nc6 3.Bb5!? a6 1-0

[Event "Second"]
[Result "*"]
[FEN "8/8/4k3/8/8/8/8/R3K3 w Q - 0 1"]
[SetUp "1"]

1. O-O-O Ke5 *
"#;
        let games = read_games(text);
        assert_eq!(games.len(), 2);
        assert_eq!(games[0].tag("result"), Some("1-0"));
        assert_eq!(games[0].moves.len(), 6, "{:?}", games[0].error);
        assert!(games[0].error.is_none());
        assert_eq!(games[1].moves.len(), 2, "{:?}", games[1].error);
    }

    #[test]
    fn illegal_move_is_reported() {
        let games = read_games("1. e4 e5 2. Ke3 *");
        assert_eq!(games.len(), 1);
        assert_eq!(games[0].moves.len(), 2);
        assert!(games[0].error.is_some());
    }
}
