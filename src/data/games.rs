//! Game logs: the self-play games behind a data set, small enough to keep in the repository.
//!
//! A 32-byte record a position makes 30 million positions about a gigabyte. The games they come
//! from say the same in about three bytes a position: the start, one byte a move, which positions
//! were kept and their scores. Replaying a log gives back every record, byte for byte, in the
//! order the generator wrote them, so a data set outlives the machine it was made on without its
//! games being played again.
//!
//! A log file starts with the eight bytes `RKGAMES1`; then come the games, each a varint `n` and
//! `n` bytes:
//!
//! | field | encoding |
//! |---|---|
//! | the game's number (in its seed's sequence) | varint |
//! | the result | one byte: 0 Black won, 1 draw, 2 White won, 3 unfinished (a draw in the records) |
//! | the start position | varint length, then its FEN |
//! | the moves | varint count, then a byte each: the move's index among the legal moves sorted by their UCI form (from square, to square, promotion; castling as the king's move, after a king's move to the same square) |
//! | the kept positions | a bit each position from the start to after the last move (low bit first), set if kept |
//! | their scores | for each kept position, the search's score for the side to move minus the previous kept score (0 before the first), zigzag varint |
//!
//! Varints are LEB128 (seven bits a byte, low first). The order of sorted moves depends on the
//! rules alone, not on a move generator's order, so a log reads the same under any version of
//! `shakmaty`.

use shakmaty::uci::UciMove;
use shakmaty::{Chess, Move, Position};

use super::Record;
use crate::core::bytes::{Put, Reader, unzigzag, zigzag};
use crate::core::game::{fen_of, parse_fen};
use crate::error::{DataProblem, Error, GameProblem};

/// The first bytes of a log file.
pub const MAGIC: &[u8; 8] = b"RKGAMES1";
/// Plies a game may hold in a log (the generator stops a game at 400 plies after its start).
pub const MAX_LOG_PLIES: usize = 4096;

/// One game as the generator played it.
#[derive(Clone, Debug, PartialEq)]
pub struct GameLog {
    pub index: u64,
    /// 0 Black won, 1 draw, 2 White won, 3 unfinished.
    pub result: u8,
    pub start: Chess,
    pub moves: Vec<Move>,
    /// The kept positions: (plies after the start, score for the side to move), in ply order.
    pub kept: Vec<(usize, i32)>,
}

/// A move's place in the canonical order: from square, to square, promotion, and castling last
/// where a king's move and castling meet on one square (Chess960).
pub(super) fn move_key(m: Move) -> u32 {
    let castle = u32::from(m.is_castle());
    match UciMove::from_standard(m) {
        UciMove::Normal {
            from,
            to,
            promotion,
        } => {
            let key =
                (u32::from(from) << 9) | (u32::from(to) << 3) | promotion.map_or(0, |r| r as u32);
            (key << 1) | castle
        }
        _ => u32::MAX,
    }
}

/// The legal moves of `pos`, sorted by `move_key`.
fn sorted_moves(pos: &Chess) -> Vec<(u32, Move)> {
    let mut moves: Vec<(u32, Move)> = pos
        .legal_moves()
        .into_iter()
        .map(|m| (move_key(m), m))
        .collect();
    moves.sort_unstable_by_key(|&(k, _)| k);
    moves
}

