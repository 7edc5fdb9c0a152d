//! PGN, read and written in one place. Reading: enough to replay the main line of each game of a
//! file, for building books, reading openings and importing engine games (variations, NAGs, move
//! numbers and annotation marks are skipped; tags are kept, and so is the comment after each
//! main-line move, which `engine_score` reads as fastchess writes it). Writing: the seven-tag
//! roster plus what engine users expect (Termination, the seed, FEN/SetUp for games that do not
//! start from the initial position), and movetext built move by move (`Movetext`: move numbers,
//! comments, NAGs, variations), so a game record and an annotated review are written by the same
//! code.

use shakmaty::{Chess, Color, Move, Position};

use crate::core::Game;
use crate::core::game::{fen_of, parse_fen, parse_move};
use crate::core::score::{MATE, MATE_BOUND};
use crate::error::Error;

/// One game: its tags, main-line moves and the comment after each move.
#[derive(Clone, Debug, Default)]
pub struct PgnGame {
    pub tags: Vec<(String, String)>,
    pub start: Chess,
    pub moves: Vec<Move>,
    /// The first problem met while replaying moves, if any (the moves before it are kept).
    pub error: Option<String>,
    /// The main line's comments, one after another; move `i`'s is `comments[a..b]` with
    /// `(a, b) = comment_spans[i]` (empty when it has none). Two allocations a game, not one a
    /// comment.
    comments: String,
    comment_spans: Vec<(usize, usize)>,
}

impl PgnGame {
    pub fn tag(&self, name: &str) -> Option<&str> {
        self.tags
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// The comment after main-line move `i` (from the game's start, 0 first), trimmed; several
    /// comments after one move are joined by a space. `None` when the move has none.
    pub fn comment(&self, i: usize) -> Option<&str> {
        let &(a, b) = self.comment_spans.get(i)?;
        (b > a).then(|| &self.comments[a..b])
    }

    fn push_move(&mut self, m: Move) {
        self.moves.push(m);
        let end = self.comments.len();
        self.comment_spans.push((end, end));
    }

    /// Adds `text` to the comment of the last move (a comment before the first move is the
    /// game's, not a move's, and is dropped).
    fn push_comment(&mut self, text: &str) {
        let text = text.trim();
        let Some(span) = self.comment_spans.last_mut() else {
            return;
        };
        if text.is_empty() {
            return;
        }
        if span.1 > span.0 {
            self.comments.push(' ');
        } else {
            span.0 = self.comments.len();
        }
        self.comments.push_str(text);
        span.1 = self.comments.len();
    }
}

/// Splits PGN text into games and replays each game's main line.
pub fn read_games(text: &str) -> Vec<PgnGame> {
    games(text).collect()
}

/// The games of PGN text, one at a time: a large file's games need not all be held at once.
pub fn games(text: &str) -> Games<'_> {
    Games {
        lines: text.lines(),
        tags: Vec::new(),
        movetext: String::new(),
        in_movetext: false,
    }
}

/// The iterator `games` returns.
pub struct Games<'a> {
    lines: std::str::Lines<'a>,
    tags: Vec<(String, String)>,
    movetext: String,
    in_movetext: bool,
}

impl Games<'_> {
    fn take_game(&mut self) -> PgnGame {
        let game = finish(std::mem::take(&mut self.tags), &self.movetext);
        self.movetext.clear();
        self.in_movetext = false;
        game
    }
}

impl Iterator for Games<'_> {
    type Item = PgnGame;

    fn next(&mut self) -> Option<PgnGame> {
        while let Some(line) = self.lines.next() {
            let trimmed = line.trim();
            if trimmed.starts_with('[') && !in_movetext_open(&self.movetext) {
                let done = self.in_movetext.then(|| self.take_game());
                if let Some(tag) = parse_tag(trimmed) {
                    self.tags.push(tag);
                }
                if done.is_some() {
                    return done;
                }
            } else if trimmed.starts_with('%') {
                // Escape line: ignored by the PGN standard.
            } else if !trimmed.is_empty() {
                self.in_movetext = true;
                self.movetext.push_str(line);
                self.movetext.push('\n');
            }
        }
        (self.in_movetext || !self.tags.is_empty()).then(|| self.take_game())
    }
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
        match token {
            Token::Comment(text) => game.push_comment(text),
            Token::Move(san) => match parse_move(&pos, san) {
                Ok(m) => {
                    pos.play_unchecked(m);
                    game.push_move(m);
                }
                Err(e) => {
                    game.error = Some(e.to_string());
                    break;
                }
            },
        }
    }
    game
}

