//! The learned evaluation: an efficiently updatable neural network ("NNUE") of the simplest shape
//! that beats hand-written knowledge, `(768 -> N) x 2 -> 1`, with optional king input buckets
//! and horizontal mirroring (`(768 x K -> N) x 2 -> 1`).
//!
//! - **Inputs.** 768 features a side's point of view ("perspective"): a piece of either colour
//!   (ours, theirs) and role on one of 64 squares, the squares flipped top to bottom for Black, so
//!   both perspectives read the board as the side whose point of view it is.
//! - **Input layout** ([`InputLayout`], recorded in the net file). With *mirroring*, a
//!   perspective whose own king stands on files e-h (seen from its side) reads every square
//!   flipped left to right, so its king is always on files a-d. With *king buckets*, a table maps
//!   that king's square (seen from its side, after mirroring) to a bucket `0..K`, and each bucket
//!   has its own 768 inputs: the feature is `bucket * 768 + feature`. The plain layout (no
//!   mirroring, one bucket) is the net as it was before layouts. A king move that changes its own
//!   perspective's bucket or mirror side changes every feature of that perspective, so the
//!   accumulator stack rebuilds it from a cache of the last accumulator built in each bucket
//!   and side ("Finny table": [`AccumulatorStack`]) by the difference of the pieces.
//! - **Feature transformer.** Each perspective's hidden layer is the sum of the weight rows of its
//!   active features plus a bias: an *accumulator* of `N` 16-bit integers. A move changes two to
//!   four features, so the search updates the accumulator by adding and subtracting a few rows
//!   instead of summing thirty ([`Accumulator`], [`Delta`], [`AccumulatorStack`]).
//! - **Output.** The side to move's accumulator, then the other side's, each clipped to
//!   `[0, 1]` (and squared, with SCReLU), times one output weight each, plus a bias: the score in
//!   units of [`SCALE`] centipawns. A net may have several output layers ("buckets"), one for
//!   each range of the number of pieces on the board ([`bucket`]): an opening and an endgame
//!   weigh the same hidden features differently, at the cost of nothing but a few weights.
//!
//! Weights are quantised: the feature transformer by [`QA`], the output layer by [`QB`]. The file
//! format ([`Network::from_bytes`]) carries a header (magic, version, architecture, input
//! layout), where the net came from (data, command, commit) and a checksum.
//!
//! One file a concept: this one holds the architecture (constants, features, buckets) and the
//! [`Network`] itself; `layout.rs` the input layouts (mirroring, king buckets), `format.rs` the
//! net file, `kernels.rs` the arithmetic, `simd.rs` its inner loops in the CPU's vector
//! instructions, `accumulator.rs` the incremental state the search carries. Everything a caller
//! needs is re-exported here.

mod accumulator;
pub mod deep;
mod format;
mod kernels;
mod layout;
pub mod simd;

pub use accumulator::{Accumulator, AccumulatorStack, Delta};
pub use deep::Deep;
pub use format::{MAX_NET_FILE, checksum};
pub use layout::{InputLayout, LAYOUT_PRESETS, MAX_KING_BUCKETS, Orientation, king_square};

use shakmaty::{Color, Piece, Role, Square};

use crate::error::NetProblem;
use simd::Aligned;

/// Inputs a perspective: 2 colours x 6 roles x 64 squares.
pub const INPUTS: usize = 768;
/// The widest hidden layer a net file may have.
pub const MAX_HIDDEN: usize = 1024;
/// The widest first layer of a deep head (a multiple of 8: a vector of 32-bit sums).
pub const MAX_L1: usize = 32;
/// Quantisation of the feature transformer: 1.0 is `QA`.
pub const QA: i32 = 255;
/// Quantisation of the output weights: 1.0 is `QB`.
pub const QB: i32 = 64;
/// The net's output times this is centipawns.
pub const SCALE: i32 = 400;

/// The largest output weight (quantised) a net may have: `QA` times it fits in 16 bits. The
/// trainer clips weights to +/-1.98, 127 when quantised.
pub const MAX_OUT_WEIGHT: i16 = 128;
/// The most output buckets a net file may have.
pub const MAX_BUCKETS: usize = 8;

/// The output bucket of a position with `pieces` pieces (kings included) in a net of `buckets`
/// (1, 2, 4 or 8): the range 2..=32 cut into equal parts, fewest pieces first.
#[inline]
pub fn bucket(pieces: u32, buckets: usize) -> usize {
    let divisor = 32 / buckets.max(1) as u32;
    ((pieces.clamp(2, 32) - 2) / divisor).min(buckets as u32 - 1) as usize
}

