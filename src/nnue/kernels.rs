//! The net's arithmetic: the feature transformer (an accumulator summed from scratch, or updated
//! from its parent's with a move's few changed features) and the output layer (the activation of
//! both perspectives' hidden layers times the output bucket's weights).
//!
//! The hidden layer is a slice of `hidden` 16-bit integers; the loops over it are a [`Kernel`]'s
//! (`simd.rs`): the vector instructions of the CPU the program runs on, or the portable loops.
//! Each public function here uses the kernel in force ([`simd::in_use`]); the `_in` forms take
//! one, so tests can hold every kernel to the portable one.

use shakmaty::{Bitboard, Board, Color, Piece, Role};

use super::simd::{self, Kernel, Weight};
use super::{
    Accumulator, Activation, Delta, Network, Orientation, QA, QB, SCALE, bucket, king_square,
};

/// Feature `feature`'s row of `hidden` weights among `weights`.
#[inline]
fn row<W: Weight>(weights: &[W], hidden: usize, feature: usize) -> &[W] {
    &weights[feature * hidden..(feature + 1) * hidden]
}

impl Network {
    #[inline]
    fn row(&self, feature: usize) -> &[i16] {
        row(&self.ft_weights, self.hidden, feature)
    }

    /// Both perspectives' accumulators of `board` from scratch.
    pub fn refresh(&self, board: &Board, acc: &mut Accumulator) {
        self.refresh_in(simd::in_use(), board, acc);
    }