/// A piece of the main line: a move's text or a comment's (without its braces).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Token<'a> {
    Move(&'a str),
    Comment(&'a str),
}

/// The main line's moves (SAN tokens, without numbers, NAGs or the result) and comments, in
/// order; variations are skipped whole, the comments in them too.
fn main_line_tokens(movetext: &str) -> Vec<Token<'_>> {
    let mut tokens = Vec::new();
    let mut depth = 0usize; // nesting of ( ) variations
    let bytes = movetext.as_bytes();
    let mut word: Option<usize> = None; // where the word being read starts
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        let delimiter = matches!(c, b'{' | b';' | b'(' | b')') || c.is_ascii_whitespace();
        if !delimiter {
            word.get_or_insert(i);
            i += 1;
            continue;
        }
        if let Some(start) = word.take()
            && depth == 0
            && let Some(t) = clean_token(&movetext[start..i])
        {
            tokens.push(Token::Move(t));
        }
        // Comments run to their closing brace (`{...}`) or to the end of the line (`; ...`).
        let comment_end = match c {
            b'{' => Some(b'}'),
            b';' => Some(b'\n'),
            _ => None,
        };
        if let Some(close) = comment_end {
            let end = bytes[i + 1..]
                .iter()
                .position(|&b| b == close)
                .map_or(bytes.len(), |k| i + 1 + k);
            if depth == 0 {
                tokens.push(Token::Comment(&movetext[i + 1..end]));
            }
            i = end + 1;
            continue;
        }
        match c {
            b'(' => depth += 1,
            b')' => depth = depth.saturating_sub(1),
            _ => {}
        }
        i += 1;
    }
    if let Some(start) = word
        && depth == 0
        && let Some(t) = clean_token(&movetext[start..])
    {
        tokens.push(Token::Move(t));
    }
    tokens
}

fn clean_token(word: &str) -> Option<&str> {
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
    if w.is_empty() { None } else { Some(w) }
}

/// An engine's score and depth as fastchess writes them at the start of a move's comment (and
/// so OpenBench, whose PGNs fastchess plays): `{+0.33/14 0.080s, tl=0.940s, ...}`. The score is
/// the mover's, in pawns (`+0.33`, `-1.20`, `0.00`) or as a mate in plies: `+M3` mates in three
/// plies, `-M4` is mated in four.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EngineScore {
    /// Centipawns for the side that made the move; a mate as Rookery's search scores one
    /// (`MATE - plies`, negated when the mover is mated), at most 1,000 plies away.
    pub score: i32,
    pub depth: u32,
}

/// The engine score a move's comment starts with: `None` for a book move (`{book}`), a comment
/// without a score (`{unknown}`, `{/12 0.1s}` when the engine gave none, free text) or one that
/// is not a number.
pub fn engine_score(comment: &str) -> Option<EngineScore> {
    let first = comment
        .trim_start()
        .split(|c: char| c == ',' || c.is_whitespace())
        .next()?;
    let (score, depth) = first.split_once('/')?;
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if !digits(depth) {
        return None;
    }
    let depth = depth.parse().ok()?;
    let (negative, magnitude) = match score.as_bytes().first()? {
        b'+' => (false, &score[1..]),
        b'-' => (true, &score[1..]),
        _ => (false, score),
    };
    let value = if let Some(plies) = magnitude.strip_prefix('M') {
        if !digits(plies) {
            return None;
        }
        let plies = plies.parse::<u64>().unwrap_or(u64::MAX);
        MATE - plies.min((MATE - MATE_BOUND) as u64) as i32
    } else {
        let (whole, fraction) = magnitude.split_once('.').unwrap_or((magnitude, "0"));
        if !digits(whole) || !digits(fraction) {
            return None;
        }
        let pawns: f64 = magnitude.parse().ok()?;
        // A centipawn score never reads as a mate.
        (pawns * 100.0).round().min(f64::from(MATE_BOUND - 1)) as i32
    };
    Some(EngineScore {
        score: if negative { -value } else { value },
        depth,
    })
}