/// The hidden layer's activation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Activation {
    /// Clipped ReLU: `clamp(x, 0, 1)`.
    CReLU,
    /// Squared clipped ReLU: `clamp(x, 0, 1)^2`.
    SCReLU,
}

impl Activation {
    pub fn name(self) -> &'static str {
        match self {
            Activation::CReLU => "CReLU",
            Activation::SCReLU => "SCReLU",
        }
    }
}

/// What a quantised input to the first deep layer (`deep.rs`) is worth: `clamp(x, 0, QA)^2 >> 9`
/// stands for `(x / QA)^2` (SCReLU), `clamp(x, 0, QA) >> 1` for `x / QA` (CReLU).
#[inline]
pub fn input_scale(activation: Activation) -> f32 {
    match activation {
        Activation::SCReLU => 512.0 / (QA * QA) as f32,
        Activation::CReLU => 2.0 / QA as f32,
    }
}

/// The first layer's inputs from a perspective's hidden layer of `N`: each neuron activated
/// (`N` inputs), or pairs' products (`N / 2`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Input {
    /// Each neuron by the net's activation, quantised as [`input_scale`] says.
    Activated(Activation),
    /// `(clamp(x[i], 0, QA) * clamp(x[i + N / 2], 0, QA)) >> 9` for `i < N / 2`.
    Paired,
}

impl Input {
    /// What one step of a quantised input is worth.
    #[inline]
    pub fn scale(self) -> f32 {
        match self {
            Input::Activated(a) => input_scale(a),
            Input::Paired => 512.0 / (QA * QA) as f32,
        }
    }
}

/// The activation of the float layers: clipped to `[0, 1]`, squared with SCReLU.
#[inline(always)]
pub fn act(activation: Activation, x: f32) -> f32 {
    let c = x.clamp(0.0, 1.0);
    match activation {
        Activation::SCReLU => c * c,
        Activation::CReLU => c,
    }
}

/// The input feature of `piece` on `sq` from `perspective`'s point of view, in the plain layout
/// (no mirroring, one king bucket); [`Orientation::feature`] is the general form.
#[inline]
pub fn feature(perspective: Color, piece: Piece, sq: Square) -> usize {
    let (sq, ours) = match perspective {
        Color::White => (usize::from(sq), piece.color == Color::White),
        Color::Black => (usize::from(sq.flip_vertical()), piece.color == Color::Black),
    };
    feature_index(ours, piece.role, sq)
}

/// The input feature of a piece that is ours (or theirs) of `role` on square `sq`, the square
/// already seen from the perspective's side.
#[inline]
pub fn feature_index(ours: bool, role: Role, sq: usize) -> usize {
    usize::from(!ours) * 384 + (role as usize - 1) * 64 + sq
}

/// The net's 16-bit layers, in the order the file holds them (the 32-bit output biases follow).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Layer {
    /// `inputs` rows of `hidden` feature weights.
    FtWeights,
    /// `hidden` feature biases.
    FtBias,
    /// For each bucket, `2 * hidden` output weights.
    OutWeights,
}

impl Layer {
    /// How many weights the layer has in a net of `inputs` inputs a perspective, `hidden`
    /// neurons and `buckets` output layers.
    fn len(self, inputs: usize, hidden: usize, buckets: usize) -> usize {
        match self {
            Layer::FtWeights => inputs * hidden,
            Layer::FtBias => hidden,
            Layer::OutWeights => 2 * hidden * buckets,
        }
    }
}

/// A quantised network, ready for the search.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Network {
    hidden: usize,
    activation: Activation,
    /// Output buckets (1, 2, 4 or 8).
    buckets: usize,
    /// How the pieces become inputs (mirroring, king buckets).
    layout: InputLayout,
    /// `layout.inputs()` rows of `hidden` weights.
    ft_weights: Aligned,
    /// The same rows in 8 bits, where every weight fits them: the search's updates read these
    /// (half the memory, so more of a king bucket's rows stay in the CPU's caches).
    ft8: Option<Aligned<i8>>,
    ft_bias: Aligned,
    /// For each bucket: the side to move's `hidden` weights, then the other side's.
    out_weights: Aligned,
    /// One a bucket, quantised by `QA * QB`.
    out_bias: Box<[i32]>,
    /// The deep head, which takes the output layer's place (`out_weights` and `out_bias` are
    /// then empty).
    deep: Option<Deep>,
    /// Where the net came from: data, command, commit (free text, one `key: value` a line).
    pub provenance: String,
}

