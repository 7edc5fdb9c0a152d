//! Training positions in a compact binary form: one 32-byte record a position, in the layout of
//! the `bulletformat` crate's `ChessBoard` (so other trainers read Rookery's data as it is):
//!
//! | bytes | field |
//! |---|---|
//! | 0-7 | occupancy, a bit a square (a1 = bit 0), little-endian |
//! | 8-23 | the pieces in square order, a nibble each (low nibble first): colour << 3 \| role (pawn 0 ... king 5) |
//! | 24-25 | the search's score, centipawns, signed 16-bit |
//! | 26 | the game's result: 2 win, 1 draw, 0 loss |
//! | 27 | our king's square |
//! | 28 | their king's square, seen from their side (flipped top to bottom) |
//! | 29-31 | zero |
//!
//! Everything is from the side to move's point of view: with Black to move the board is flipped
//! top to bottom and the colours swapped, so "colour 0" is always the side to move, and the score
//! and result are the side to move's.
//!
//! A data set is a file of records, or a directory of chunk files with a `manifest.json` (see
//! [`store`]). [`import`] makes records from engine games in PGN (fastchess's, OpenBench's).

pub mod coder;
pub mod filter;
pub mod games;
pub mod import;
pub mod packed;
pub mod sample;
pub mod store;

pub use sample::{Sample, parse_sample, read_samples};

use shakmaty::{Board, Chess, Color, Piece, Position, Role, Square};

use crate::core::bytes::{Put, Reader};
use crate::error::{DataProblem, Error, ReadError, RecordProblem};

/// Bytes a record.
pub const RECORD_SIZE: usize = 32;

/// Scores this large are decided games (mates, tablebase wins): the generator and the PGN import
/// leave such positions out of the training data.
pub const DECIDED: i32 = 5_000;

/// One labelled position, from the side to move's point of view.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Record {
    pub occ: u64,
    pub pcs: [u8; 16],
    /// The search's score for the side to move, centipawns.
    pub score: i16,
    /// The game's result for the side to move: 2 win, 1 draw, 0 loss.
    pub result: u8,
    pub ksq: u8,
    pub opp_ksq: u8,
}

impl Record {
    /// The record of `pos` with `score` (side to move's, clamped to 16 bits) and the game's
    /// `result` for White (1, 0.5 or 0).
    pub fn new(pos: &Chess, score: i32, result_white: f64) -> Record {
        let stm = pos.turn();
        let mut pieces: Vec<(u8, u8)> = pos
            .board()
            .iter()
            .map(|(sq, piece)| {
                let (sq, ours) = match stm {
                    Color::White => (u8::from(sq), piece.color == Color::White),
                    Color::Black => (u8::from(sq.flip_vertical()), piece.color == Color::Black),
                };
                (sq, u8::from(!ours) << 3 | (piece.role as u8 - 1))
            })
            .collect();
        pieces.sort_unstable();
        let mut r = Record {
            score: score.clamp(-32000, 32000) as i16,
            ..Record::default()
        };
        for (i, &(sq, code)) in pieces.iter().enumerate().take(32) {
            r.occ |= 1 << sq;
            r.pcs[i / 2] |= code << (4 * (i & 1));
            if code == 5 {
                r.ksq = sq;
            }
            if code == 13 {
                r.opp_ksq = sq ^ 56;
            }
        }
        let result_stm = if stm == Color::White {
            result_white
        } else {
            1.0 - result_white
        };
        r.result = (result_stm * 2.0).round().clamp(0.0, 2.0) as u8;
        r
    }

    pub fn to_bytes(&self) -> [u8; RECORD_SIZE] {
        let mut b = Vec::with_capacity(RECORD_SIZE);
        self.write(&mut b);
        b.try_into().expect("a record is RECORD_SIZE bytes")
    }

    /// Appends the record's `RECORD_SIZE` bytes to `out`.
    pub fn write(&self, out: &mut Vec<u8>) {
        out.put(self.occ);
        out.extend_from_slice(&self.pcs);
        out.put(self.score);
        out.extend_from_slice(&[self.result, self.ksq, self.opp_ksq, 0, 0, 0]);
    }

    /// A record read back, checked: at most 32 pieces, each a known piece, one king a side,
    /// the king squares agreeing with the board, a result of 0, 1 or 2.
    pub fn from_bytes(b: &[u8; RECORD_SIZE]) -> Result<Record, RecordProblem> {
        let fields = |r: &mut Reader| -> Result<Record, ReadError> {
            Ok(Record {
                occ: r.read("the occupancy")?,
                pcs: r.take(16, "the pieces")?.try_into().expect("16 bytes"),
                score: r.read("the score")?,
                result: r.read("the result")?,
                ksq: r.read("our king's square")?,
                opp_ksq: r.read("their king's square")?,
            })
        };
        let r = fields(&mut Reader::new(b)).expect("a record's bytes hold every field");
        if r.result > 2 {
            return Err(RecordProblem::Result(r.result));
        }
        let mut kings = [0; 2];
        for (code, sq) in r.pieces() {
            if code & 7 > 5 {
                return Err(RecordProblem::PieceCode(code));
            }
            if code == 5 {
                kings[0] += 1;
                if sq != r.ksq {
                    return Err(RecordProblem::OurKing);
                }
            }
            if code == 13 {
                kings[1] += 1;
                if sq ^ 56 != r.opp_ksq {
                    return Err(RecordProblem::TheirKing);
                }
            }
        }
        if kings != [1, 1] {
            return Err(RecordProblem::Kings);
        }
        Ok(r)
    }

