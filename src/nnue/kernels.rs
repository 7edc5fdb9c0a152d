//! The net's arithmetic: the feature transformer (an accumulator summed from scratch, or updated
//! from its parent's with a move's few changed features) and the output layer (the activation of
//! both perspectives' hidden layers times the output bucket's weights).
//!
//! The hidden layer is a slice of `hidden` 16-bit integers; every loop here runs over plain slices
//! of fixed element types so that the compiler vectorises it for whatever instruction set the
//! build targets, with no intrinsics and no unsafe code.

use shakmaty::{Bitboard, Board, Color, Piece, Role};

use super::{
    Accumulator, Activation, Delta, MAX_OUT_WEIGHT, Network, Orientation, QA, QB, SCALE, bucket,
    king_square,
};

impl Network {
    #[inline]
    fn row(&self, feature: usize) -> &[i16] {
        &self.ft_weights[feature * self.hidden..(feature + 1) * self.hidden]
    }

    /// Both perspectives' accumulators of `board` from scratch.
    pub fn refresh(&self, board: &Board, acc: &mut Accumulator) {
        let h = self.hidden;
        for (p, perspective) in [Color::White, Color::Black].into_iter().enumerate() {
            let o = self
                .layout
                .orientation(perspective, king_square(board, perspective));
            let v = &mut acc.v[p][..h];
            v.copy_from_slice(&self.ft_bias);
            for (sq, piece) in board.iter() {
                add(v, self.row(o.feature(perspective, piece, sq)));
            }
        }
    }

    /// `to` = `from` with the features of `delta` added and removed (both perspectives), for a
    /// move after which the kings stand on `kings` (White's, Black's). The move must leave each
    /// perspective's orientation (king bucket, mirror side) as it was; one that changes it
    /// needs that perspective rebuilt ([`super::AccumulatorStack`] does).
    pub fn update(
        &self,
        from: &Accumulator,
        to: &mut Accumulator,
        delta: &Delta,
        kings: [shakmaty::Square; 2],
    ) {
        let h = self.hidden;
        for (p, perspective) in [Color::White, Color::Black].into_iter().enumerate() {
            let o = self.layout.orientation(perspective, kings[p]);
            self.update_side(&from.v[p][..h], &mut to.v[p][..h], delta, perspective, o);
        }
    }

    /// One perspective's hidden layer `dst` = `src` with the features of `delta`, read in
    /// orientation `o`.
    #[inline]
    pub(super) fn update_side(
        &self,
        src: &[i16],
        dst: &mut [i16],
        delta: &Delta,
        perspective: Color,
        o: Orientation,
    ) {
        let rows = |list: &[u16]| -> [usize; 2] {
            let mut out = [0; 2];
            for (f, &code) in out.iter_mut().zip(list) {
                let (piece, sq) = Delta::decode(code);
                *f = o.feature(perspective, piece, sq);
            }
            out
        };
        let adds = rows(delta.adds());
        let subs = rows(delta.subs());
        match (delta.n_add, delta.n_sub) {
            (1, 1) => add_sub(dst, src, self.row(adds[0]), self.row(subs[0])),
            (1, 2) => {
                add_sub(dst, src, self.row(adds[0]), self.row(subs[0]));
                sub(dst, self.row(subs[1]));
            }
            _ => {
                dst.copy_from_slice(src);
                for &f in &adds[..delta.n_add as usize] {
                    add(dst, self.row(f));
                }
                for &f in &subs[..delta.n_sub as usize] {
                    sub(dst, self.row(f));
                }
            }
        }
    }