impl Network {
    /// A net from its parts (the trainer's export). `ft_weights` is `layout.inputs()` rows of
    /// `hidden`; `out_weights` is `2 * hidden` a bucket and `out_bias` one a bucket.
    pub fn from_parts(
        activation: Activation,
        layout: InputLayout,
        ft_weights: Vec<i16>,
        ft_bias: Vec<i16>,
        out_weights: Vec<i16>,
        out_bias: Vec<i32>,
        provenance: String,
    ) -> Result<Network, NetProblem> {
        let hidden = ft_bias.len();
        if hidden == 0 || hidden > MAX_HIDDEN {
            return Err(NetProblem::Weights(format!(
                "a hidden layer of {hidden} (1 to {MAX_HIDDEN} supported)"
            )));
        }
        let buckets = out_bias.len();
        if !valid_buckets(buckets) {
            return Err(NetProblem::Weights(format!(
                "{buckets} output buckets (1, 2, 4 or 8 supported)"
            )));
        }
        if ft_weights.len() != layout.inputs() * hidden || out_weights.len() != 2 * hidden * buckets
        {
            return Err(NetProblem::Weights(
                "the weights do not fit the architecture".into(),
            ));
        }
        if let Some(w) = out_weights
            .iter()
            .find(|w| w.unsigned_abs() > MAX_OUT_WEIGHT as u16)
        {
            return Err(NetProblem::Weights(format!(
                "an output weight of {w} (at most {MAX_OUT_WEIGHT} either way)"
            )));
        }
        Ok(Network {
            hidden,
            activation,
            buckets,
            layout,
            ft8: ft_weights
                .iter()
                .all(|&w| i8::try_from(w).is_ok())
                .then(|| Aligned::from(ft_weights.iter().map(|&w| w as i8).collect::<Vec<i8>>())),
            ft_weights: Aligned::from(ft_weights),
            ft_bias: Aligned::from(ft_bias),
            out_weights: Aligned::from(out_weights),
            out_bias: out_bias.into_boxed_slice(),
            deep: None,
            provenance,
        })
    }

    /// A net with a deep head from its parts (the trainer's export): `ft_weights` is
    /// `layout.inputs()` rows of `hidden`, `deep` the layers after them.
    pub fn from_deep_parts(
        activation: Activation,
        layout: InputLayout,
        ft_weights: Vec<i16>,
        ft_bias: Vec<i16>,
        deep: Deep,
        provenance: String,
    ) -> Result<Network, NetProblem> {
        let hidden = ft_bias.len();
        deep::check_shape(hidden, deep.l1, deep.l2)?;
        if deep.w1.len() != deep::inputs(hidden, deep.paired) * deep.l1 * deep.buckets {
            return Err(NetProblem::Weights(
                "the weights do not fit the architecture".into(),
            ));
        }
        // The checks of every net (sizes, buckets), with output layers the head then replaces.
        let buckets = deep.buckets;
        let mut net = Network::from_parts(
            activation,
            layout,
            ft_weights,
            ft_bias,
            vec![0; 2 * hidden * buckets],
            vec![0; buckets],
            provenance,
        )?;
        net.out_weights = Aligned::from(Vec::new());
        net.out_bias = Box::new([]);
        net.deep = Some(deep);
        Ok(net)
    }

    /// Whether the search's updates read 8-bit feature rows (every feature weight fits 8 bits).
    pub fn eight_bit_rows(&self) -> bool {
        self.ft8.is_some()
    }

    /// The same net with its updates on the 16-bit rows (to compare the two).
    #[cfg(test)]
    pub(crate) fn with_16_bit_rows(mut self) -> Network {
        self.ft8 = None;
        self
    }

    /// The deep head, if the net has one.
    pub fn deep(&self) -> Option<&Deep> {
        self.deep.as_ref()
    }

    pub fn hidden(&self) -> usize {
        self.hidden
    }

    pub fn activation(&self) -> Activation {
        self.activation
    }

    /// Output buckets (1 for a single output layer).
    pub fn buckets(&self) -> usize {
        self.buckets
    }

    /// How the pieces become inputs.
    pub fn layout(&self) -> &InputLayout {
        &self.layout
    }

    /// The feature transformer: `layout.inputs()` rows of `hidden` weights, then `hidden`
    /// biases, both times [`QA`].
    pub fn feature_layer(&self) -> (&[i16], &[i16]) {
        (&self.ft_weights, &self.ft_bias)
    }

