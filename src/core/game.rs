//! A game: the starting position, the moves played, every position reached and its Zobrist hash.
//!
//! Engines need the history to see repetitions; the CLI needs it for undo, PGN and the reason a game
//! ended. Positions are stored whole (a `Chess` is about 136 bytes) so undo is a pop, not a replay.

use shakmaty::fen::Fen;
use shakmaty::san::{San, SanPlus};
use shakmaty::uci::UciMove;
use shakmaty::zobrist::Zobrist64;
use shakmaty::{CastlingMode, Chess, Color, EnPassantMode, KnownOutcome, Move, Position};
use std::fmt;

use crate::error::Error;

/// The Zobrist hash of a position (Polyglot-compatible keys: the start position is 0x463b96181691fc9c).
pub fn hash(pos: &Chess) -> u64 {
    pos.zobrist_hash::<Zobrist64>(EnPassantMode::Legal).0
}

/// Parses a FEN into a position; standard castling unless the castling field needs Chess960 (file
/// letters such as `HAha`), so Shredder-FEN and X-FEN positions load too.
pub fn parse_fen(fen: &str) -> Result<Chess, Error> {
    let err = |reason: String| Error::Fen {
        fen: fen.trim().to_string(),
        reason,
    };
    let parsed: Fen = fen.trim().parse().map_err(|e| err(format!("{e}")))?;
    let castling = fen.split_whitespace().nth(2).unwrap_or("-");
    let mode = if castling.chars().all(|c| "KQkq-".contains(c)) {
        CastlingMode::Standard
    } else {
        CastlingMode::Chess960
    };
    // A check that no legal game could reach (two bishops checking at once, say) is still a
    // well-defined position: perft suites and GUIs use them, so accept it.
    let position = |mode| -> Result<Chess, String> {
        match parsed.clone().into_position::<Chess>(mode) {
            Ok(pos) => Ok(pos),
            Err(e) => e.ignore_impossible_check().map_err(|e| e.to_string()),
        }
    };
    match position(mode) {
        Ok(pos) => Ok(pos),
        // A standard FEN whose castling rights only make sense as Chess960 (rooks not in corners).
        Err(_) if mode == CastlingMode::Standard => position(CastlingMode::Chess960).map_err(err),
        Err(e) => Err(err(e)),
    }
}

/// The FEN of a position.
pub fn fen_of(pos: &Chess) -> String {
    Fen::from_position(pos, EnPassantMode::Legal).to_string()
}

/// Reads a move in SAN (`Nf3`, `exd5`, `O-O`, `e8=Q+`) or UCI notation (`g1f3`, `e7e8q`,
/// `e1h1` for castling in Chess960 style).
pub fn parse_move(pos: &Chess, text: &str) -> Result<Move, Error> {
    let t = text.trim();
    let err = |reason: &str| Error::Move {
        text: t.to_string(),
        reason: reason.to_string(),
    };
    if t.is_empty() {
        return Err(err("empty move"));
    }
    if let Ok(uci) = t.parse::<UciMove>() {
        return uci
            .to_move(pos)
            .map_err(|_| err("illegal in this position"));
    }
    match t.parse::<SanPlus>() {
        Ok(san) => san.san.to_move(pos).map_err(|e| match e {
            shakmaty::san::SanError::AmbiguousSan => err("ambiguous, say which piece"),
            _ => err("illegal in this position"),
        }),
        Err(_) => Err(err("not a move in SAN (Nf3) or UCI (g1f3) notation")),
    }
}