    /// Brings `v`, one perspective's hidden layer built in orientation `o` from the pieces
    /// `have` (a bitboard a piece: White's six roles, then Black's), to `board`'s pieces: the
    /// features of the pieces `board` has and `have` lacks are added, the others subtracted,
    /// and `have` becomes `board`'s.
    pub(super) fn apply_board_difference(
        &self,
        v: &mut [i16],
        have: &mut [Bitboard; 12],
        board: &Board,
        perspective: Color,
        o: Orientation,
    ) {
        let pieces = Color::ALL
            .into_iter()
            .flat_map(|color| Role::ALL.into_iter().map(move |role| Piece { color, role }));
        for (had, piece) in have.iter_mut().zip(pieces) {
            let now = board.by_piece(piece);
            for sq in now & !*had {
                add(v, self.row(o.feature(perspective, piece, sq)));
            }
            for sq in *had & !now {
                sub(v, self.row(o.feature(perspective, piece, sq)));
            }
            *had = now;
        }
    }

    /// The score in centipawns for the side to move `turn`, from the accumulators of a board
    /// with `pieces` pieces on it (which picks the output bucket).
    pub fn evaluate(&self, acc: &Accumulator, turn: Color, pieces: u32) -> i32 {
        let h = self.hidden;
        let (us, them) = match turn {
            Color::White => (&acc.v[0][..h], &acc.v[1][..h]),
            Color::Black => (&acc.v[1][..h], &acc.v[0][..h]),
        };
        let b = bucket(pieces, self.buckets);
        let (w_us, w_them) = self.out_weights[2 * h * b..2 * h * (b + 1)].split_at(h);
        let bias = i64::from(self.out_bias[b]);
        let out = match self.activation {
            Activation::SCReLU => {
                let sum = screlu_dot(us, w_us) + screlu_dot(them, w_them);
                sum / i64::from(QA) + bias
            }
            Activation::CReLU => crelu_dot(us, w_us) + crelu_dot(them, w_them) + bias,
        };
        (out * i64::from(SCALE) / i64::from(QA * QB)) as i32
    }

    /// The score of a board for the side to move `turn`, from scratch.
    pub fn evaluate_board(&self, board: &Board, turn: Color) -> i32 {
        let mut acc = Accumulator::new();
        self.refresh(board, &mut acc);
        self.evaluate(&acc, turn, board.occupied().count() as u32)
    }
}

#[inline]
fn add(v: &mut [i16], row: &[i16]) {
    for (a, &w) in v.iter_mut().zip(row) {
        *a = a.wrapping_add(w);
    }
}

#[inline]
fn sub(v: &mut [i16], row: &[i16]) {
    for (a, &w) in v.iter_mut().zip(row) {
        *a = a.wrapping_sub(w);
    }
}

#[inline]
fn add_sub(dst: &mut [i16], src: &[i16], plus: &[i16], minus: &[i16]) {
    for (((d, &s), &p), &m) in dst.iter_mut().zip(src).zip(plus).zip(minus) {
        *d = s.wrapping_add(p).wrapping_sub(m);
    }
}

/// `sum clamp(x, 0, QA)^2 * w`. `v * w` fits in 16 bits (output weights are within
/// +/-`MAX_OUT_WEIGHT`), so the products are 16 x 16 -> 32 bits, which vectorise even without
/// SSE4.1's 32-bit multiply. A block of 128 products (each under 2^23) sums within 32 bits, so
/// the vector registers are reduced once a block, and the fixed block length leaves the
/// compiler no remainder loop.
#[inline]
fn screlu_dot(x: &[i16], w: &[i16]) -> i64 {
    const BLOCK: usize = 128;
    const _: () =
        assert!(BLOCK * (QA as usize * MAX_OUT_WEIGHT as usize * QA as usize) < i32::MAX as usize);
    let term = |a: i16, b: i16| {
        let v = a.clamp(0, QA as i16);
        i32::from(v.wrapping_mul(b)) * i32::from(v)
    };
    let (xs, xr) = x.as_chunks::<BLOCK>();
    let (ws, wr) = w.as_chunks::<BLOCK>();
    let mut total = 0i64;
    for (xc, wc) in xs.iter().zip(ws) {
        let s: i32 = xc.iter().zip(wc).map(|(&a, &b)| term(a, b)).sum();
        total += i64::from(s);
    }
    for (&a, &b) in xr.iter().zip(wr) {
        total += i64::from(term(a, b));
    }
    total
}