/// Reads a PGN file.
pub fn read_file(path: &str) -> Result<Vec<PgnGame>, Error> {
    let bytes = crate::core::memory::read_input(path.as_ref(), crate::core::memory::MAX_INPUT)
        .map_err(|e| Error::io(path, e))?;
    Ok(read_games(&String::from_utf8_lossy(&bytes)))
}

/// Today's date as PGN writes it (`YYYY.MM.DD`), from the system clock, in UTC.
pub fn today() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let (y, m, d) = civil_from_days((secs / 86_400) as i64);
    format!("{y:04}.{m:02}.{d:02}")
}

/// Days since 1970-01-01 to a (year, month, day) in the proleptic Gregorian calendar
/// (Howard Hinnant's `civil_from_days` algorithm).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

/// The PGN text of `game`. `tags` come after the roster's Event/Site/Date/Round/White/Black/Result
/// (pass those in `tags` too; missing ones get `?`); `comment` goes after the last move.
pub fn write(game: &Game, tags: &[(&str, String)], result: &str, comment: Option<&str>) -> String {
    write_with_notes(game, tags, result, comment, &[])
}

/// `write`, with `notes[i]` as a comment after move `i` of the game (from its start position;
/// an empty note, or none, writes no comment).
pub fn write_with_notes(
    game: &Game,
    tags: &[(&str, String)],
    result: &str,
    comment: Option<&str>,
    notes: &[String],
) -> String {
    let mut out = String::new();
    write_tags(&mut out, game, tags, result);
    let mut text = Movetext::new(game.start());
    for (i, &m) in game.moves().iter().enumerate() {
        text.push_move(m);
        if let Some(note) = notes.get(i).filter(|n| !n.is_empty()) {
            text.push_comment(note);
        }
    }
    if let Some(c) = comment {
        text.push_comment(c);
    }
    text.finish(&mut out, result);
    out
}

/// Writes a game's tag section and the blank line after it: the roster
/// (Event/Site/Date/Round/White/Black from `tags`, `?` where missing, then `result`), the other
/// `tags` in their order, and FEN/SetUp for a game that does not start from the initial
/// position.
pub fn write_tags(out: &mut String, game: &Game, tags: &[(&str, String)], result: &str) {
    let get = |name: &str| {
        tags.iter()
            .find(|(k, _)| *k == name)
            .map(|(_, v)| v.clone())
            .unwrap_or_else(|| "?".to_string())
    };
    let roster = ["Event", "Site", "Date", "Round", "White", "Black"];
    for name in roster {
        out.push_str(&format!("[{name} \"{}\"]\n", escape(&get(name))));
    }
    out.push_str(&format!("[Result \"{result}\"]\n"));
    for (k, v) in tags {
        if !roster.contains(k) && *k != "Result" {
            out.push_str(&format!("[{k} \"{}\"]\n", escape(v)));
        }
    }
    if game.custom_start() {
        out.push_str(&format!(
            "[FEN \"{}\"]\n[SetUp \"1\"]\n",
            fen_of(game.start())
        ));
    }
    out.push('\n');
}

/// Movetext built move by move from a position: each move in SAN with its number before it
/// (`12.` before White's move, `12...` before Black's when it opens the text or, where asked,
/// follows a comment or a variation), comments in braces, NAGs, variations in parentheses.
pub struct Movetext {
    tokens: Vec<String>,
    pos: Chess,
    /// The next move is numbered even when Black makes it.
    number_next: bool,
    /// A comment makes the next move numbered (annotated text); plain records number only
    /// the first move.
    number_after_comment: bool,
}

impl Movetext {
    pub fn new(start: &Chess) -> Movetext {
        Movetext {
            tokens: Vec::new(),
            pos: start.clone(),
            number_next: true,
            number_after_comment: false,
        }
    }

