//! The deep head: small layers between the feature transformer and the score, `2N -> L1 -> L2 ->
//! 1`, one set for each output bucket, in place of the single output layer.
//!
//! - **The first layer** reads both perspectives' activated hidden layers (the side to move's,
//!   then the other's). Those are quantised to 7 bits, `0..=127`: with SCReLU `clamp(x, 0,
//!   QA)^2 >> 9`, with CReLU `clamp(x, 0, QA) >> 1`. Its weights are 8-bit, 1.0 is the net's
//!   [`Deep::ql1`], so a product of two neighbours' terms fits in 16 bits (`2 * 127 * 127`),
//!   which is what the vector instructions' 8-bit multiply (`maddubs`) needs; the sums are
//!   32-bit and exact in any order, so every kernel gives the same sums
//!   ([`Kernel::deep_sums`]); a narrow head's (no weight beyond [`NARROW`]) sum two blocks'
//!   products in 16 bits first. Each neuron's weights are kept as a row in input order, so
//!   the vector loop takes 32 inputs against a neuron's row at once; the net file keeps them
//!   in groups of four inputs ([`w1_index`]).
//! - **The rest is in floats**: the first layer's sums scaled back and biased, the activation
//!   (the net's, clipped to `[0, 1]`, squared with SCReLU), the second layer, the activation, the
//!   output. Each sum is taken in one fixed order in plain Rust ([`Deep::head`] gives it),
//!   which the compiler may not reorder, so the score is the same on every CPU and build.

use super::simd::Kernel;
use super::{Activation, Input, MAX_HIDDEN, SCALE, act};
use crate::error::NetProblem;

/// The first deep layer's weight scale in the first version-4 files: 1.0 is this. A net file
/// names its own ([`Deep::ql1`]), a power of two in [`QL1_RANGE`].
pub const QL1: i32 = 64;
/// The weight scales a net file may give the first deep layer.
pub const QL1_RANGE: std::ops::RangeInclusive<i32> = 16..=4096;
/// The largest first-layer weight (either way) of a narrow head: the 16-bit sums of two
/// blocks' 8-bit products then still fit (`4 * 127 * 64`), so the vector loop adds them before
/// widening, a third fewer steps. The trainer picks the scale that keeps its nets narrow.
pub const NARROW: i8 = 64;
pub use super::MAX_L1;
/// The widest second deep layer.
pub const MAX_L2: usize = 64;
/// The largest quantised input to the first deep layer.
pub const ACT_MAX: u8 = 127;

/// The deep head's layers for every output bucket.
#[derive(Clone, Debug, PartialEq)]
pub struct Deep {
    /// Neurons of the first and second deep layers.
    pub l1: usize,
    pub l2: usize,
    /// Output buckets.
    pub buckets: usize,
    /// For each bucket, each first-layer neuron's weights from its `2N` inputs in order (the
    /// net file keeps them in [`w1_index`]'s order), times [`Deep::ql1`].
    pub(super) w1: Box<[i8]>,
    /// `l1` biases a bucket.
    pub(super) b1: Box<[f32]>,
    /// For each bucket, for each first-layer neuron, its `l2` weights into the second layer.
    pub(super) w2: Box<[f32]>,
    /// `l2` biases a bucket.
    pub(super) b2: Box<[f32]>,
    /// `l2` output weights a bucket.
    pub(super) w3: Box<[f32]>,
    /// One output bias a bucket.
    pub(super) b3: Box<[f32]>,
    /// The first layer's weight scale: its 8-bit weights are the float ones times this.
    pub ql1: i32,
    /// Every first-layer weight is within [`NARROW`] either way.
    pub narrow: bool,
    /// The first layer reads pairs' products ([`Deep::with_inputs`]): `N` inputs, not `2N`.
    pub paired: bool,
}

/// Every float in a head is finite ([`Deep::new`] refuses others), so equality is an equivalence.
impl Eq for Deep {}

