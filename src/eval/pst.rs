//! The Simplified Evaluation Function (Tomasz Michniewski): piece values 100/320/330/500/900 and a
//! piece-square table for each piece, with separate king tables for the middlegame and endgame.
//!
//! Numbers: Michniewski's tables as published on chessprogramming.org ("Simplified Evaluation
//! Function"). Tables are written as a board is drawn, rank 8 first, from White's side; a black
//! piece reads its square mirrored. Scores are from White's point of view, in centipawns.

use shakmaty::{Board, Color, Role, Square};

pub const fn value(role: Role) -> i32 {
    match role {
        Role::Pawn => 100,
        Role::Knight => 320,
        Role::Bishop => 330,
        Role::Rook => 500,
        Role::Queen => 900,
        Role::King => 0,
    }
}

#[rustfmt::skip]
const PAWN: [i32; 64] = [
     0,  0,  0,  0,  0,  0,  0,  0,
    50, 50, 50, 50, 50, 50, 50, 50,
    10, 10, 20, 30, 30, 20, 10, 10,
     5,  5, 10, 25, 25, 10,  5,  5,
     0,  0,  0, 20, 20,  0,  0,  0,
     5, -5,-10,  0,  0,-10, -5,  5,
     5, 10, 10,-20,-20, 10, 10,  5,
     0,  0,  0,  0,  0,  0,  0,  0,
];

#[rustfmt::skip]
const KNIGHT: [i32; 64] = [
    -50,-40,-30,-30,-30,-30,-40,-50,
    -40,-20,  0,  0,  0,  0,-20,-40,
    -30,  0, 10, 15, 15, 10,  0,-30,
    -30,  5, 15, 20, 20, 15,  5,-30,
    -30,  0, 15, 20, 20, 15,  0,-30,
    -30,  5, 10, 15, 15, 10,  5,-30,
    -40,-20,  0,  5,  5,  0,-20,-40,
    -50,-40,-30,-30,-30,-30,-40,-50,
];

#[rustfmt::skip]
const BISHOP: [i32; 64] = [
    -20,-10,-10,-10,-10,-10,-10,-20,
    -10,  0,  0,  0,  0,  0,  0,-10,
    -10,  0,  5, 10, 10,  5,  0,-10,
    -10,  5,  5, 10, 10,  5,  5,-10,
    -10,  0, 10, 10, 10, 10,  0,-10,
    -10, 10, 10, 10, 10, 10, 10,-10,
    -10,  5,  0,  0,  0,  0,  5,-10,
    -20,-10,-10,-10,-10,-10,-10,-20,
];

#[rustfmt::skip]
const ROOK: [i32; 64] = [
     0,  0,  0,  0,  0,  0,  0,  0,
     5, 10, 10, 10, 10, 10, 10,  5,
    -5,  0,  0,  0,  0,  0,  0, -5,
    -5,  0,  0,  0,  0,  0,  0, -5,
    -5,  0,  0,  0,  0,  0,  0, -5,
    -5,  0,  0,  0,  0,  0,  0, -5,
    -5,  0,  0,  0,  0,  0,  0, -5,
     0,  0,  0,  5,  5,  0,  0,  0,
];

#[rustfmt::skip]
const QUEEN: [i32; 64] = [
    -20,-10,-10, -5, -5,-10,-10,-20,
    -10,  0,  0,  0,  0,  0,  0,-10,
    -10,  0,  5,  5,  5,  5,  0,-10,
     -5,  0,  5,  5,  5,  5,  0, -5,
      0,  0,  5,  5,  5,  5,  0, -5,
    -10,  5,  5,  5,  5,  5,  0,-10,
    -10,  0,  5,  0,  0,  0,  0,-10,
    -20,-10,-10, -5, -5,-10,-10,-20,
];

#[rustfmt::skip]
const KING_MIDDLEGAME: [i32; 64] = [
    -30,-40,-40,-50,-50,-40,-40,-30,
    -30,-40,-40,-50,-50,-40,-40,-30,
    -30,-40,-40,-50,-50,-40,-40,-30,
    -30,-40,-40,-50,-50,-40,-40,-30,
    -20,-30,-30,-40,-40,-30,-30,-20,
    -10,-20,-20,-20,-20,-20,-20,-10,
     20, 20,  0,  0,  0,  0, 20, 20,
     20, 30, 10,  0,  0, 10, 30, 20,
];

