//! Small facts about moves that several engines and tools share: Polyglot's 16-bit encoding
//! (books and the strong engine's hash table) and the most-valuable-victim ordering key.

use shakmaty::{Move, Piece, Position, Role, Square};

fn square_bits(sq: Square) -> u16 {
    u16::from(sq.rank()) * 8 + u16::from(sq.file())
}

/// A move in Polyglot's 16-bit encoding.
/// A move in Polyglot's 16-bit encoding.
pub fn encode_move(m: Move) -> u16 {
    let (from, to, promotion) = match m {
        Move::Normal {
            from,
            to,
            promotion,
            ..
        } => (from, to, promotion),
        Move::EnPassant { from, to } => (from, to, None),
        // Polyglot writes castling as the king taking its own rook.
        Move::Castle { king, rook } => (king, rook, None),
        Move::Put { to, .. } => (to, to, None),
    };
    let promo = match promotion {
        Some(Role::Knight) => 1,
        Some(Role::Bishop) => 2,
        Some(Role::Rook) => 3,
        Some(Role::Queen) => 4,
        _ => 0,
    };
    square_bits(to) | square_bits(from) << 6 | promo << 12
}

/// The legal move of `pos` whose encoding is `raw`, if there is one: the inverse of
/// [`encode_move`], found from the board without generating the moves (a hash table's move is
/// tried before the others are generated). Anything a hash collision could bring is refused.
pub fn decode_move<P: Position>(pos: &P, raw: u16) -> Option<Move> {
    if raw == 0 {
        return None;
    }
    let to = Square::new(u32::from(raw & 63));
    let from = Square::new(u32::from((raw >> 6) & 63));
    let promotion = match raw >> 12 {
        0 => None,
        1 => Some(Role::Knight),
        2 => Some(Role::Bishop),
        3 => Some(Role::Rook),
        4 => Some(Role::Queen),
        _ => return None,
    };
    let board = pos.board();
    let us = pos.turn();
    let piece = board.piece_at(from).filter(|p| p.color == us)?;
    let target = board.piece_at(to);
    let castle_or_ep = (piece.role == Role::King
        && target
            == Some(Piece {
                color: us,
                role: Role::Rook,
            }))
        || (piece.role == Role::Pawn && target.is_none() && from.file() != to.file());
    if castle_or_ep && promotion.is_some() {
        return None;
    }
    let m = if piece.role == Role::King
        && target
            == Some(Piece {
                color: us,
                role: Role::Rook,
            }) {
        Move::Castle {
            king: from,
            rook: to,
        }
    } else if piece.role == Role::Pawn && target.is_none() && from.file() != to.file() {
        Move::EnPassant { from, to }
    } else {
        Move::Normal {
            role: piece.role,
            from,
            capture: target.map(|p| p.role),
            to,
            promotion,
        }
    };
    pos.is_legal(m).then_some(m)
}

/// The role a move takes off the board (a pawn for en passant), if any.
#[inline]
pub fn captured(m: Move) -> Option<Role> {
    match m {
        Move::EnPassant { .. } => Some(Role::Pawn),
        _ => m.capture(),
    }
}

/// MVV-LVA key for ordering captures: most valuable victim (plus a promotion's piece) first, then
/// least valuable attacker. Each engine brings its own piece values: `victim` for what is taken or
/// promoted to, `attacker` for the piece that moves.
#[inline]
pub fn mvv_lva(m: Move, victim: impl Fn(Role) -> i32, attacker: impl Fn(Role) -> i32) -> i32 {
    let taken = captured(m).map_or(0, &victim);
    let promo = m.promotion().map_or(0, &victim);
    (taken + promo) * 8 - attacker(m.role())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::game::{parse_fen, parse_move};
    use shakmaty::Chess;

    #[test]
    fn encoding_follows_polyglot() {
        let pos = Chess::default();
        // e2e4: from e2 = 12, to e4 = 28.
        assert_eq!(encode_move(parse_move(&pos, "e4").unwrap()), 28 | 12 << 6);
        let castle = parse_fen("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1").unwrap();
        // O-O is e1h1: from 4, to 7.
        assert_eq!(encode_move(parse_move(&castle, "O-O").unwrap()), 7 | 4 << 6);
        let promo = parse_fen("8/P6k/8/8/8/8/8/K7 w - - 0 1").unwrap();
        assert_eq!(
            encode_move(parse_move(&promo, "a8=N").unwrap()),
            56 | 48 << 6 | 1 << 12
        );
    }

    #[test]
    fn decoding_inverts_encoding_and_refuses_what_is_not_legal() {
        let fens = [
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/Pp2P3/2N2Q1p/1PPBBPPP/R3K2R b KQkq a3 0 1",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
            "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
            "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
            "n1n5/PPPk4/8/8/8/8/4Kppp/5N1N b - - 0 1",
        ];
        for fen in fens {
            let pos = parse_fen(fen).unwrap();
            let legal = pos.legal_moves();
            for &m in &legal {
                assert_eq!(decode_move(&pos, encode_move(m)), Some(m), "{fen}");
            }
            // Every other code is refused.
            for raw in 0..=u16::MAX {
                if legal.iter().all(|&m| encode_move(m) != raw) {
                    assert_eq!(decode_move(&pos, raw), None, "{fen} {raw}");
                }
            }
        }
    }

    #[test]
    fn victims_before_attackers() {
        let pos = parse_fen("4k3/8/8/3q4/2P1N3/8/8/4K3 w - - 0 1").unwrap();
        let value = |r: Role| r as i32;
        let by_pawn = mvv_lva(parse_move(&pos, "cxd5").unwrap(), value, value);
        let by_knight = mvv_lva(parse_move(&pos, "Nc3").unwrap(), value, value);
        assert!(by_pawn > 0 && by_knight < 0, "{by_pawn} {by_knight}");
    }
}