/// `sum clamp(x, 0, QA) * w`.
#[inline]
fn crelu_dot(x: &[i16], w: &[i16]) -> i64 {
    let mut s = 0i64;
    for (&a, &b) in x.iter().zip(w) {
        s += i64::from(i32::from(a).clamp(0, QA) * i32::from(b));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::game::parse_fen;
    use crate::nnue::{INPUTS, MAX_HIDDEN};
    use shakmaty::Position;

    /// The blocked SCReLU dot product equals a plain 64-bit sum for every length up to
    /// `MAX_HIDDEN`, whole blocks and remainders, at the extremes of both inputs (the largest
    /// terms, where 32-bit sums would overflow first) and on mixed values.
    #[test]
    fn screlu_dot_equals_a_plain_sum() {
        let plain = |x: &[i16], w: &[i16]| -> i64 {
            x.iter()
                .zip(w)
                .map(|(&a, &b)| {
                    let v = i64::from(a.clamp(0, QA as i16));
                    v * v * i64::from(b)
                })
                .sum()
        };
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut next = |lo: i64, hi: i64| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (lo + (state % (hi - lo + 1) as u64) as i64) as i16
        };
        for len in [0, 1, 15, 127, 128, 129, 200, 256, 384, 512, MAX_HIDDEN] {
            let top = vec![QA as i16; len];
            let w_max = vec![MAX_OUT_WEIGHT; len];
            let w_min = vec![-MAX_OUT_WEIGHT; len];
            assert_eq!(
                screlu_dot(&top, &w_max),
                plain(&top, &w_max),
                "len {len}, max"
            );
            assert_eq!(
                screlu_dot(&top, &w_min),
                plain(&top, &w_min),
                "len {len}, min"
            );
            let x: Vec<i16> = (0..len).map(|_| next(-600, 600)).collect();
            let w: Vec<i16> = (0..len)
                .map(|_| next(-i64::from(MAX_OUT_WEIGHT), i64::from(MAX_OUT_WEIGHT)))
                .collect();
            assert_eq!(screlu_dot(&x, &w), plain(&x, &w), "len {len}, mixed");
        }
    }

    /// Each piece count reads its own output layer: with the hidden layer silent, the score is
    /// the bucket's bias.
    #[test]
    fn the_piece_count_picks_the_output_bucket() {
        assert_eq!(bucket(32, 8), 7);
        assert_eq!(bucket(2, 8), 0);
        assert_eq!(bucket(5, 8), 0);
        assert_eq!(bucket(6, 8), 1);
        assert_eq!(bucket(17, 1), 0);
        assert_eq!(bucket(17, 2), 0);
        assert_eq!(bucket(18, 2), 1);
        let h = 8;
        let bias: Vec<i32> = (0..8).map(|b| (b + 1) * QA * QB / 4).collect();
        let net = Network::from_parts(
            Activation::SCReLU,
            crate::nnue::InputLayout::PLAIN,
            vec![0; INPUTS * h],
            vec![0; h],
            vec![0; 2 * h * 8],
            bias,
            String::new(),
        )
        .unwrap();
        for (fen, pieces) in [
            (
                "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
                32,
            ),
            ("8/8/4k3/8/8/3K4/8/8 w - - 0 1", 2),
            ("8/2p5/4k3/8/1R6/3K1N2/8/8 b - - 0 1", 5),
            ("r3k3/8/8/8/8/8/8/4K2R w - - 0 1", 4),
            ("r1b1k3/pp6/8/8/8/8/PPP5/2B1K2R w - - 0 1", 11),
        ] {
            let pos = parse_fen(fen).unwrap();
            assert_eq!(pos.board().occupied().count(), pieces);
            let b = bucket(pieces as u32, 8) as i32;
            assert_eq!(
                net.evaluate_board(pos.board(), pos.turn()),
                (b + 1) * SCALE / 4,
                "{fen}"
            );
        }
    }
}
