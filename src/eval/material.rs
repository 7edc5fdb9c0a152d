//! Material: the tutorial's piece values (pawn 1, knight 3, bishop 3, rook 5, queen 9, king 0),
//! in centipawns. Scores are from White's point of view.

use shakmaty::{Board, Color, Move, Role};

/// Centipawn value of a piece in the tutorial's material count.
pub const fn value(role: Role) -> i32 {
    match role {
        Role::Pawn => 100,
        Role::Knight => 300,
        Role::Bishop => 300,
        Role::Rook => 500,
        Role::Queen => 900,
        Role::King => 0,
    }
}

/// White's material minus Black's, counted square by square.
pub fn evaluate(board: &Board) -> i32 {
    let mut score = 0;
    for (_, piece) in board.iter() {
        let v = value(piece.role);
        score += if piece.color == Color::White { v } else { -v };
    }
    score
}

/// How much the material balance (White's point of view) changes when `mover` plays `m`:
/// the value of what it captures plus what a promotion gains. No board is looked at.
pub fn move_delta(m: Move, mover: Color) -> i32 {
    let captured = match m {
        Move::EnPassant { .. } => value(Role::Pawn),
        _ => m.capture().map_or(0, value),
    };
    let promoted = m
        .promotion()
        .map_or(0, |role| value(role) - value(Role::Pawn));
    let gain = captured + promoted;
    if mover == Color::White { gain } else { -gain }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::game::parse_fen;
    use shakmaty::Position;

    #[test]
    fn tutorial_positions() {
        let cases = [
            ("8/8/4kpp1/3p1b2/p6P/2B5/6P1/6K1 b - - 0 47", -200),
            (
                "r4k1r/1b2bPR1/p4n2/3p4/4P2P/1q2B2B/PpP5/1K4R1 w - - 0 26",
                -1000,
            ),
            ("Kn2rn1k/1p2P3/8/8/8/8/8/8 w - - 0 1", -1100),
        ];
        for (fen, expected) in cases {
            assert_eq!(evaluate(parse_fen(fen).unwrap().board()), expected, "{fen}");
        }
    }

    #[test]
    fn delta_matches_recount() {
        let pos = parse_fen("Kn2rn1k/1p2P3/8/8/8/8/8/8 w - - 0 1").unwrap();
        let before = evaluate(pos.board());
        for m in pos.legal_moves() {
            let mut after = pos.clone();
            after.play_unchecked(m);
            assert_eq!(
                before + move_delta(m, pos.turn()),
                evaluate(after.board()),
                "{m:?}"
            );
        }
    }
}
