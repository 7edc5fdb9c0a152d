//! Scores in centipawns, and the mate-score convention every engine shares.
//!
//! A score is an `i32` in centipawns from the point of view named where it is used (the ladder's
//! max/min engines think from White's side; negamax engines and `Analysis` from the side to move).
//! A position where the side to move is checkmated scores `-MATE`; a mate found `ply` half-moves
//! below the root scores `MATE - ply`, so shorter mates score higher. The tutorial used 100 pawns for
//! checkmate; with nine queens a side can own 103 pawns of material, so Rookery keeps mate far above
//! any material sum.

/// Score of checkmate at the root.
pub const MATE: i32 = 30_000;
/// Any score at least this large (in absolute value) is a mate score.
pub const MATE_BOUND: i32 = MATE - 1_000;
/// A position the tablebases call won, `ply` half-moves below the root, scores `TB_WIN - ply`:
/// below every mate, above every evaluation.
pub const TB_WIN: i32 = 20_000;
/// Any score at least this large (in absolute value) is a tablebase win or a mate: such scores
/// count their distance from the root, so tables store them relative to the node.
pub const TB_BOUND: i32 = TB_WIN - 1_000;
/// Larger than every score: the bounds of a full alpha-beta window.
pub const INFINITY: i32 = 32_000;
/// A draw.
pub const DRAW: i32 = 0;

/// Score for delivering mate `ply` half-moves from the root.
pub const fn mate_in(ply: u32) -> i32 {
    MATE - ply as i32
}

/// Score for being mated `ply` half-moves from the root.
pub const fn mated_in(ply: u32) -> i32 {
    -MATE + ply as i32
}

/// True for scores that announce a forced mate.
pub const fn is_mate(score: i32) -> bool {
    score >= MATE_BOUND || score <= -MATE_BOUND
}

/// Full moves to mate, positive when the side whose score this is mates, negative when it is mated.
/// `None` for ordinary scores.
pub fn mate_moves(score: i32) -> Option<i32> {
    if score >= MATE_BOUND {
        Some((MATE - score + 1) / 2)
    } else if score <= -MATE_BOUND {
        Some(-((MATE + score) / 2))
    } else {
        None
    }
}

/// A score for people: `+1.25`, `-0.50`, `#3` (mates in 3), `#-2` (is mated in 2).
pub fn format_score(score: i32) -> String {
    match mate_moves(score) {
        Some(m) => format!("#{m}"),
        None => format!("{:+.2}", f64::from(score) / 100.0),
    }
}

/// A score as UCI writes it: `cp 125` or `mate -2`.
pub fn uci_score(score: i32) -> String {
    match mate_moves(score) {
        Some(m) => format!("mate {m}"),
        None => format!("cp {score}"),
    }
}

/// Converts a score relative to the root into one relative to a node `ply` deep (for storing in a
/// transposition table), so a mate stored at one depth reads right when found at another.
pub const fn to_table(score: i32, ply: u32) -> i32 {
    if score >= TB_BOUND {
        score + ply as i32
    } else if score <= -TB_BOUND {
        score - ply as i32
    } else {
        score
    }
}

/// The inverse of [`to_table`].
pub const fn from_table(score: i32, ply: u32) -> i32 {
    if score >= TB_BOUND {
        score - ply as i32
    } else if score <= -TB_BOUND {
        score + ply as i32
    } else {
        score
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mate_distances_in_moves() {
        assert_eq!(mate_moves(mate_in(1)), Some(1));
        assert_eq!(mate_moves(mate_in(3)), Some(2));
        assert_eq!(mate_moves(mated_in(0)), Some(0));
        assert_eq!(mate_moves(mated_in(2)), Some(-1));
        assert_eq!(mate_moves(150), None);
        assert_eq!(format_score(mate_in(5)), "#3");
        assert_eq!(format_score(-50), "-0.50");
        assert_eq!(uci_score(mated_in(4)), "mate -2");
    }

    #[test]
    fn table_round_trip() {
        for s in [mate_in(7), mated_in(9), 0, 345, -999] {
            assert_eq!(from_table(to_table(s, 5), 5), s);
        }
        // A mate in 3 plies stored at ply 2 reads as mate in 5 plies at ply 4.
        assert_eq!(from_table(to_table(mate_in(3), 2), 4), mate_in(5));
    }
}