    /// Movetext where a Black move after a comment or a variation carries its number
    /// (`12...`), as annotated games are written.
    pub fn annotated(start: &Chess) -> Movetext {
        Movetext {
            number_after_comment: true,
            ..Movetext::new(start)
        }
    }

    /// The position after the moves so far.
    pub fn position(&self) -> &Chess {
        &self.pos
    }

    /// Plays `m` (legal in the current position) and writes it.
    pub fn push_move(&mut self, m: Move) {
        let number = self.pos.fullmoves();
        if self.pos.turn() == Color::White {
            self.tokens.push(format!("{number}."));
        } else if self.number_next {
            self.tokens.push(format!("{number}..."));
        }
        self.tokens.push(
            shakmaty::san::SanPlus::from_move_and_play_unchecked(&mut self.pos, m).to_string(),
        );
        self.number_next = false;
    }

    /// A numeric annotation glyph after the last move (`$2`).
    pub fn push_nag(&mut self, nag: u8) {
        self.tokens.push(format!("${nag}"));
    }

    /// A comment; a `}` in it, which would end it, is written `)`.
    pub fn push_comment(&mut self, text: &str) {
        self.tokens.push(format!("{{{}}}", text.replace('}', ")")));
        self.number_next = self.number_after_comment;
    }

    /// A variation: `moves` from the position before the last move (written while they are
    /// legal); nothing when none is.
    pub fn push_variation(&mut self, from: &Chess, moves: &[Move]) {
        let mut line = Movetext::new(from);
        for &m in moves {
            if !line.pos.is_legal(m) {
                break;
            }
            line.push_move(m);
        }
        if !line.tokens.is_empty() {
            self.tokens.push(format!("({})", line.tokens.join(" ")));
            self.number_next = self.number_after_comment;
        }
    }

    /// Writes the movetext and `result` to `out` (see `push_movetext`).
    pub fn finish(mut self, out: &mut String, result: &str) {
        self.tokens.push(result.to_string());
        push_movetext(out, &self.tokens);
    }
}

