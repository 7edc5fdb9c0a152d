//! The samples: a position's input features, packed, and its training target.

use crate::data::Record;
use crate::nnue::{self, INPUTS, InputLayout};

/// Scores are turned into expected results with this many centipawns a unit.
pub const EVAL_SCALE: f32 = 400.0;

/// A position's inputs and its target, packed in 72 bytes (no allocation of its own, so that
/// tens of millions fit in memory): the side to move's features in the plain layout, and each
/// side's orientation in the net's layout (its king bucket and whether it reads the board
/// mirrored). The other side's plain features are the same pieces seen from the other side
/// (`other_side`); a layout's feature is its bucket's block of 768 plus the plain feature, its
/// file flipped where mirrored.
#[derive(Clone, Copy, Debug)]
pub struct Sample {
    feats: [u16; 32],
    len: u8,
    /// The side to move's and the other side's king bucket, times 8, plus 7 where that side
    /// reads the board mirrored (the XOR of a square's file).
    orient: [u8; 2],
    pub target: f32,
}

// Features are 16-bit: the widest layout's must fit.
const _: () = assert!(INPUTS * nnue::MAX_KING_BUCKETS <= u16::MAX as usize + 1);
const _: () = assert!(nnue::MAX_KING_BUCKETS * 8 <= u8::MAX as usize + 1);

impl Sample {
    /// The sample of a position whose side to move has the plain features `plain` (at most 32),
    /// with each side's orientation from `layout` and the kings' squares, each seen from its
    /// own side.
    fn new(plain: &[u16], kings: [u8; 2], layout: &InputLayout, target: f32) -> Sample {
        let mut feats = [0u16; 32];
        feats[..plain.len()].copy_from_slice(plain);
        let orient = kings.map(|k| {
            let (bucket, flip) = layout.relative(usize::from(k));
            bucket * 8 + flip
        });
        Sample {
            feats,
            len: plain.len() as u8,
            orient,
            target,
        }
    }

    /// Pieces on the board.
    pub fn pieces(&self) -> usize {
        usize::from(self.len)
    }

    /// The features from the side to move's view, written into `out`.
    pub fn stm<'a>(&self, out: &'a mut [u16; 32]) -> &'a [u16] {
        self.laid_out(0, |f| f, out)
    }

    /// The features from the other side's view, written into `out`.
    pub fn ntm<'a>(&self, out: &'a mut [u16; 32]) -> &'a [u16] {
        self.laid_out(1, other_side, out)
    }

    /// Side `side`'s features: `view` of each plain feature, put in the side's orientation.
    #[inline]
    fn laid_out<'a>(&self, side: usize, view: fn(u16) -> u16, out: &'a mut [u16; 32]) -> &'a [u16] {
        let o = u16::from(self.orient[side]);
        let (base, flip) = ((o >> 3) * INPUTS as u16, o & 7);
        for (x, &f) in out.iter_mut().zip(&self.feats[..usize::from(self.len)]) {
            *x = base + (view(f) ^ flip);
        }
        &out[..usize::from(self.len)]
    }
}

/// A feature seen from the other side: the piece changes owner, the board turns over.
pub fn other_side(f: u16) -> u16 {
    let half = nnue::INPUTS as u16 / 2;
    let flipped = if f < half { f + half } else { f - half };
    flipped ^ 56
}

/// The features of a record in the plain layout, both perspectives, and the count.
pub fn plain_features(r: &Record, stm: &mut [u16; 32], ntm: &mut [u16; 32]) -> usize {
    let mut n = 0;
    for (code, sq) in r.pieces() {
        let ours = code >> 3 == 0;
        let role = shakmaty::Role::ALL[usize::from(code & 7).min(5)];
        stm[n] = nnue::feature_index(ours, role, usize::from(sq)) as u16;
        ntm[n] = nnue::feature_index(!ours, role, usize::from(sq ^ 56)) as u16;
        n += 1;
    }
    n
}