    /// `refresh` with kernel `k`.
    pub fn refresh_in(&self, k: Kernel, board: &Board, acc: &mut Accumulator) {
        let h = self.hidden;
        for (p, perspective) in [Color::White, Color::Black].into_iter().enumerate() {
            let o = self
                .layout
                .orientation(perspective, king_square(board, perspective));
            let v = &mut acc.v[p][..h];
            v.copy_from_slice(&self.ft_bias);
            for (sq, piece) in board.iter() {
                k.add(v, self.row(o.feature(perspective, piece, sq)));
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
        self.update_in(simd::in_use(), from, to, delta, kings);
    }

    /// `update` with kernel `k`.
    pub fn update_in(
        &self,
        k: Kernel,
        from: &Accumulator,
        to: &mut Accumulator,
        delta: &Delta,
        kings: [shakmaty::Square; 2],
    ) {
        let h = self.hidden;
        for (p, perspective) in [Color::White, Color::Black].into_iter().enumerate() {
            let o = self.layout.orientation(perspective, kings[p]);
            self.update_side(k, &from.v[p][..h], &mut to.v[p][..h], delta, perspective, o);
        }
    }

    /// One perspective's hidden layer `dst` = `src` with the features of `delta`, read in
    /// orientation `o`: from the 8-bit rows where the net has them.
    #[inline]
    pub(super) fn update_side(
        &self,
        k: Kernel,
        src: &[i16],
        dst: &mut [i16],
        delta: &Delta,
        perspective: Color,
        o: Orientation,
    ) {
        match &self.ft8 {
            Some(rows) => self.update_side_from(rows, k, src, dst, delta, perspective, o),
            None => self.update_side_from(&self.ft_weights, k, src, dst, delta, perspective, o),
        }
    }

    /// `update_side` with the rows `weights`.
    #[inline]
    #[allow(clippy::too_many_arguments)]
    fn update_side_from<W: Weight>(
        &self,
        weights: &[W],
        k: Kernel,
        src: &[i16],
        dst: &mut [i16],
        delta: &Delta,
        perspective: Color,
        o: Orientation,
    ) {
        let h = self.hidden;
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
            (1, 1) => k.add_sub(dst, src, row(weights, h, adds[0]), row(weights, h, subs[0])),
            (1, 2) => k.add_sub_sub(
                dst,
                src,
                row(weights, h, adds[0]),
                row(weights, h, subs[0]),
                row(weights, h, subs[1]),
            ),
            _ => {
                dst.copy_from_slice(src);
                for &f in &adds[..delta.n_add as usize] {
                    k.add(dst, row(weights, h, f));
                }
                for &f in &subs[..delta.n_sub as usize] {
                    k.sub(dst, row(weights, h, f));
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
        match &self.ft8 {
            Some(rows) => self.apply_board_difference_from(rows, v, have, board, perspective, o),
            None => {
                self.apply_board_difference_from(&self.ft_weights, v, have, board, perspective, o)
            }
        }
    }

    /// `apply_board_difference` with the rows `weights`.
    fn apply_board_difference_from<W: Weight>(
        &self,
        weights: &[W],
        v: &mut [i16],
        have: &mut [Bitboard; 12],
        board: &Board,
        perspective: Color,
        o: Orientation,
    ) {
        let h = self.hidden;
        let k = simd::in_use();
        let pieces = Color::ALL
            .into_iter()
            .flat_map(|color| Role::ALL.into_iter().map(move |role| Piece { color, role }));
        for (had, piece) in have.iter_mut().zip(pieces) {
            let now = board.by_piece(piece);
            for sq in now & !*had {
                k.add(v, row(weights, h, o.feature(perspective, piece, sq)));
            }
            for sq in *had & !now {
                k.sub(v, row(weights, h, o.feature(perspective, piece, sq)));
            }
            *had = now;
        }
    }

    /// The score in centipawns for the side to move `turn`, from the accumulators of a board
    /// with `pieces` pieces on it (which picks the output bucket).
    pub fn evaluate(&self, acc: &Accumulator, turn: Color, pieces: u32) -> i32 {
        self.evaluate_in(simd::in_use(), acc, turn, pieces)
    }

    /// `evaluate` with kernel `k`.
    pub fn evaluate_in(&self, k: Kernel, acc: &Accumulator, turn: Color, pieces: u32) -> i32 {
        let h = self.hidden;
        let (us, them) = match turn {
            Color::White => (&acc.v[0][..h], &acc.v[1][..h]),
            Color::Black => (&acc.v[1][..h], &acc.v[0][..h]),
        };
        let b = bucket(pieces, self.buckets);
        if let Some(deep) = &self.deep {
            return deep.evaluate(k, self.activation, us, them, b);
        }
        let (w_us, w_them) = self.out_weights[2 * h * b..2 * h * (b + 1)].split_at(h);
        let bias = i64::from(self.out_bias[b]);
        let out = match self.activation {
            Activation::SCReLU => {
                let sum = k.screlu_dot(us, w_us) + k.screlu_dot(them, w_them);
                sum / i64::from(QA) + bias
            }
            Activation::CReLU => k.crelu_dot(us, w_us) + k.crelu_dot(them, w_them) + bias,
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::game::parse_fen;
    use crate::nnue::INPUTS;
    use crate::nnue::tests::positions;
    use shakmaty::Position;

    /// Every kernel this CPU runs works out the same accumulators and scores as the portable
    /// loops for whole nets (a width with a tail after the vectors, and a usual one; both
    /// activations; output buckets; deep heads, paired ones too): from scratch on every perft position, and
    /// updated by each of its moves.
    #[test]
    fn each_kernel_scores_whole_nets_as_the_portable_loops_do() {
        use crate::nnue::simd::Simd;
        use crate::nnue::tests::random_bucketed_net;
        let portable = Kernel::new(Simd::Portable).unwrap();
        let kernels: Vec<Kernel> = Simd::ALL.into_iter().filter_map(Kernel::new).collect();
        let mut checked = 0;
        let deep = |hidden, activation, head| {
            crate::nnue::tests::random_deep_net(
                hidden,
                activation,
                8,
                crate::nnue::InputLayout::PLAIN,
                head,
            )
        };
        // Heads the narrow vector loop takes.
        let narrow = |activation| {
            let net = crate::nnue::tests::random_deep_net_within(
                if activation == Activation::SCReLU {
                    512
                } else {
                    64
                },
                activation,
                8,
                crate::nnue::InputLayout::PLAIN,
                (16, 32),
                crate::nnue::deep::NARROW as u64,
                false,
            );
            assert!(net.deep().unwrap().narrow);
            net
        };
        // Heads that read pairs' products: narrow and not, with and without a vector loop.
        let paired = |hidden, activation, span| {
            let net = crate::nnue::tests::random_deep_net_within(
                hidden,
                activation,
                8,
                crate::nnue::InputLayout::PLAIN,
                (8, 32),
                span,
                true,
            );
            assert!(net.deep().unwrap().paired);
            net
        };
        for (hidden, _, net) in [
            (
                40,
                Activation::SCReLU,
                random_bucketed_net(40, Activation::SCReLU, 8),
            ),
            (
                256,
                Activation::CReLU,
                random_bucketed_net(256, Activation::CReLU, 8),
            ),
            (40, Activation::SCReLU, deep(40, Activation::SCReLU, (8, 3))),
            (
                256,
                Activation::CReLU,
                deep(256, Activation::CReLU, (32, 32)),
            ),
            (
                512,
                Activation::SCReLU,
                deep(512, Activation::SCReLU, (16, 32)),
            ),
            (512, Activation::SCReLU, narrow(Activation::SCReLU)),
            (64, Activation::CReLU, narrow(Activation::CReLU)),
            (512, Activation::SCReLU, paired(512, Activation::SCReLU, 64)),
            (
                512,
                Activation::SCReLU,
                paired(512, Activation::SCReLU, 127),
            ),
            (64, Activation::CReLU, paired(64, Activation::CReLU, 127)),
            (40, Activation::SCReLU, paired(40, Activation::SCReLU, 127)),
        ]
        .into_iter()
        // Each net's feature weights fit 8 bits: updated from its 8-bit rows, and from its
        // 16-bit ones.
        .flat_map(|(h, a, net)| {
            assert!(net.eight_bit_rows());
            [(h, a, net.clone()), (h, a, net.with_16_bit_rows())]
        }) {
            for (fen, pos) in positions() {
                let mut want = Accumulator::new();
                net.refresh_in(portable, pos.board(), &mut want);
                let pieces = pos.board().occupied().count() as u32;
                let score = net.evaluate_in(portable, &want, pos.turn(), pieces);
                for &k in &kernels {
                    let mut got = Accumulator::new();
                    net.refresh_in(k, pos.board(), &mut got);
                    assert_eq!(got.v[0][..hidden], want.v[0][..hidden], "{k:?} {fen}");
                    assert_eq!(got.v[1][..hidden], want.v[1][..hidden], "{k:?} {fen}");
                    assert_eq!(net.evaluate_in(k, &got, pos.turn(), pieces), score);
                }
                for m in pos.legal_moves().into_iter().take(8) {
                    let mut delta = Delta::default();
                    crate::nnue::accumulator::tests::delta_of(&pos, m, &mut delta);
                    let mut child = pos.clone();
                    child.play_unchecked(m);
                    let kings = [Color::White, Color::Black].map(|c| king_square(child.board(), c));
                    let mut want_child = Accumulator::new();
                    net.update_in(portable, &want, &mut want_child, &delta, kings);
                    // The plain layout never reorients: the update is the child's refresh.
                    let mut fresh = Accumulator::new();
                    net.refresh_in(portable, child.board(), &mut fresh);
                    assert_eq!(want_child.v[0][..hidden], fresh.v[0][..hidden], "{m}");
                    assert_eq!(want_child.v[1][..hidden], fresh.v[1][..hidden], "{m}");
                    for &k in &kernels {
                        let mut got = Accumulator::new();
                        net.update_in(k, &want, &mut got, &delta, kings);
                        assert_eq!(got.v[0][..hidden], want_child.v[0][..hidden], "{k:?} {m}");
                        assert_eq!(got.v[1][..hidden], want_child.v[1][..hidden], "{k:?} {m}");
                        checked += 1;
                    }
                }
            }
        }
        assert!(checked > 1000, "{checked}");
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