/// The sizes a deep head may have with `hidden` neurons in the feature transformer, or why not.
pub fn check_shape(hidden: usize, l1: usize, l2: usize) -> Result<(), NetProblem> {
    if !hidden.is_multiple_of(8) || hidden > MAX_HIDDEN {
        return Err(NetProblem::Weights(format!(
            "a deep net's hidden layer of {hidden} (a multiple of 8, at most {MAX_HIDDEN})"
        )));
    }
    if l1 == 0 || !l1.is_multiple_of(8) || l1 > MAX_L1 || l2 == 0 || l2 > MAX_L2 {
        return Err(NetProblem::Weights(format!(
            "deep layers of {l1} and {l2} (the first 8, 16, 24 or 32, the second 1 to {MAX_L2})"
        )));
    }
    Ok(())
}

impl Deep {
    /// The head of `buckets` output buckets after a feature transformer of `hidden` neurons,
    /// from its weights (the first layer's in the net file's order, [`w1_index`]; the others
    /// laid out as the fields say), checked.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        hidden: usize,
        l1: usize,
        l2: usize,
        buckets: usize,
        w1: Vec<i8>,
        b1: Vec<f32>,
        w2: Vec<f32>,
        b2: Vec<f32>,
        w3: Vec<f32>,
        b3: Vec<f32>,
    ) -> Result<Deep, NetProblem> {
        Deep::with_inputs(hidden, false, l1, l2, buckets, w1, b1, w2, b2, w3, b3)
    }

    /// [`Deep::new`], or with `paired` a head whose first layer reads *pairs' products*: each
    /// perspective's hidden layer of `N` is clipped to `[0, QA]` and its first half multiplied
    /// by its second, neuron `i` by neuron `i + N / 2`, so the layer has `N` inputs in all (the
    /// side to move's `N / 2`, then the other side's) instead of `2N`, half the work a position.
    /// Quantised as `(a * b) >> 9`, `0..=127`, standing for `(a / QA) * (b / QA)`.
    #[allow(clippy::too_many_arguments)]
    pub fn with_inputs(
        hidden: usize,
        paired: bool,
        l1: usize,
        l2: usize,
        buckets: usize,
        w1: Vec<i8>,
        b1: Vec<f32>,
        w2: Vec<f32>,
        b2: Vec<f32>,
        w3: Vec<f32>,
        b3: Vec<f32>,
    ) -> Result<Deep, NetProblem> {
        check_shape(hidden, l1, l2)?;
        let n = inputs(hidden, paired);
        let sizes = Deep::sizes_for(n, l1, l2);
        let lens = [w1.len(), b1.len(), w2.len(), b2.len(), w3.len(), b3.len()];
        if lens.iter().zip(sizes).any(|(&n, s)| n != s * buckets) {
            return Err(NetProblem::Weights(
                "the deep layers' weights do not fit the architecture".into(),
            ));
        }
        if w1.contains(&i8::MIN) {
            return Err(NetProblem::Weights(format!(
                "a first deep layer weight of {} (at most 127 either way)",
                i8::MIN
            )));
        }
        if [&b1, &w2, &b2, &w3, &b3]
            .iter()
            .any(|v| v.iter().any(|x| !x.is_finite()))
        {
            return Err(NetProblem::Weights(
                "a deep layer weight that is not a finite number".into(),
            ));
        }
        let narrow = w1.iter().all(|w| w.unsigned_abs() <= NARROW.unsigned_abs());
        // Each neuron's row of weights in input order, bucket by bucket.
        let mut rows = vec![0i8; w1.len()];
        for (file, mine) in w1.chunks_exact(n * l1).zip(rows.chunks_exact_mut(n * l1)) {
            for (row, at) in row_and_file_indices(n, l1) {
                mine[row] = file[at];
            }
        }
        let w1 = rows;
        Ok(Deep {
            l1,
            l2,
            buckets,
            ql1: QL1,
            narrow,
            paired,
            w1: w1.into_boxed_slice(),
            b1: b1.into_boxed_slice(),
            w2: w2.into_boxed_slice(),
            b2: b2.into_boxed_slice(),
            w3: w3.into_boxed_slice(),
            b3: b3.into_boxed_slice(),
        })
    }

    /// The head with its first layer's weights read at the scale `ql1` (1.0 is `ql1`): a power
    /// of two in [`QL1_RANGE`], or an error that names it.
    pub fn with_scale(self, ql1: i32) -> Result<Deep, NetProblem> {
        if !(QL1_RANGE.contains(&ql1) && (ql1 as u32).is_power_of_two()) {
            return Err(NetProblem::Architecture {
                found: format!("QL1 {ql1}"),
                supported: format!(
                    "QL1 a power of two from {} to {}",
                    QL1_RANGE.start(),
                    QL1_RANGE.end()
                ),
            });
        }
        Ok(Deep { ql1, ..self })
    }

    /// The first layer's 8-bit weights, bucket by bucket, each neuron's row of inputs in order
    /// (the float weights times [`Deep::ql1`]).
    pub fn first_layer(&self) -> &[i8] {
        &self.w1
    }

    /// The float layers after the first, each bucket after bucket: the first layer's biases,
    /// the second layer's weights (each first-layer neuron's `l2`) and biases, the output
    /// weights and bias.
    pub fn float_layers(&self) -> [&[f32]; 5] {
        [&self.b1, &self.w2, &self.b2, &self.w3, &self.b3]
    }

    /// Bucket `b`'s first-layer weights in the net file's order ([`w1_index`]).
    pub fn w1_in_file_order(&self, b: usize) -> Vec<i8> {
        let n1 = self.w1.len() / self.buckets;
        let n = n1 / self.l1;
        let rows = &self.w1[n1 * b..n1 * (b + 1)];
        let mut file = vec![0i8; n1];
        for (row, at) in row_and_file_indices(n, self.l1) {
            file[at] = rows[row];
        }
        file
    }

    /// The largest first-layer weight, either way, in its 8-bit units.
    pub fn widest(&self) -> u8 {
        self.w1.iter().map(|w| w.unsigned_abs()).max().unwrap_or(0)
    }

    /// A bucket's count of each of the six layers' values, in the order of the fields, for a
    /// head that reads both perspectives' activations (`2N` inputs).
    pub fn sizes(hidden: usize, l1: usize, l2: usize) -> [usize; 6] {
        Deep::sizes_for(2 * hidden, l1, l2)
    }

    /// [`Deep::sizes`] for a first layer of `n` inputs ([`inputs`]).
    pub fn sizes_for(n: usize, l1: usize, l2: usize) -> [usize; 6] {
        [n * l1, l1, l1 * l2, l2, l2, 1]
    }

    /// The first layer's inputs.
    pub fn inputs(&self) -> usize {
        self.w1.len() / (self.buckets * self.l1)
    }

    /// The score in centipawns from the side to move's and the other side's hidden layers, with
    /// the output bucket `b`. Nothing allocates.
    #[inline]
    pub fn evaluate(
        &self,
        k: Kernel,
        activation: Activation,
        us: &[i16],
        them: &[i16],
        b: usize,
    ) -> i32 {
        let n = inputs(us.len(), self.paired);
        let l1 = self.l1;
        let mut sums = [0i32; MAX_L1];
        let w1 = &self.w1[n * l1 * b..n * l1 * (b + 1)];
        let input = if self.paired {
            Input::Paired
        } else {
            Input::Activated(activation)
        };
        k.deep_sums(input, self.narrow, us, them, w1, &mut sums[..l1]);
        let y = self.head(k, activation, &sums[..l1], b);
        (y * SCALE as f32) as i32
    }

    /// The layers after the first one's integer sums: the output in units of [`SCALE`]. Each
    /// second-layer neuron's sum goes from its bias over the first layer's neurons in order;
    /// the output's products go into eight running sums (neuron `k` into sum `k % 8`, in the
    /// order of `k`), added pairwise at the end, then the bias. The kernel's loop
    /// ([`Kernel::head_lanes`]) does eight neurons a vector, the same operations in the same
    /// order, so every kernel gives the same bits.
    #[inline]
    pub fn head(&self, kernel: Kernel, activation: Activation, sums: &[i32], b: usize) -> f32 {
        let (l1, l2) = (self.l1, self.l2);
        let first = if self.paired {
            Input::Paired
        } else {
            Input::Activated(activation)
        };
        let scale = first.scale() / self.ql1 as f32;
        let mut h1 = [0f32; MAX_L1];
        for ((h, &s), &bias) in h1.iter_mut().zip(sums).zip(&self.b1[l1 * b..]) {
            *h = act(activation, s as f32 * scale + bias);
        }
        let h1 = &h1[..l1];
        let w2 = &self.w2[l1 * l2 * b..l1 * l2 * (b + 1)];
        let b2 = &self.b2[l2 * b..l2 * (b + 1)];
        let w3 = &self.w3[l2 * b..l2 * (b + 1)];
        let (mut lanes, k) = kernel.head_lanes(activation, h1, w2, b2, w3, l2);
        // The last neurons of a layer that is not a multiple of eight, one at a time.
        for k in k..l2 {
            let mut z = b2[k];
            for (j, &x) in h1.iter().enumerate() {
                z += x * w2[j * l2 + k];
            }
            lanes[k % 8] += act(activation, z) * w3[k];
        }
        let [a, c, d, e, f, g, h, i] = lanes;
        ((a + c) + (d + e)) + ((f + g) + (h + i)) + self.b3[b]
    }
}