    /// The output layers (empty with a deep head): `2 * hidden` weights a bucket times [`QB`],
    /// the side to move's then the other side's, and one bias a bucket times `QA * QB`.
    pub fn output_layers(&self) -> (&[i16], &[i32]) {
        (&self.out_weights, &self.out_bias)
    }

    /// `(768 -> 256) x 2 -> 1, SCReLU`, or `... -> 1 x 8 buckets, ...` with output buckets,
    /// `... x 2 -> 16 -> 32 -> 1 ...` with a deep head (`... x 2 -> 512 paired -> 16 -> ...`
    /// with one that reads pairs' products, `N` inputs), and with another input layout than the
    /// plain one `(768 x 4 -> 256) ..., inputs mirror-kb4: mirrored, 4 king buckets`.
    pub fn architecture(&self) -> String {
        let head = match &self.deep {
            Some(d) if d.paired => format!("{} paired -> {} -> {} -> ", self.hidden, d.l1, d.l2),
            Some(d) => format!("{} -> {} -> ", d.l1, d.l2),
            None => String::new(),
        };
        let out = if self.buckets == 1 {
            format!("{head}1")
        } else {
            format!("{head}1 x {} buckets", self.buckets)
        };
        let inputs = match self.layout.buckets() {
            1 => INPUTS.to_string(),
            k => format!("{INPUTS} x {k}"),
        };
        let layout = if self.layout.is_plain() {
            String::new()
        } else {
            format!(", inputs {}", self.layout.describe())
        };
        format!(
            "({inputs} -> {}) x 2 -> {out}, {}{layout}",
            self.hidden,
            self.activation.name()
        )
    }
}

