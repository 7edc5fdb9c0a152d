//! The types of the evaluation's values: a (middlegame, endgame) pair `S`, and `Terms`, every
//! term besides material and the piece-square tables. The values in force are in `tuned.rs`.

use std::ops::{Add, AddAssign, Mul, Neg, Sub, SubAssign};

/// A (middlegame, endgame) pair.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct S(pub i32, pub i32);

impl Add for S {
    type Output = S;
    fn add(self, o: S) -> S {
        S(self.0 + o.0, self.1 + o.1)
    }
}
impl AddAssign for S {
    fn add_assign(&mut self, o: S) {
        *self = *self + o;
    }
}
impl Sub for S {
    type Output = S;
    fn sub(self, o: S) -> S {
        S(self.0 - o.0, self.1 - o.1)
    }
}
impl SubAssign for S {
    fn sub_assign(&mut self, o: S) {
        *self = *self - o;
    }
}
impl Neg for S {
    type Output = S;
    fn neg(self) -> S {
        S(-self.0, -self.1)
    }
}
impl Mul<i32> for S {
    type Output = S;
    fn mul(self, k: i32) -> S {
        S(self.0 * k, self.1 * k)
    }
}

/// Every evaluation term besides material and piece-square tables. Values are a hand-set
/// starting point in the usual ranges of classical engines, waiting for a tuner.
#[derive(Clone, Debug)]
pub struct Terms {
    /// Per safe square a piece attacks beyond `mobility_base` (knight, bishop, rook, queen).
    pub mobility: [S; 4],
    pub mobility_base: [i32; 4],
    /// Passed pawn by its rank from its own side (index 1 = second rank ... 6 = seventh).
    pub passed: [S; 8],
    /// Extra for a passed pawn whose path to promotion is empty, by rank.
    pub passed_free: [S; 8],
    /// Per square of (their king's distance - our king's distance) to the stop square, by rank.
    pub passed_king_distance: [S; 8],
    pub isolated: S,
    pub doubled: S,
    pub backward: S,
    /// A pawn defended by a pawn or beside one, by rank.
    pub connected: [S; 8],
    /// King attack units per attacking piece (knight, bishop, rook, queen).
    pub king_attack_weight: [i32; 4],
    /// King danger = units^2 * this / 64 (subtracted).
    pub king_danger: S,
    /// The most king danger counts (not tuned).
    pub king_danger_cap: S,
    /// Own pawn in front of the king, one and two ranks ahead; missing shield pawn.
    pub shield_near: S,
    pub shield_far: S,
    pub shield_missing: S,
    /// Enemy pawn advanced to within two ranks of the king's shield, per pawn.
    pub storm: S,
    pub bishop_pair: S,
    pub rook_open: S,
    pub rook_half_open: S,
    pub queen_open: S,
    pub queen_half_open: S,
    /// A pawn attacks a piece; a minor attacks a rook or queen; a rook attacks a queen.
    pub threat_by_pawn: S,
    pub threat_by_minor: S,
    pub threat_by_rook: S,
    /// An enemy piece attacked and not defended.
    pub hanging: S,
    pub tempo: S,
    /// Endgame scales in 64ths (not tuned): no pawns and at most a minor piece on the board for
    /// the stronger side; no pawns and at most a minor piece ahead; opposite-coloured bishops.
    pub scale_bare_minor: i32,
    pub scale_minor_ahead: i32,
    pub scale_opposite_bishops: i32,
}
