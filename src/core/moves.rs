//! Small facts about moves that several engines and tools share: Polyglot's 16-bit encoding
//! (books and the strong engine's hash table) and the most-valuable-victim ordering key.

use shakmaty::{Move, Role, Square};

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
    fn victims_before_attackers() {
        let pos = parse_fen("4k3/8/8/3q4/2P1N3/8/8/4K3 w - - 0 1").unwrap();
        let value = |r: Role| r as i32;
        let by_pawn = mvv_lva(parse_move(&pos, "cxd5").unwrap(), value, value);
        let by_knight = mvv_lva(parse_move(&pos, "Nc3").unwrap(), value, value);
        assert!(by_pawn > 0 && by_knight < 0, "{by_pawn} {by_knight}");
    }
}