/// The first layer's inputs after a hidden layer of `hidden` neurons (both perspectives).
#[inline]
pub fn inputs(hidden: usize, paired: bool) -> usize {
    if paired { hidden } else { 2 * hidden }
}

/// Where neuron `j`'s weight from input `i` lies in a bucket's block of first-layer weights in
/// the net file, in a layer of `l1` neurons: for each group of four inputs, each neuron's four
/// weights.
#[inline]
pub fn w1_index(i: usize, j: usize, l1: usize) -> usize {
    (i / 4 * l1 + j) * 4 + i % 4
}

/// For each first-layer weight of a bucket with `n` inputs and `l1` neurons, where it lies in
/// the search's rows (neuron by neuron, inputs in order) and in the net file ([`w1_index`]).
fn row_and_file_indices(n: usize, l1: usize) -> impl Iterator<Item = (usize, usize)> {
    (0..n).flat_map(move |i| (0..l1).map(move |j| (j * n + i, w1_index(i, j, l1))))
}

#[cfg(test)]
mod tests {
    use super::super::simd::portable::activate;
    use super::*;
    use crate::nnue::simd::{Kernel, Simd};
    use crate::nnue::{QA, input_scale};

    /// A seeded xorshift stream: each call a number below its argument.
    fn stream(seed: u64) -> impl FnMut(u64) -> u64 {
        let mut state = seed;
        move |m| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state % m
        }
    }

    #[test]
    fn the_quantised_activations_stand_for_the_float_ones() {
        for activation in [Activation::SCReLU, Activation::CReLU] {
            let x: Vec<i16> = (-300..600).map(|v| v as i16).collect();
            let mut q = vec![0u8; x.len()];
            activate(activation, &x, &mut q);
            assert_eq!(q.iter().max(), Some(&ACT_MAX));
            assert_eq!(q[0], 0);
            for (&v, &q) in x.iter().zip(&q) {
                let exact = act(activation, f32::from(v) / QA as f32);
                let got = f32::from(q) * input_scale(activation);
                // One step of the 7-bit scale at most.
                assert!((exact - got).abs() <= 1.01 / 127.0, "{v}: {exact} {got}");
            }
        }
    }

    /// Every kernel this CPU runs works out the first deep layer from the hidden layers as a
    /// plain sum of the defined inputs' products does (each activation, and pairs' products): at the extremes (the largest
    /// inputs with the largest weights of either sign, values far outside the clip), on mixed
    /// values with whole blocks and single groups of zeros among them, for both activations,
    /// at every width (vector blocks and not) and every first-layer size.
    #[test]
    fn each_kernels_first_layer_sums_equal_a_plain_sum() {
        let kernels: Vec<Kernel> = Simd::ALL.into_iter().filter_map(Kernel::new).collect();
        let mut next = stream(0x0123_4567_89ab_cdef);
        let (mut nonzero, mut narrow_cases) = (0, 0);
        for h in [8, 32, 40, 64, 256, MAX_HIDDEN] {
            for l1 in [8, 16, 24, 32] {
                // Mixed hidden layers for both sides, and weights from -span to span.
                let mut random = |span: u64| -> (Vec<i16>, Vec<i16>, Vec<i8>) {
                    let mut mixed = || -> Vec<i16> {
                        (0..h)
                            .map(|i| match (i / 32) % 4 {
                                // A block of zeros, a block with zero groups, two mixed blocks.
                                0 => -5,
                                1 if (i / 4) % 2 == 0 => 0,
                                _ => next(900) as i16 - 300,
                            })
                            .collect()
                    };
                    let (us, them) = (mixed(), mixed());
                    let w = (0..2 * h * l1)
                        .map(|_| (next(2 * span + 1) as i64 - span as i64) as i8)
                        .collect();
                    (us, them, w)
                };
                let cases: Vec<(Vec<i16>, Vec<i16>, Vec<i8>)> = vec![
                    (vec![i16::MAX; h], vec![QA as i16; h], vec![127; 2 * h * l1]),
                    (vec![QA as i16; h], vec![400; h], vec![-127; 2 * h * l1]),
                    random(127),
                    // Narrow heads: the largest weights either way, and mixed ones.
                    (
                        vec![i16::MAX; h],
                        vec![QA as i16; h],
                        vec![NARROW; 2 * h * l1],
                    ),
                    (
                        vec![QA as i16; h],
                        vec![QA as i16; h],
                        vec![-NARROW; 2 * h * l1],
                    ),
                    random(NARROW as u64),
                ];
                let modes = [
                    Input::Activated(Activation::SCReLU),
                    Input::Activated(Activation::CReLU),
                    Input::Paired,
                ];
                for input in modes {
                    for (us, them, w) in &cases {
                        // The inputs in order: each side's activations, or its pairs' products.
                        let side = |v: &[i16]| -> Vec<i64> {
                            let c = |x: i16| i64::from(x.clamp(0, QA as i16));
                            match input {
                                Input::Activated(Activation::SCReLU) => {
                                    v.iter().map(|&x| (c(x) * c(x)) >> 9).collect()
                                }
                                Input::Activated(Activation::CReLU) => {
                                    v.iter().map(|&x| c(x) >> 1).collect()
                                }
                                Input::Paired => (0..h / 2)
                                    .map(|i| (c(v[i]) * c(v[i + h / 2])) >> 9)
                                    .collect(),
                            }
                        };
                        let x: Vec<i64> = side(us).into_iter().chain(side(them)).collect();
                        let n = x.len();
                        assert_eq!(n, inputs(h, input == Input::Paired));
                        let mut plain = vec![0i64; l1];
                        for (i, &x) in x.iter().enumerate() {
                            for (j, p) in plain.iter_mut().enumerate() {
                                *p += x * i64::from(w[j * n + i]);
                            }
                        }
                        nonzero += plain.iter().filter(|&&p| p != 0).count();
                        let narrow = w.iter().all(|x| x.unsigned_abs() <= NARROW as u8);
                        narrow_cases += usize::from(narrow);
                        for k in &kernels {
                            for fast in [false, narrow] {
                                let mut out = vec![7; l1];
                                k.deep_sums(input, fast, us, them, &w[..n * l1], &mut out);
                                let got: Vec<i64> = out.iter().map(|&s| i64::from(s)).collect();
                                assert_eq!(
                                    got, plain,
                                    "{k:?} {input:?} {h} hidden, {l1} neurons, narrow {fast}"
                                );
                            }
                        }
                    }
                }
            }
        }
        assert!(nonzero > 500, "{nonzero}");
        assert!(narrow_cases >= 3 * 4 * 5 * 3, "{narrow_cases}");
    }

    /// The float layers take their sums in the order the doc gives, bit for bit, with every
    /// kernel this CPU runs, whether the second layer is a multiple of eight (of 32) or not,
    /// with sums that land either side of the clips.
    #[test]
    fn the_float_layers_sum_in_their_documented_order() {
        let kernels: Vec<Kernel> = Simd::ALL.into_iter().filter_map(Kernel::new).collect();
        let mut next = stream(0x9e37_79b9_7f4a_7c15);
        for (l1, l2) in [
            (8, 32),
            (16, 13),
            (24, 3),
            (32, 64),
            (8, 1),
            (8, 48),
            (16, 40),
        ] {
            let sizes = Deep::sizes(32, l1, l2);
            let mut floats = |n: usize| -> Vec<f32> {
                (0..n).map(|_| next(2001) as f32 / 1000.0 - 1.0).collect()
            };
            let (b1, w2, b2, w3, b3) = (
                floats(sizes[1]),
                floats(sizes[2]),
                floats(sizes[3]),
                floats(sizes[4]),
                floats(sizes[5]),
            );
            let d = Deep::new(32, l1, l2, 1, vec![1; sizes[0]], b1, w2, b2, w3, b3)
                .unwrap()
                .with_scale(256)
                .unwrap();
            for activation in [Activation::SCReLU, Activation::CReLU] {
                let scale = input_scale(activation) / 256.0;
                for _ in 0..40 {
                    let sums: Vec<i32> = (0..l1).map(|_| next(80_000) as i32 - 30_000).collect();
                    let h1: Vec<f32> = (0..l1)
                        .map(|j| act(activation, sums[j] as f32 * scale + d.b1[j]))
                        .collect();
                    let mut lanes = [0f32; 8];
                    for k in 0..l2 {
                        let mut z = d.b2[k];
                        for (j, &x) in h1.iter().enumerate() {
                            z += x * d.w2[j * l2 + k];
                        }
                        lanes[k % 8] += act(activation, z) * d.w3[k];
                    }
                    let l = lanes;
                    let want =
                        ((l[0] + l[1]) + (l[2] + l[3])) + ((l[4] + l[5]) + (l[6] + l[7])) + d.b3[0];
                    for &k in &kernels {
                        let got = d.head(k, activation, &sums, 0);
                        assert_eq!(
                            got.to_bits(),
                            want.to_bits(),
                            "{k:?} {l1} {l2} {activation:?}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn shapes_outside_the_format_are_refused() {
        assert!(check_shape(512, 16, 32).is_ok());
        for (h, l1, l2) in [
            (20, 16, 32),
            (512, 12, 32),
            (512, 40, 32),
            (512, 16, 0),
            (512, 0, 8),
        ] {
            assert!(check_shape(h, l1, l2).is_err(), "{h} {l1} {l2}");
        }
        let sizes = Deep::sizes(8, 8, 2);
        let ok = |w1: Vec<i8>| {
            Deep::new(
                8,
                8,
                2,
                1,
                w1,
                vec![0.0; sizes[1]],
                vec![0.0; sizes[2]],
                vec![0.0; sizes[3]],
                vec![0.0; sizes[4]],
                vec![f32::NAN; sizes[5]],
            )
        };
        assert!(
            ok(vec![0; sizes[0]])
                .unwrap_err()
                .to_string()
                .contains("finite")
        );
        assert!(
            ok(vec![0; sizes[0] - 1])
                .unwrap_err()
                .to_string()
                .contains("fit")
        );
        let mut w1 = vec![0; sizes[0]];
        w1[5] = i8::MIN;
        assert!(ok(w1).unwrap_err().to_string().contains("-128"));
    }
}
