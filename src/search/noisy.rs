//! The noisy moves of a position (legal captures, en passant among them, and the queen
//! promotions that capture nothing), generated directly: shakmaty's `capture_moves` generates
//! every legal move and keeps the captures, and quiescence asks for captures at most of its
//! nodes. The moves come in the order `capture_moves` then `promotion_moves` give them, so the
//! search is the same move for move; a test compares the two on many positions.

use shakmaty::attacks::{
    aligned, between, bishop_attacks, king_attacks, knight_attacks, queen_attacks, rook_attacks,
};
use shakmaty::{Bitboard, Chess, Color, File, Move, MoveList, Position, Rank, Role, Square};

/// Our pieces that stand alone between our king and an enemy slider: they may move only
/// along that line.
fn pinned(pos: &Chess, king: Square) -> Bitboard {
    let board = pos.board();
    let snipers = ((rook_attacks(king, Bitboard::EMPTY) & board.rooks_and_queens())
        | (bishop_attacks(king, Bitboard::EMPTY) & board.bishops_and_queens()))
        & pos.them();
    let mut pinned = Bitboard::EMPTY;
    for sniper in snipers {
        let b = between(king, sniper) & board.occupied();
        if !b.more_than_one() {
            pinned |= b;
        }
    }
    pinned & pos.us()
}

fn push_capture(pos: &Chess, moves: &mut MoveList, role: Role, from: Square, to: Square) {
    moves.push(Move::Normal {
        role,
        from,
        capture: pos.board().role_at(to),
        to,
        promotion: None,
    });
}

/// The noisy moves of any position (in check: the noisy evasions, from shakmaty's generator).
pub fn noisy_moves(pos: &Chess) -> MoveList {
    if pos.is_check() {
        slow_noisy_moves(pos)
    } else {
        let mut moves = MoveList::new();
        noisy_moves_not_in_check(pos, &mut moves);
        moves
    }
}

/// The noisy moves of a position whose side to move is not in check: what the quiescence
/// search asks for (it knows already, so the check is not worked out again).
/// They are added to `moves` (empty: the caller owns the list, so that it is not copied).
pub fn noisy_moves_not_in_check(pos: &Chess, moves: &mut MoveList) {
    debug_assert!(!pos.is_check() && moves.is_empty());
    if pos.pseudo_legal_ep_square().is_some() {
        moves.extend(pos.en_passant_moves());
    }
    let board = pos.board();
    let us = pos.turn();
    let them = pos.them();
    let occupied = board.occupied();
    let Some(king) = board.king_of(us) else {
        return;
    };
    let pinned = pinned(pos, king);
    let legal = |from: Square, to: Square| !pinned.contains(from) || aligned(from, to, king);
    let pawns = pos.our(Role::Pawn);
    let backranks = Bitboard::from_rank(Rank::First) | Bitboard::from_rank(Rank::Eighth);
    let not_a = !Bitboard::from_file(File::A);
    let not_h = !Bitboard::from_file(File::H);

    // Pawn captures, towards the a-file first, then the h-file (promotions after the others).
    let (west, east): ((Bitboard, i32), (Bitboard, i32)) = match us {
        Color::White => (
            (Bitboard((pawns & not_a).0 << 7), 7),
            (Bitboard((pawns & not_h).0 << 9), 9),
        ),
        Color::Black => (
            (Bitboard((pawns & not_a).0 >> 9), -9),
            (Bitboard((pawns & not_h).0 >> 7), -7),
        ),
    };
    for (targets, offset) in [west, east] {
        let captures = targets & them;
        for promote in [false, true] {
            let part = if promote {
                captures & backranks
            } else {
                captures & !backranks
            };
            for to in part {
                let from = to.offset(-offset).expect("a pawn stood there");
                if !legal(from, to) {
                    continue;
                }
                if promote {
                    for p in [Role::Queen, Role::Rook, Role::Bishop, Role::Knight] {
                        moves.push(Move::Normal {
                            role: Role::Pawn,
                            from,
                            capture: board.role_at(to),
                            to,
                            promotion: Some(p),
                        });
                    }
                } else {
                    push_capture(pos, moves, Role::Pawn, from, to);
                }
            }
        }
    }
    // Pieces, in shakmaty's order.
    for role in [Role::Knight, Role::Bishop, Role::Rook, Role::Queen] {
        for from in pos.our(role) {
            let attacks = match role {
                Role::Knight => knight_attacks(from),
                Role::Bishop => bishop_attacks(from, occupied),
                Role::Rook => rook_attacks(from, occupied),
                _ => queen_attacks(from, occupied),
            };
            for to in attacks & them {
                if legal(from, to) {
                    push_capture(pos, moves, role, from, to);
                }
            }
        }
    }
    // The king, onto squares the enemy does not attack (not in check, so the king itself
    // shields no square from a slider).
    for to in king_attacks(king) & them {
        if board.attacks_to(to, !us, occupied).is_empty() {
            push_capture(pos, moves, Role::King, king, to);
        }
    }
    // Queen promotions that capture nothing.
    let push = match us {
        Color::White => Bitboard(pawns.0 << 8),
        Color::Black => Bitboard(pawns.0 >> 8),
    } & !occupied
        & backranks;
    for to in push {
        let from = to
            .offset(if us == Color::White { -8 } else { 8 })
            .expect("a pawn stood there");
        if legal(from, to) {
            moves.push(Move::Normal {
                role: Role::Pawn,
                from,
                capture: None,
                to,
                promotion: Some(Role::Queen),
            });
        }
    }
}

/// The same moves from shakmaty's generators: the reference, and the way out of check.
pub fn slow_noisy_moves(pos: &Chess) -> MoveList {
    let mut moves = pos.capture_moves();
    for m in pos.promotion_moves() {
        if !m.is_capture() && m.promotion() == Some(Role::Queen) {
            moves.push(m);
        }
    }
    moves
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every position a few plies from each perft test position (many pins, promotions, en
    /// passant and checks among them) gives the same moves in the same order both ways.
    #[test]
    fn the_direct_generator_matches_shakmaty_move_for_move() {
        let mut checked = 0;
        for (_, pos) in crate::search::test_positions::near_perft_suites("", 3, 10) {
            assert_eq!(
                noisy_moves(&pos),
                slow_noisy_moves(&pos),
                "{}",
                shakmaty::fen::Fen::from_position(&pos, shakmaty::EnPassantMode::Legal)
            );
            checked += 1;
        }
        assert!(checked > 5_000, "{checked}");
    }
}