/// The features of a record in `layout`, both perspectives, and the count.
pub fn features(
    r: &Record,
    layout: &InputLayout,
    stm: &mut [u16; 32],
    ntm: &mut [u16; 32],
) -> usize {
    let s = sample(r, layout, 0.0);
    s.stm(stm);
    s.ntm(ntm);
    s.pieces()
}

/// The sample of a record in `layout`, with the target blend `wdl`.
fn sample(r: &Record, layout: &InputLayout, wdl: f32) -> Sample {
    // The other side's features are derived when used (`Sample::ntm`).
    let (mut s, mut n) = ([0u16; 32], [0u16; 32]);
    let k = plain_features(r, &mut s, &mut n);
    Sample::new(&s[..k], [r.ksq, r.opp_ksq], layout, target(r, wdl))
}

pub(super) fn sigmoid(x: f32) -> f32 {
    1.0 / (1.0 + (-x).exp())
}

/// The training target of a record.
pub fn target(r: &Record, wdl: f32) -> f32 {
    wdl * r.result_stm() + (1.0 - wdl) * sigmoid(f32::from(r.score) / EVAL_SCALE)
}

/// The samples of `records` (their features in `layout` and targets).
pub fn samples(records: &[Record], layout: &InputLayout, wdl: f32) -> Vec<Sample> {
    records.iter().map(|r| sample(r, layout, wdl)).collect()
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use shakmaty::{Chess, Color, Position};

    /// Positions for the tests: the perft suites' positions and a ply below each.
    pub(crate) fn records(label: impl Fn(&Chess) -> (i32, f64)) -> Vec<Record> {
        let mut out = Vec::new();
        for (_, pos) in crate::nnue::tests::positions() {
            for m in pos.legal_moves().iter().take(12) {
                let mut child = pos.clone();
                child.play_unchecked(*m);
                if child.board().kings().count() == 2 {
                    let (score, result) = label(&child);
                    out.push(Record::new(&child, score, result));
                }
            }
        }
        out
    }

    /// A packed sample gives, in every layout, the features the search's net reads for the
    /// record's board (the side to move White there): the side to move's are White's
    /// perspective's, the other side's Black's.
    #[test]
    fn a_packed_sample_holds_both_perspectives() {
        assert!(std::mem::size_of::<Sample>() <= 72);
        let recs = records(|p| (material(p), 0.5));
        for layout in crate::nnue::tests::presets() {
            let data = samples(&recs, &layout, 0.0);
            assert!(data.len() > 100);
            let mut buckets_seen = vec![false; layout.buckets()];
            for (r, s) in recs.iter().zip(&data) {
                let (mut stm, mut ntm) = ([0u16; 32], [0u16; 32]);
                let k = features(r, &layout, &mut stm, &mut ntm);
                assert_eq!(k, r.piece_count() as usize);
                let (mut ours, mut other) = ([0u16; 32], [0u16; 32]);
                assert_eq!(s.stm(&mut ours), &stm[..k]);
                assert_eq!(s.ntm(&mut other), &ntm[..k]);
                let board = r.board();
                for (perspective, got) in [(Color::White, &stm[..k]), (Color::Black, &ntm[..k])] {
                    let o = layout.orientation(perspective, nnue::king_square(&board, perspective));
                    buckets_seen[o.bucket()] = true;
                    let mut want: Vec<u16> = board
                        .iter()
                        .map(|(sq, piece)| o.feature(perspective, piece, sq) as u16)
                        .collect();
                    let mut got = got.to_vec();
                    want.sort_unstable();
                    got.sort_unstable();
                    assert_eq!(got, want, "{}: {}", layout.describe(), r.fen());
                }
            }
            assert!(buckets_seen.iter().all(|&b| b), "{}", layout.describe());
        }
    }

    pub(crate) fn material(pos: &Chess) -> i32 {
        let values = [100, 300, 300, 500, 900, 0];
        let mut s = 0;
        for (_, p) in pos.board().iter() {
            let v = values[p.role as usize - 1];
            s += if p.color == pos.turn() { v } else { -v };
        }
        s
    }
}