/// Reads a move as a person types it: what `parse_move` reads, and besides castling with zeros
/// or small letters (`0-0`, `o-o-o`), long algebraic notation (`d2-d4`, `Ng1-f3`, `e4xd5`), a
/// piece letter in lower case (`nf3`; `b` is a pawn's file first, then a bishop), a promotion
/// without its piece (`a8`, `bxa8`, `a7a8`: a queen) and trailing `!` and `?`. The error is
/// `parse_move`'s for the text as typed.
pub fn parse_human_move(pos: &Chess, text: &str) -> Result<Move, Error> {
    let typed = text.trim();
    let t = typed.trim_end_matches(['!', '?']);
    let first_error = match parse_move(pos, t) {
        Ok(m) => return Ok(m),
        Err(e) => e,
    };
    let mut readings: Vec<String> = Vec::new();
    let check_marks = |s: &str| s.trim_end_matches(['+', '#']).to_string();
    let castle = check_marks(&t.to_ascii_uppercase().replace('0', "O"));
    if castle == "O-O" || castle == "O-O-O" {
        readings.push(castle);
    }
    // Long algebraic: an optional piece letter, two squares, an optional promotion piece.
    let bare: String = check_marks(t)
        .chars()
        .filter(|c| !matches!(c, '-' | 'x' | 'X' | '=' | ':'))
        .collect();
    // A piece letter before the squares, in either case: a letter followed by a file's letter.
    let squares = match bare.as_bytes() {
        [p, f, ..] if b"NBRQKnbrqk".contains(p) && f.is_ascii_alphabetic() => &bare[1..],
        _ => &bare[..],
    };
    let b = squares.as_bytes();
    if (4..=5).contains(&b.len())
        && (b'a'..=b'h').contains(&b[0].to_ascii_lowercase())
        && (b'1'..=b'8').contains(&b[1])
        && (b'a'..=b'h').contains(&b[2].to_ascii_lowercase())
        && (b'1'..=b'8').contains(&b[3])
    {
        let uci = squares.to_ascii_lowercase();
        readings.push(uci.clone());
        readings.push(format!("{uci}q"));
    }
    // A piece letter in lower case (a `b` that is not a pawn's file: a bishop).
    let mut chars = t.chars();
    if let Some(c) = chars.next()
        && "nbrqk".contains(c)
    {
        readings.push(format!("{}{}", c.to_ascii_uppercase(), chars.as_str()));
    }
    // A promotion without its piece.
    if !t.contains('=') {
        let plain = check_marks(t);
        readings.push(format!("{plain}=Q"));
        readings.push(format!("{plain}q"));
    }
    readings
        .iter()
        .find_map(|r| parse_move(pos, r).ok())
        .ok_or(first_error)
}

/// The move in SAN with check or mate suffix.
pub fn san(pos: &Chess, m: Move) -> String {
    SanPlus::from_move(pos.clone(), m).to_string()
}

/// The move in SAN without suffix (cheaper: no move generation after the move).
pub fn san_plain(pos: &Chess, m: Move) -> String {
    San::from_move(pos, m).to_string()
}

/// The move in UCI notation (castling as king-to-destination, standard chess).
pub fn uci(m: Move) -> String {
    UciMove::from_standard(m).to_string()
}

/// A line of moves in SAN from `pos`, with move numbers: `12. Nf3 Nc6 13. Bb5`.
pub fn san_line(pos: &Chess, moves: &[Move]) -> String {
    let mut out = String::new();
    let mut p = pos.clone();
    for (i, &m) in moves.iter().enumerate() {
        if !p.is_legal(m) {
            break;
        }
        if p.turn() == Color::White {
            out.push_str(&format!("{}. ", p.fullmoves()));
        } else if i == 0 {
            out.push_str(&format!("{}... ", p.fullmoves()));
        }
        out.push_str(&SanPlus::from_move_and_play_unchecked(&mut p, m).to_string());
        out.push(' ');
    }
    out.trim_end().to_string()
}

/// Why a game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Termination {
    Checkmate,
    Stalemate,
    InsufficientMaterial,
    ThreefoldRepetition,
    FivefoldRepetition,
    FiftyMoves,
    SeventyFiveMoves,
    Resignation,
    MaxPlies,
    /// A person left the game before its end.
    Unfinished,
}

impl Termination {
    /// True when the laws of chess end the game; false for a resignation or an arbiter's limit.
    pub fn is_normal(self) -> bool {
        !matches!(self, Termination::MaxPlies | Termination::Unfinished)
    }
}

impl fmt::Display for Termination {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Termination::Checkmate => "checkmate",
            Termination::Stalemate => "stalemate",
            Termination::InsufficientMaterial => "insufficient material",
            Termination::ThreefoldRepetition => "threefold repetition",
            Termination::FivefoldRepetition => "fivefold repetition",
            Termination::FiftyMoves => "50-move rule",
            Termination::SeventyFiveMoves => "75-move rule",
            Termination::Resignation => "resignation",
            Termination::MaxPlies => "maximum length reached",
            Termination::Unfinished => "game left unfinished",
        })
    }
}

/// The draws that end a game without anybody claiming them (python-chess's `outcome()`):
/// stalemate, insufficient material, the 75-move rule, fivefold repetition. Checkmate is checked
/// first. `repetitions` is how often the current position has occurred, itself included.
pub fn automatic_end(pos: &Chess, repetitions: usize) -> Option<(KnownOutcome, Termination)> {
    if pos.legal_moves().is_empty() {
        return Some(if pos.is_check() {
            (
                KnownOutcome::Decisive {
                    winner: !pos.turn(),
                },
                Termination::Checkmate,
            )
        } else {
            (KnownOutcome::Draw, Termination::Stalemate)
        });
    }
    if pos.is_insufficient_material() {
        Some((KnownOutcome::Draw, Termination::InsufficientMaterial))
    } else if pos.halfmoves() >= 150 {
        Some((KnownOutcome::Draw, Termination::SeventyFiveMoves))
    } else if repetitions >= 5 {
        Some((KnownOutcome::Draw, Termination::FivefoldRepetition))
    } else {
        None
    }
}