impl GameLog {
    /// Appends the game's bytes (its length first) to `out`. Errors if a move is not legal where
    /// it is played or a kept position is out of the game's range.
    pub fn encode(&self, out: &mut Vec<u8>) -> Result<(), Error> {
        let refuse = |ply, problem| {
            Error::data(
                "",
                DataProblem::Unloggable {
                    game: self.index,
                    ply,
                    problem,
                },
            )
        };
        if self.moves.len() > MAX_LOG_PLIES {
            return Err(refuse(
                None,
                GameProblem::Plies {
                    plies: self.moves.len(),
                    max: MAX_LOG_PLIES,
                },
            ));
        }
        let mut body = Vec::with_capacity(64 + self.moves.len() + 2 * self.kept.len());
        body.put_varint(self.index);
        body.push(self.result.min(3));
        let fen = fen_of(&self.start);
        body.put_varint(fen.len() as u64);
        body.extend_from_slice(fen.as_bytes());
        body.put_varint(self.moves.len() as u64);
        let mut pos = self.start.clone();
        for (ply, &m) in self.moves.iter().enumerate() {
            let moves = sorted_moves(&pos);
            let i = moves
                .iter()
                .position(|&(_, x)| x == m)
                .ok_or_else(|| refuse(Some(ply), GameProblem::Illegal))?;
            body.push(i as u8);
            pos.play_unchecked(m);
        }
        let mut bits = vec![0u8; self.moves.len() / 8 + 1];
        let mut last_ply = None;
        for &(ply, _) in &self.kept {
            if ply > self.moves.len() || last_ply.is_some_and(|l| l >= ply) {
                return Err(refuse(None, GameProblem::Kept { ply }));
            }
            last_ply = Some(ply);
            bits[ply / 8] |= 1 << (ply % 8);
        }
        body.extend_from_slice(&bits);
        let mut prev = 0i64;
        for &(_, score) in &self.kept {
            body.put_varint(zigzag(i64::from(score) - prev));
            prev = i64::from(score);
        }
        out.put_varint(body.len() as u64);
        out.extend_from_slice(&body);
        Ok(())
    }

    /// Reads the game that starts at `r`'s position, leaving `r` after it.
    pub fn read(r: &mut Reader) -> Result<GameLog, Error> {
        let at = r.position();
        let (mut game, mut ply) = (None, None);
        let mut fields = || -> Result<GameLog, GameProblem> {
            let len = r.varint("a game's length").map_err(GameProblem::Read)?;
            let len = usize::try_from(len).map_err(|_| GameProblem::TooLong)?;
            let mut r = r.sub(len, "a game").map_err(GameProblem::Read)?;
            let index = r.varint("the game's number").map_err(GameProblem::Read)?;
            game = Some(index);
            GameLog::read_body(&mut r, index, &mut ply)
        };
        fields().map_err(|problem| game_error(at, game, ply, problem))
    }

    /// The game `index`'s fields after its number, from `r` (the game's own bytes, which it
    /// must use up); `ply` is set to the move being read.
    fn read_body(
        r: &mut Reader,
        index: u64,
        ply: &mut Option<usize>,
    ) -> Result<GameLog, GameProblem> {
        let result: u8 = r.read("the result").map_err(GameProblem::Read)?;
        if result > 3 {
            return Err(GameProblem::ResultCode(result));
        }
        let fen_len = r.varint("the start's length").map_err(GameProblem::Read)? as usize;
        let fen = r.take(fen_len, "the start").map_err(GameProblem::Read)?;
        let fen = std::str::from_utf8(fen).map_err(|_| GameProblem::StartNotText)?;
        let start = parse_fen(fen).map_err(|e| GameProblem::Start(Box::new(e)))?;
        let plies = r.varint("the move count").map_err(GameProblem::Read)? as usize;
        if plies > MAX_LOG_PLIES {
            return Err(GameProblem::Plies {
                plies,
                max: MAX_LOG_PLIES,
            });
        }
        let mut moves = Vec::with_capacity(plies);
        let mut pos = start.clone();
        for p in 0..plies {
            *ply = Some(p);
            let i = usize::from(r.read::<u8>("a move").map_err(GameProblem::Read)?);
            let legal = sorted_moves(&pos);
            let &(_, m) = legal.get(i).ok_or(GameProblem::Move {
                index: i,
                legal: legal.len(),
            })?;
            moves.push(m);
            pos.play_unchecked(m);
        }
        *ply = None;
        let bits = r
            .take(plies / 8 + 1, "the kept positions")
            .map_err(GameProblem::Read)?;
        let kept_plies: Vec<usize> = (0..=plies)
            .filter(|&p| bits[p / 8] & (1 << (p % 8)) != 0)
            .collect();
        if (plies + 1..(plies / 8 + 1) * 8).any(|p| bits[p / 8] & (1 << (p % 8)) != 0) {
            return Err(GameProblem::KeptAfterEnd);
        }
        let mut kept = Vec::with_capacity(kept_plies.len());
        let mut prev = 0i64;
        for p in kept_plies {
            let score = prev + unzigzag(r.varint("a score").map_err(GameProblem::Read)?);
            let s = i32::try_from(score).map_err(|_| GameProblem::Score(score))?;
            kept.push((p, s));
            prev = score;
        }
        if r.remaining() != 0 {
            return Err(GameProblem::LeftOver(r.remaining()));
        }
        Ok(GameLog {
            index,
            result,
            start,
            moves,
            kept,
        })
    }

