//! Distance-to-mate tables (Gaviota): what they answer, and every move of a position ranked by
//! them, the fastest mate first when winning and the longest resistance first when losing.

use shakmaty::{Chess, Move, Position};

use crate::core::score::{mate_in, mated_in};

/// Tables that give the distance to mate of a position.
pub trait DtmTables: Send + Sync + std::fmt::Debug {
    /// Plies to mate from the side to move: positive when it mates, negative when it is mated,
    /// 0 for a draw; `None` when the tables do not cover the position.
    fn probe_dtm(&self, pos: &Chess) -> Option<i32>;
}

/// Every legal move with the score the tables give it (mate scores from the mover's side), best
/// first; `None` unless every move's result is known.
pub fn rank_moves(tables: &dyn DtmTables, pos: &Chess) -> Option<Vec<(Move, i32)>> {
    let mut out = Vec::new();
    for m in pos.legal_moves() {
        let mut after = pos.clone();
        after.play_unchecked(m);
        let score = if after.is_checkmate() {
            mate_in(1)
        } else if after.legal_moves().is_empty() || after.is_insufficient_material() {
            0
        } else {
            // The opponent's distance, one ply further from here.
            match -tables.probe_dtm(&after)? {
                0 => 0,
                d if d > 0 => mate_in(d as u32 + 1),
                d => mated_in((-d) as u32 + 1),
            }
        };
        out.push((m, score));
    }
    out.sort_by_key(|&(_, s)| std::cmp::Reverse(s));
    Some(out)
}