/// How often the last hash of `hashes` occurs among the positions that can still repeat it (the
/// last `halfmoves + 1` entries, one side to move: every second one).
pub fn repetitions(hashes: &[u64], halfmoves: u32) -> usize {
    let Some(&last) = hashes.last() else {
        return 0;
    };
    let window = (halfmoves as usize + 1).min(hashes.len());
    hashes[hashes.len() - window..]
        .iter()
        .rev()
        .step_by(2)
        .filter(|&&h| h == last)
        .count()
}

#[derive(Clone, Debug)]
pub struct Game {
    positions: Vec<Chess>,
    hashes: Vec<u64>,
    moves: Vec<Move>,
}

impl Default for Game {
    fn default() -> Self {
        Game::new(Chess::default())
    }
}

impl Game {
    pub fn new(start: Chess) -> Game {
        Game {
            hashes: vec![hash(&start)],
            positions: vec![start],
            moves: Vec::new(),
        }
    }

    pub fn from_fen(fen: &str) -> Result<Game, Error> {
        parse_fen(fen).map(Game::new)
    }

    /// A game from an optional FEN (the standard start position without one).
    pub fn from_optional_fen(fen: Option<&str>) -> Result<Game, Error> {
        match fen {
            Some(f) => Game::from_fen(f),
            None => Ok(Game::default()),
        }
    }

    pub fn position(&self) -> &Chess {
        self.positions.last().expect("a game always has a position")
    }

    pub fn start(&self) -> &Chess {
        &self.positions[0]
    }

    pub fn moves(&self) -> &[Move] {
        &self.moves
    }

    /// Hashes of every position of the game, the current one last.
    pub fn hashes(&self) -> &[u64] {
        &self.hashes
    }

    pub fn ply(&self) -> usize {
        self.moves.len()
    }

    /// True if the game did not start from the standard initial position.
    pub fn custom_start(&self) -> bool {
        *self.start() != Chess::default()
    }

    /// Plays a legal move; an illegal one is refused and changes nothing.
    pub fn play(&mut self, m: Move) -> Result<(), Error> {
        let pos = self.position();
        if !pos.is_legal(m) {
            return Err(Error::Move {
                text: uci(m),
                reason: "illegal in this position".into(),
            });
        }
        let mut next = pos.clone();
        next.play_unchecked(m);
        self.hashes.push(hash(&next));
        self.positions.push(next);
        self.moves.push(m);
        Ok(())
    }

    /// Parses a move in SAN or UCI and plays it.
    pub fn play_text(&mut self, text: &str) -> Result<Move, Error> {
        let m = parse_move(self.position(), text)?;
        self.play(m)?;
        Ok(m)
    }

    /// Takes back the last move.
    pub fn undo(&mut self) -> Option<Move> {
        let m = self.moves.pop()?;
        self.positions.pop();
        self.hashes.pop();
        Some(m)
    }

    /// How often the current position has occurred in this game, counting itself.
    pub fn repetitions(&self) -> usize {
        repetitions(&self.hashes, self.position().halfmoves())
    }

    /// The end of the game, if it is over. Besides the automatic endings, claimable draws
    /// (threefold repetition, 50-move rule) end the game too, as arbiters of engine games do.
    pub fn outcome(&self) -> Option<(KnownOutcome, Termination)> {
        let pos = self.position();
        let reps = self.repetitions();
        if let Some(end) = automatic_end(pos, reps) {
            return Some(end);
        }
        if reps >= 3 {
            Some((KnownOutcome::Draw, Termination::ThreefoldRepetition))
        } else if pos.halfmoves() >= 100 {
            Some((KnownOutcome::Draw, Termination::FiftyMoves))
        } else {
            None
        }
    }

    pub fn fen(&self) -> String {
        fen_of(self.position())
    }

    /// The last move played and the position before it.
    pub fn last_move(&self) -> Option<Move> {
        self.moves.last().copied()
    }