#[rustfmt::skip]
const KING_ENDGAME: [i32; 64] = [
    -50,-40,-30,-20,-20,-30,-40,-50,
    -30,-20,-10,  0,  0,-10,-20,-30,
    -30,-10, 20, 30, 30, 20,-10,-30,
    -30,-10, 30, 40, 40, 30,-10,-30,
    -30,-10, 30, 40, 40, 30,-10,-30,
    -30,-10, 20, 30, 30, 20,-10,-30,
    -30,-30,  0,  0,  0,  0,-30,-30,
    -50,-30,-30,-30,-30,-30,-30,-50,
];

/// Michniewski's endgame: no queens, or every side with a queen has at most one minor piece
/// besides it (and no rook).
pub fn is_endgame(board: &Board) -> bool {
    [Color::White, Color::Black].into_iter().all(|c| {
        let side = board.by_color(c);
        if (board.queens() & side).is_empty() {
            return true;
        }
        let rooks = (board.rooks() & side).count();
        let minors = ((board.knights() | board.bishops()) & side).count();
        rooks == 0 && minors <= 1
    })
}

/// Table bonus for a piece of `color` and `role` on `sq`.
pub fn square_bonus(role: Role, color: Color, sq: Square, endgame: bool) -> i32 {
    let table = match role {
        Role::Pawn => &PAWN,
        Role::Knight => &KNIGHT,
        Role::Bishop => &BISHOP,
        Role::Rook => &ROOK,
        Role::Queen => &QUEEN,
        Role::King if endgame => &KING_ENDGAME,
        Role::King => &KING_MIDDLEGAME,
    };
    let file = usize::from(sq.file());
    let rank = usize::from(sq.rank());
    // Row 0 of a table is rank 8 for White; Black sees the board mirrored.
    let row = if color == Color::White {
        7 - rank
    } else {
        rank
    };
    table[row * 8 + file]
}

/// Material plus piece-square bonuses, White's minus Black's.
pub fn evaluate(board: &Board) -> i32 {
    let endgame = is_endgame(board);
    let mut score = 0;
    for (sq, piece) in board.iter() {
        let v = value(piece.role) + square_bonus(piece.role, piece.color, sq, endgame);
        score += if piece.color == Color::White { v } else { -v };
    }
    score
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::game::parse_fen;
    use shakmaty::Position;

    #[test]
    fn start_position_is_balanced() {
        assert_eq!(evaluate(shakmaty::Chess::default().board()), 0);
    }

    #[test]
    fn symmetric_under_colour_flip() {
        let fens = [
            "r1bqrnk1/pp2bppp/2p2n2/3p2B1/3P4/2NBPN2/PPQ2PPP/R4RK1 w - - 7 11",
            "8/8/4kpp1/3p1b2/p6P/2B5/6P1/6K1 b - - 0 47",
            "r4k1r/1b2bPR1/p4n2/3p4/4P2P/1q2B2B/PpP5/1K4R1 w - - 0 26",
        ];
        for fen in fens {
            let board = parse_fen(fen).unwrap().board().clone();
            let mut flipped = board.clone();
            flipped.flip_vertical();
            flipped.swap_colors();
            assert_eq!(evaluate(&board), -evaluate(&flipped), "{fen}");
        }
    }

    #[test]
    fn tables_read_from_the_right_side() {
        // A white knight on e4 and a black knight on e5 get the same bonus.
        assert_eq!(
            square_bonus(Role::Knight, Color::White, Square::E4, false),
            square_bonus(Role::Knight, Color::Black, Square::E5, false)
        );
        // A white pawn on the 7th rank is worth 50; on e2 it is -20.
        assert_eq!(
            square_bonus(Role::Pawn, Color::White, Square::A7, false),
            50
        );
        assert_eq!(
            square_bonus(Role::Pawn, Color::White, Square::E2, false),
            -20
        );
        assert_eq!(
            square_bonus(Role::King, Color::White, Square::G1, false),
            30
        );
        assert_eq!(
            square_bonus(Role::King, Color::Black, Square::G8, false),
            30
        );
        assert!(is_endgame(
            parse_fen("8/8/4kpp1/3p1b2/p6P/2B5/6P1/6K1 b - - 0 47")
                .unwrap()
                .board()
        ));
        assert!(!is_endgame(shakmaty::Chess::default().board()));
    }
}