    /// The game's result for White: 1, 0.5 or 0 (an unfinished game counts as a draw).
    pub fn white_result(&self) -> f64 {
        match self.result {
            2 => 1.0,
            0 => 0.0,
            _ => 0.5,
        }
    }

    /// The kept positions' records, as the generator wrote them.
    pub fn records(&self) -> Vec<Record> {
        let result = self.white_result();
        let mut out = Vec::with_capacity(self.kept.len());
        let mut pos = self.start.clone();
        let mut next = self.kept.iter().peekable();
        for ply in 0..=self.moves.len() {
            if let Some(&&(p, score)) = next.peek()
                && p == ply
            {
                out.push(Record::new(&pos, score, result));
                next.next();
            }
            if let Some(&m) = self.moves.get(ply) {
                pos.play_unchecked(m);
            }
        }
        out
    }
}

/// A log's game that does not read: the one starting at byte `at` (for a packed log, its
/// stream's start), its number and ply where known.
pub(super) fn game_error(
    at: usize,
    game: Option<u64>,
    ply: Option<usize>,
    problem: GameProblem,
) -> Error {
    Error::data(
        "",
        DataProblem::Game {
            at,
            game,
            ply,
            problem,
        },
    )
}

/// The games of a plain log file's bytes (its magic first); `data::packed::read_any` reads
/// packed logs too.
pub fn read_log(bytes: &[u8]) -> Result<Vec<GameLog>, Error> {
    let mut r = Reader::new(bytes);
    if r.take(MAGIC.len(), "the magic").ok() != Some(&MAGIC[..]) {
        return Err(Error::data("", DataProblem::NotALog { magic: MAGIC }));
    }
    let mut games = Vec::new();
    while r.remaining() > 0 {
        games.push(GameLog::read(&mut r)?);
    }
    Ok(games)
}