    /// The pieces, as (colour << 3 | role, square), colour 0 the side to move's.
    pub fn pieces(&self) -> impl Iterator<Item = (u8, u8)> + '_ {
        let mut occ = self.occ;
        (0..32).map_while(move |i| {
            if occ == 0 {
                return None;
            }
            let sq = occ.trailing_zeros() as u8;
            occ &= occ - 1;
            Some(((self.pcs[i / 2] >> (4 * (i & 1))) & 15, sq))
        })
    }

    /// Pieces on the board, kings included.
    pub fn piece_count(&self) -> u32 {
        self.occ.count_ones()
    }

    /// The side to move's result: 1, 0.5 or 0.
    pub fn result_stm(&self) -> f32 {
        f32::from(self.result) / 2.0
    }

    /// The board as the side to move sees it (its pieces White, moving up the board).
    pub fn board(&self) -> Board {
        let mut board = Board::empty();
        for (code, sq) in self.pieces() {
            let color = if code >> 3 == 0 {
                Color::White
            } else {
                Color::Black
            };
            let role = Role::ALL[usize::from(code & 7).min(5)];
            board.set_piece_at(Square::new(u32::from(sq)), Piece { color, role });
        }
        board
    }

    /// The position as a FEN with White (the side to move) to move, no castling or en passant
    /// (the record keeps neither).
    pub fn fen(&self) -> String {
        format!("{} w - - 0 1", self.board())
    }
}

/// Reads every record of `bytes` (a whole number of records), checking each; the first bad one
/// is named by its index.
pub fn parse_records(bytes: &[u8]) -> Result<Vec<Record>, Error> {
    if !bytes.len().is_multiple_of(RECORD_SIZE) {
        return Err(Error::data(
            "",
            DataProblem::NotWholeRecords {
                bytes: bytes.len(),
                record_size: RECORD_SIZE,
            },
        ));
    }
    bytes
        .chunks_exact(RECORD_SIZE)
        .enumerate()
        .map(|(index, c)| {
            Record::from_bytes(c.try_into().unwrap())
                .map_err(|problem| Error::data("", DataProblem::Record { index, problem }))
        })
        .collect()
}

/// The bytes of a file of `records`.
pub fn records_to_bytes(records: &[Record]) -> Vec<u8> {
    let mut bytes = Vec::with_capacity(records.len() * RECORD_SIZE);
    for r in records {
        r.write(&mut bytes);
    }
    bytes
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::game::parse_fen;

    #[test]
    fn a_record_keeps_the_board_the_score_and_the_result_for_the_side_to_move() {
        let white =
            parse_fen("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1")
                .unwrap();
        let r = Record::new(&white, 35, 1.0);
        assert_eq!((r.score, r.result), (35, 2));
        assert_eq!(r.board(), *white.board());
        assert_eq!(r.ksq, u8::from(Square::E1));
        assert_eq!(r.opp_ksq, u8::from(Square::E1), "e8 seen from Black's side");
        assert_eq!(Record::from_bytes(&r.to_bytes()).unwrap(), r);
        // Black to move: the board flips and the colours swap; score and result are Black's.
        let black =
            parse_fen("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R b KQkq - 0 1")
                .unwrap();
        let rb = Record::new(&black, -20, 1.0);
        assert_eq!((rb.score, rb.result), (-20, 0));
        let seen = rb.board();
        for (sq, piece) in black.board().iter() {
            assert_eq!(
                seen.piece_at(sq.flip_vertical()),
                Some(Piece {
                    color: !piece.color,
                    role: piece.role
                })
            );
        }
        assert_eq!(rb.piece_count(), 32);
        let mut bytes = rb.to_bytes().to_vec();
        bytes.extend_from_slice(&r.to_bytes());
        assert_eq!(parse_records(&bytes).unwrap(), vec![rb, r]);
        assert!(
            parse_records(&bytes[..40])
                .unwrap_err()
                .to_string()
                .contains("whole number")
        );
        let mut bad = r.to_bytes();
        bad[26] = 7;
        let e = Record::from_bytes(&bad).unwrap_err();
        assert!(e.to_string().contains("result"));
        assert_eq!(e, RecordProblem::Result(7));
        bytes[32 + 26] = 7;
        assert_eq!(
            parse_records(&bytes).unwrap_err(),
            Error::data(
                "",
                DataProblem::Record {
                    index: 1,
                    problem: RecordProblem::Result(7)
                }
            )
        );
        let mut no_king = r.to_bytes();
        no_king[27] = 3;
        assert!(Record::from_bytes(&no_king).is_err());
    }
}