/// Appends movetext tokens to `out` in lines of at most 79 characters (a token longer than that
/// stands on a line of its own), then the blank line that ends a game in a PGN file.
fn push_movetext(out: &mut String, tokens: &[String]) {
    let mut line = String::new();
    for t in tokens {
        if !line.is_empty() && line.len() + 1 + t.len() > 79 {
            out.push_str(&line);
            out.push('\n');
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(t);
    }
    out.push_str(&line);
    out.push_str("\n\n");
}

fn escape(s: &str) -> String {
    s.replace('\\', "\\\\").replace('"', "\\\"")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(20_413), (2025, 11, 21));
        assert_eq!(civil_from_days(11_016), (2000, 2, 29));
    }

    #[test]
    fn round_trip_through_reader() {
        let mut g = Game::from_fen("8/8/4k3/8/8/8/8/R3K3 b Q - 0 1").unwrap();
        g.play_text("Kd5").unwrap();
        g.play_text("O-O-O+").unwrap();
        let text = write(
            &g,
            &[("White", "a".into()), ("Seed", "7".into())],
            "*",
            Some("test"),
        );
        assert!(text.contains("[FEN \"8/8/4k3/8/8/8/8/R3K3 b Q - 0 1\"]"));
        assert!(text.contains("[Seed \"7\"]"));
        assert!(text.contains("1... Kd5 2. O-O-O+ {test} *"), "{text}");
        let games = read_games(&text);
        assert_eq!(games[0].moves, g.moves());
    }

    #[test]
    fn movetext_lines_stay_within_79_characters() {
        let mut tokens: Vec<String> = (1..=40).map(|n| format!("{n}. Nf3")).collect();
        tokens.push(format!("{{{}}}", "x".repeat(100)));
        tokens.push("1-0".into());
        let mut out = String::from("[Result \"1-0\"]\n\n");
        push_movetext(&mut out, &tokens);
        let body = out.strip_prefix("[Result \"1-0\"]\n\n").unwrap();
        assert!(body.ends_with("1-0\n\n"), "{body}");
        let lines: Vec<&str> = body.trim_end().lines().collect();
        assert!(lines.len() > 5, "{body}");
        for line in &lines {
            // Only the one token longer than a line may exceed it, standing alone.
            assert!(line.len() <= 79 || !line.contains(' '), "{line:?}");
        }
        // Every token comes back in order: nothing dropped or merged.
        let words: Vec<&str> = body.split_whitespace().collect();
        let expected: Vec<&str> = tokens.iter().flat_map(|t| t.split_whitespace()).collect();
        assert_eq!(words, expected);
    }

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
    fn each_main_line_move_keeps_its_comment() {
        let text = "[Result \"*\"]\n\n{a game comment} 1. e4 {+0.33/14 0.080s, tl=0.940s}\n\
                    e5 (1... c5 {in a variation} 2. Nf3) {first} {second} 2. Nf3 $1 ; to the end\n\
                    Nc6 3. Bb5 *\n";
        let g = &read_games(text)[0];
        assert_eq!(g.moves.len(), 5, "{:?}", g.error);
        assert_eq!(g.comment(0), Some("+0.33/14 0.080s, tl=0.940s"));
        assert_eq!(g.comment(1), Some("first second"));
        assert_eq!(g.comment(2), Some("to the end"));
        assert_eq!(
            (g.comment(3), g.comment(4), g.comment(5)),
            (None, None, None)
        );
        // A comment across lines, holding a `[`, stays one comment of one game.
        let across = read_games("1. d4 {line one\n[not a tag] two} d5 1/2-1/2\n");
        assert_eq!(across.len(), 1);
        assert_eq!(across[0].moves.len(), 2);
        assert_eq!(across[0].comment(0), Some("line one\n[not a tag] two"));
        // Read one at a time, the games are those read all at once.
        let two = format!("{text}\n[Result \"1-0\"]\n\n1. f3 e5 1-0\n");
        let one_by_one: Vec<usize> = games(&two).map(|g| g.moves.len()).collect();
        assert_eq!(one_by_one, vec![5, 2]);
    }

    #[test]
    fn engine_scores_read_as_fastchess_writes_them() {
        let score = |c: &str| engine_score(c).map(|s| (s.score, s.depth));
        assert_eq!(score("+0.33/14 0.080s, tl=0.940s"), Some((33, 14)));
        assert_eq!(score("-1.20/9 0.100s"), Some((-120, 9)));
        assert_eq!(
            score("0.00/22 1.002s, latency=0.002s, n=12345, sd=30"),
            Some((0, 22))
        );
        assert_eq!(score("-0.00/3"), Some((0, 3)));
        assert_eq!(score("+12.5/7, line=\"info string x\""), Some((1250, 7)));
        // OpenBench's compact form, and a score with no time after it.
        assert_eq!(score("+0.29/11"), Some((29, 11)));
        // Mates count plies: +M3 mates in three plies, -M4 is mated in four, -M0 is mated now.
        assert_eq!(score("+M3/20 0.010s"), Some((MATE - 3, 20)));
        assert_eq!(score("-M4/18 0.010s, White mates"), Some((-(MATE - 4), 18)));
        assert_eq!(score("-M0/0 0.000s"), Some((-MATE, 0)));
        assert!(crate::core::score::is_mate(
            engine_score("+M99999/1").unwrap().score
        ));
        // A huge centipawn score stays below the mates.
        assert_eq!(score("+1000.00/5"), Some((MATE_BOUND - 1, 5)));
        for none in [
            "book",
            "unknown",
            "",
            "/12 0.100s",
            "ERR/3 0.1s",
            "+0.33",
            "+0.33/",
            "+0.33/x",
            "+/5",
            "+M/5",
            "+1e5/4",
            "+0.3.3/4",
            "++0.3/4",
            "+M+3/4",
            "White mates",
        ] {
            assert_eq!(engine_score(none), None, "{none:?}");
        }
    }

    #[test]
    fn illegal_move_is_reported() {
        let games = read_games("1. e4 e5 2. Ke3 *");
        assert_eq!(games.len(), 1);
        assert_eq!(games[0].moves.len(), 2);
        assert!(games[0].error.is_some());
    }
}