    /// The moves of the game in SAN, numbered.
    pub fn san_moves(&self) -> String {
        san_line(self.start(), &self.moves)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_hash_is_polyglot() {
        assert_eq!(hash(&Chess::default()), 0x463b_9618_1691_fc9c);
    }

    #[test]
    fn moves_in_both_notations_and_undo() {
        let mut g = Game::default();
        g.play_text("e4").unwrap();
        g.play_text("e7e5").unwrap();
        g.play_text("Nf3").unwrap();
        assert_eq!(g.ply(), 3);
        assert!(g.play_text("Ke7").is_ok());
        assert!(matches!(g.play_text("Qh5"), Err(Error::Move { .. })));
        assert!(g.play_text("zz").is_err());
        g.undo();
        g.undo();
        assert_eq!(g.ply(), 2);
        assert_eq!(g.san_moves(), "1. e4 e5");
    }

    #[test]
    fn moves_as_people_type_them() {
        let read = |fen: &str, text: &str| {
            let pos = parse_fen(fen).unwrap();
            parse_human_move(&pos, text).map(uci)
        };
        let castles = "r3k2r/pppq1ppp/2n2n2/2b1p3/2B1P1b1/2NP1N2/PPPQ1PPP/R3K2R w KQkq - 0 1";
        for (text, want) in [
            ("0-0", "e1g1"),
            ("o-o", "e1g1"),
            ("O-O", "e1g1"),
            ("0-0-0", "e1c1"),
            ("o-o-o+", "e1c1"),
            ("Nf3-h4", "f3h4"),
            ("nd5", "c3d5"),
            ("a2-a4", "a2a4"),
            ("h2h3!?", "h2h3"),
            ("Qd2-e3", "d2e3"),
        ] {
            assert_eq!(read(castles, text).as_deref(), Ok(want), "{text}");
        }
        let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
        assert_eq!(read(start, "d2-d4").as_deref(), Ok("d2d4"));
        assert_eq!(read(start, "ng1-f3").as_deref(), Ok("g1f3"));
        // A pawn's file first, then a bishop.
        let b_file = "rnbqkbnr/ppp1pppp/8/8/8/2p5/PP1PPPPP/RNBQKBNR w KQkq - 0 1";
        assert_eq!(read(b_file, "bxc3").as_deref(), Ok("b2c3"));
        let bishop = "rnbqkbnr/ppp1pppp/8/3p4/8/4P3/PPPP1PPP/RNBQKBNR w KQkq - 0 1";
        assert_eq!(read(bishop, "bb5").as_deref(), Ok("f1b5"));
        assert!(read(bishop, "e3xd4").is_err(), "no piece to take");
        // A promotion without its piece is a queen.
        let promote = "1r2k3/P7/8/8/8/8/8/4K3 w - - 0 1";
        for text in ["a8", "a7a8", "a7-a8", "axb8", "a7xb8"] {
            let got = read(promote, text).unwrap();
            assert!(got.ends_with('q'), "{text}: {got}");
        }
        assert_eq!(read(promote, "a8=N").as_deref(), Ok("a7a8n"));
        // What is no move keeps the error of the text as typed.
        let e = read(start, "xyz").unwrap_err().to_string();
        assert!(e.contains("'xyz'") && e.contains("not a move"), "{e}");
        let e = read(start, "e2e5").unwrap_err().to_string();
        assert!(e.contains("illegal"), "{e}");
    }

    #[test]
    fn bad_fens_are_errors() {
        assert!(Game::from_fen("not a fen").is_err());
        assert!(Game::from_fen("8/8/8/8/8/8/8/8 w - - 0 1").is_err());
        assert!(
            Game::from_fen("bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9")
                .is_ok()
        );
    }

    #[test]
    fn threefold_by_knight_dance() {
        let mut g = Game::default();
        for _ in 0..2 {
            for m in ["Nf3", "Nf6", "Ng1", "Ng8"] {
                assert!(g.outcome().is_none());
                g.play_text(m).unwrap();
            }
        }
        assert_eq!(g.repetitions(), 3);
        assert_eq!(
            g.outcome(),
            Some((KnownOutcome::Draw, Termination::ThreefoldRepetition))
        );
    }

    #[test]
    fn mate_and_stalemate() {
        let g = Game::from_fen("7k/6Q1/6K1/8/8/8/8/8 b - - 0 1").unwrap();
        assert_eq!(g.outcome().unwrap().1, Termination::Checkmate);
        let g = Game::from_fen("7k/8/6QK/8/8/8/8/8 b - - 0 1").unwrap();
        assert_eq!(g.outcome().unwrap().1, Termination::Stalemate);
        let g = Game::from_fen("7k/8/6NK/8/8/8/8/8 b - - 0 1").unwrap();
        assert_eq!(g.outcome().unwrap().1, Termination::InsufficientMaterial);
    }
}