/// Output bucket counts a net may have.
pub fn valid_buckets(buckets: usize) -> bool {
    buckets.is_power_of_two() && buckets <= MAX_BUCKETS
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::core::game::parse_fen;
    use shakmaty::{Board, Position};

    /// A net's feature rows go to 8 bits where every feature weight fits them, and only then
    /// (the accumulator tests hold both kinds of rows to a refresh).
    #[test]
    fn feature_rows_are_8_bit_where_every_weight_fits() {
        let net = random_net(40, Activation::SCReLU);
        assert!(net.eight_bit_rows());
        let (ft, bias) = net.feature_layer();
        let (out, out_bias) = net.output_layers();
        for (value, fits) in [(127, true), (-128, true), (128, false), (-129, false)] {
            let mut w = ft.to_vec();
            w[1234] = value;
            let other = Network::from_parts(
                Activation::SCReLU,
                InputLayout::PLAIN,
                w,
                bias.to_vec(),
                out.to_vec(),
                out_bias.to_vec(),
                "test".into(),
            )
            .unwrap();
            assert_eq!(other.eight_bit_rows(), fits, "{value}");
        }
    }

    /// A small net with weights from a fixed pseudo-random stream.
    pub(crate) fn random_net(hidden: usize, activation: Activation) -> Network {
        random_bucketed_net(hidden, activation, 1)
    }

    /// `random_net` with `buckets` output layers.
    pub(crate) fn random_bucketed_net(
        hidden: usize,
        activation: Activation,
        buckets: usize,
    ) -> Network {
        random_layout_net(hidden, activation, buckets, InputLayout::PLAIN)
    }

    /// `random_bucketed_net` with the input layout `layout`.
    pub(crate) fn random_layout_net(
        hidden: usize,
        activation: Activation,
        buckets: usize,
        layout: InputLayout,
    ) -> Network {
        let mut state = 0x1234_5678_9abc_def0u64;
        let mut next = |range: i64| -> i16 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            ((state % (2 * range as u64 + 1)) as i64 - range) as i16
        };
        // Feature weights within +/-60, the rest within +/-100.
        Network::from_weights(
            activation,
            layout,
            hidden,
            buckets,
            |layer| next(if layer == Layer::FtWeights { 60 } else { 100 }),
            (0..buckets).map(|b| 1234 + 1000 * b as i32).collect(),
            "test".into(),
        )
        .unwrap()
    }

    /// A net of `hidden` neurons with a deep head of `l1` and `l2` neurons, its weights from a
    /// fixed pseudo-random stream: feature weights within +/-60 (so the hidden layer spans the
    /// activation's range), first-layer weights over the whole 8-bit range, the float layers
    /// within +/-1.
    pub(crate) fn random_deep_net(
        hidden: usize,
        activation: Activation,
        buckets: usize,
        layout: InputLayout,
        head: (usize, usize),
    ) -> Network {
        random_deep_net_within(hidden, activation, buckets, layout, head, 127, false)
    }

    /// [`random_deep_net`] with first-layer weights within `span` either way, its first layer
    /// reading pairs' products if `paired`.
    pub(crate) fn random_deep_net_within(
        hidden: usize,
        activation: Activation,
        buckets: usize,
        layout: InputLayout,
        (l1, l2): (usize, usize),
        span: u64,
        paired: bool,
    ) -> Network {
        let mut state = 0x5eed_1234_abcd_0001u64;
        let mut next = |range: u64| -> i64 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % (2 * range + 1)) as i64 - range as i64
        };
        let ft_weights = (0..layout.inputs() * hidden)
            .map(|_| next(60) as i16)
            .collect();
        let ft_bias = (0..hidden).map(|_| next(100) as i16).collect();
        let sizes = Deep::sizes_for(deep::inputs(hidden, paired), l1, l2);
        let w1 = (0..sizes[0] * buckets).map(|_| next(span) as i8).collect();
        let mut floats = sizes[1..]
            .iter()
            .map(|&n| {
                (0..n * buckets)
                    .map(|_| next(1000) as f32 / 1000.0)
                    .collect::<Vec<f32>>()
            })
            .collect::<Vec<_>>()
            .into_iter();
        let mut f = || floats.next().unwrap();
        let deep = Deep::with_inputs(hidden, paired, l1, l2, buckets, w1, f(), f(), f(), f(), f())
            .unwrap();
        Network::from_deep_parts(activation, layout, ft_weights, ft_bias, deep, "test".into())
            .unwrap()
    }

    /// Every preset layout.
    pub(crate) fn presets() -> Vec<InputLayout> {
        LAYOUT_PRESETS
            .iter()
            .map(|n| InputLayout::preset(n).unwrap())
            .collect()
    }

    /// The positions of the perft suites in `tests/data/`, each with its FEN.
    pub(crate) fn positions() -> Vec<(String, shakmaty::Chess)> {
        let text = [
            include_str!("../../tests/data/standard.epd"),
            include_str!("../../tests/data/cpw.epd"),
        ]
        .concat();
        text.lines()
            .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
            .filter_map(|l| {
                let fen = l.split(';').next()?.trim();
                Some((fen.to_string(), parse_fen(fen).ok()?))
            })
            .collect()
    }

    #[test]
    fn features_mirror_between_perspectives() {
        let pos = parse_fen("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1")
            .unwrap();
        for (sq, piece) in pos.board().iter() {
            let w = feature(Color::White, piece, sq);
            let b = feature(
                Color::Black,
                Piece {
                    color: !piece.color,
                    role: piece.role,
                },
                sq.flip_vertical(),
            );
            assert_eq!(w, b);
            assert!(w < INPUTS);
        }
        // The same position with colours swapped scores the same for the side to move.
        let net = random_net(24, Activation::SCReLU);
        let mirrored =
            parse_fen("r3k2r/pppbbppp/2n2q1P/1P2p3/3pn3/BN2PNP1/P1PPQPB1/R3K2R b KQkq - 0 1")
                .unwrap();
        assert_eq!(
            net.evaluate_board(pos.board(), Color::White),
            net.evaluate_board(mirrored.board(), Color::Black)
        );
    }

    /// `board` with every square's piece moved by `square` and, with `swap`, its colour swapped.
    fn transformed(board: &Board, square: fn(Square) -> Square, swap: bool) -> Board {
        let mut out = Board::empty();
        for (sq, piece) in board.iter() {
            let color = if swap { !piece.color } else { piece.color };
            out.set_piece_at(square(sq), Piece { color, ..piece });
        }
        out
    }

    /// With every layout, a position and the same with colours swapped (the board turned top to
    /// bottom, the other side to move) score the same.
    #[test]
    fn every_layout_scores_the_colour_flipped_position_alike() {
        for layout in presets() {
            let net = random_layout_net(24, Activation::SCReLU, 4, layout);
            for (fen, pos) in positions() {
                let flipped = transformed(pos.board(), Square::flip_vertical, true);
                assert_eq!(
                    net.evaluate_board(pos.board(), pos.turn()),
                    net.evaluate_board(&flipped, !pos.turn()),
                    "{}: {fen}",
                    layout.describe()
                );
            }
        }
    }

    /// A mirrored layout scores a position and its mirror image (files a-h swapped; castling
    /// rights aside, the same chess) alike; the plain layout does not, so the check can fail.
    #[test]
    fn a_mirrored_layout_scores_a_position_and_its_mirror_image_alike() {
        for layout in presets() {
            let net = random_layout_net(24, Activation::SCReLU, 2, layout);
            let mut differ = 0;
            for (fen, pos) in positions() {
                let image = transformed(pos.board(), Square::flip_horizontal, false);
                let (a, b) = (
                    net.evaluate_board(pos.board(), pos.turn()),
                    net.evaluate_board(&image, pos.turn()),
                );
                if layout.mirror() {
                    assert_eq!(a, b, "{}: {fen}", layout.describe());
                } else if a != b {
                    differ += 1;
                }
            }
            if !layout.mirror() {
                assert!(differ > 20, "{differ}");
            }
        }
    }

    /// A layout's feature as its definition reads, written out apart from the code under test:
    /// the squares seen from the perspective's side, flipped left to right when its king is on
    /// files e-h and the layout mirrors, then the bucket's block of 768.
    fn defined_feature(
        layout: &InputLayout,
        perspective: Color,
        king: Square,
        piece: Piece,
        sq: Square,
    ) -> usize {
        let (mut king, mut sq) = match perspective {
            Color::White => (king, sq),
            Color::Black => (king.flip_vertical(), sq.flip_vertical()),
        };
        if layout.mirror() && king.file() >= shakmaty::File::E {
            king = king.flip_horizontal();
            sq = sq.flip_horizontal();
        }
        let bucket = usize::from(layout.king_buckets()[usize::from(king)]);
        let ours = piece.color == perspective;
        bucket * INPUTS
            + usize::from(!ours) * 384
            + (piece.role as usize - 1) * 64
            + usize::from(sq)
    }

    /// The accumulators of `board` summed from `defined_feature`, in 32 bits.
    fn defined_accumulators(net: &Network, board: &Board) -> [Vec<i32>; 2] {
        [Color::White, Color::Black].map(|perspective| {
            let king = board.king_of(perspective).unwrap();
            let mut v: Vec<i32> = net.ft_bias.iter().map(|&b| i32::from(b)).collect();
            for (sq, piece) in board.iter() {
                let f = defined_feature(net.layout(), perspective, king, piece, sq);
                for (a, &w) in v.iter_mut().zip(&net.ft_weights[f * net.hidden..]) {
                    *a += i32::from(w);
                }
            }
            v
        })
    }

    /// The plain layout is the feature formula of nets before layouts, for any king; the
    /// built-in net (a file of the version before layouts) reads as plain and its accumulators
    /// are the sums of that formula's rows; and every preset's accumulators are those of its
    /// definition.
    #[test]
    fn every_layout_sums_the_rows_its_definition_names() {
        for perspective in [Color::White, Color::Black] {
            for king in Square::ALL {
                let o = InputLayout::PLAIN.orientation(perspective, king);
                for (sq, role, color) in Square::ALL
                    .into_iter()
                    .flat_map(|sq| Role::ALL.into_iter().map(move |r| (sq, r)))
                    .flat_map(|(sq, r)| [(sq, r, Color::White), (sq, r, Color::Black)])
                {
                    let piece = Piece { color, role };
                    assert_eq!(
                        o.feature(perspective, piece, sq),
                        feature(perspective, piece, sq)
                    );
                }
            }
        }
        // The built-in net is mirrored over king buckets, and its architecture says so.
        let default = Network::default_net();
        assert!(!default.layout().is_plain());
        assert!(
            default.architecture().contains("inputs mirror-kb4"),
            "{}",
            default.architecture()
        );
        let mut nets: Vec<Network> = vec![(*default).clone()];
        nets.extend(
            presets()
                .into_iter()
                .map(|l| random_layout_net(24, Activation::SCReLU, 1, l)),
        );
        for net in &nets {
            let h = net.hidden();
            for (fen, pos) in positions() {
                let mut acc = Accumulator::new();
                net.refresh(pos.board(), &mut acc);
                let defined = defined_accumulators(net, pos.board());
                for (v, want) in acc.v.iter().zip(&defined) {
                    let got: Vec<i32> = v[..h].iter().map(|&a| i32::from(a)).collect();
                    assert_eq!(&got, want, "{}: {fen}", net.architecture());
                }
            }
        }
    }
}