/// Every kept position's record of a log file's bytes, in order, and the number of games.
pub fn log_records(bytes: &[u8]) -> Result<(Vec<Record>, usize), Error> {
    let games = read_log(bytes)?;
    let mut out = Vec::new();
    for g in &games {
        out.extend(g.records());
    }
    Ok((out, games.len()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::game::parse_move;

    fn game(fen: &str, line: &[&str], kept: &[(usize, i32)], result: u8) -> GameLog {
        let start = parse_fen(fen).unwrap();
        let mut pos = start.clone();
        let mut moves = Vec::new();
        for t in line {
            let m = parse_move(&pos, t).unwrap();
            pos.play_unchecked(m);
            moves.push(m);
        }
        GameLog {
            index: 7,
            result,
            start,
            moves,
            kept: kept.to_vec(),
        }
    }

    #[test]
    fn a_log_gives_back_every_move_score_and_record() {
        // Castling both ways, en passant, promotions to queen and knight, a capture.
        let g1 = game(
            "r3k2r/1P4p1/8/3pP3/8/8/6p1/R3K2R w KQkq d6 0 30",
            &[
                "exd6", "O-O", "O-O-O", "Rfe8", "b8=Q", "Raxb8", "Kc2", "gxh1=N",
            ],
            &[(0, -40), (1, 35), (2, 35), (6, -2000), (8, 31999)],
            2,
        );
        let g2 = game(
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            &["e4", "c5", "Nf3"],
            &[(3, 12)],
            3,
        );
        let mut bytes = MAGIC.to_vec();
        g1.encode(&mut bytes).unwrap();
        g2.encode(&mut bytes).unwrap();
        let back = read_log(&bytes).unwrap();
        assert_eq!(back, vec![g1.clone(), g2.clone()]);
        let (records, games) = log_records(&bytes).unwrap();
        assert_eq!(games, 2);
        assert_eq!(records.len(), 6);
        // The records are those made from the positions themselves.
        let mut pos = g1.start.clone();
        for (ply, m) in g1.moves.iter().enumerate() {
            if ply == 2 {
                assert_eq!(records[2], Record::new(&pos, 35, 1.0));
            }
            pos.play_unchecked(*m);
        }
        assert_eq!(records[4], Record::new(&pos, 31999, 1.0));
        assert_eq!(records[5].score, 12);
        assert_eq!(records[5].result, 1, "an unfinished game counts as a draw");
        // Beside the start's FEN, a byte a move and at most three a score.
        let fens = fen_of(&g1.start).len() + fen_of(&g2.start).len();
        let bound = fens + 10 + 3 * 6 + 2 * 6;
        assert!(bytes.len() - MAGIC.len() <= bound, "{} bytes", bytes.len());
    }

    #[test]
    fn chess960_castling_and_the_king_move_to_the_same_square_are_told_apart() {
        // The king on d1 castles queenside to c1, where it can also step.
        let fen = "1r1k4/8/8/8/8/8/8/1R1K4 w Bb - 0 1";
        // The order is the rules' alone only if no two legal moves share a key.
        let moves = sorted_moves(&parse_fen(fen).unwrap());
        assert!(moves.iter().any(|&(_, m)| m.is_castle()));
        assert!(moves.windows(2).all(|w| w[0].0 < w[1].0), "{moves:?}");
        for line in [&["O-O-O"][..], &["Kc1"][..]] {
            let g = game(fen, line, &[(0, 5), (1, -5)], 1);
            let mut bytes = MAGIC.to_vec();
            g.encode(&mut bytes).unwrap();
            assert_eq!(read_log(&bytes).unwrap(), vec![g]);
        }
    }

    #[test]
    fn a_damaged_log_is_an_error_not_a_panic() {
        let g = game(
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            &["d4", "d5", "c4"],
            &[(0, 10), (3, -5)],
            1,
        );
        let mut bytes = MAGIC.to_vec();
        g.encode(&mut bytes).unwrap();
        assert!(read_log(&bytes[1..]).is_err(), "no magic");
        for cut in MAGIC.len() + 1..bytes.len() {
            assert!(read_log(&bytes[..cut]).is_err(), "cut at {cut}");
        }
        // Every single-byte change is read as an error or as some game, never a panic.
        for i in MAGIC.len()..bytes.len() {
            for v in [0u8, 1, 0x7f, 0x80, 0xff] {
                let mut b = bytes.clone();
                b[i] = v;
                let _ = read_log(&b);
            }
        }
        // A move index past the legal moves is named.
        let mut b = bytes.clone();
        let fen_end = b.windows(4).position(|w| w == b" 0 1").unwrap() + 4;
        b[fen_end + 1] = 200;
        let e = read_log(&b).unwrap_err();
        assert!(e.to_string().contains("legal moves"), "{e}");
        assert!(
            matches!(
                e,
                Error::Data {
                    problem: DataProblem::Game {
                        at: 8,
                        game: Some(7),
                        ply: Some(0),
                        problem: GameProblem::Move { index: 200, .. }
                    },
                    ..
                }
            ),
            "{e:?}"
        );
        // A log cut inside a game names what it ends in.
        let e = read_log(&bytes[..bytes.len() - 1]).unwrap_err().to_string();
        assert!(e.starts_with("at byte 8: cut short (a game:"), "{e}");
        // Encoding refuses a game whose move is not legal where it is played.
        let mut bad = g.clone();
        bad.moves.swap(0, 1);
        assert!(bad.encode(&mut Vec::new()).is_err());
        let mut bad = g;
        bad.kept = vec![(4, 0)];
        assert!(bad.encode(&mut Vec::new()).is_err());
    }
}
