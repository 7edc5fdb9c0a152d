//! `rookery train`: fits a network (`nnue`) to labelled positions (`data`), on every core, in
//! 32-bit floats, then exports it quantised.
//!
//! - **Target.** A blend of the game's result and the search's score, both as expected results:
//!   `t = wdl * result + (1 - wdl) * sigmoid(score / 400)`.
//! - **Loss.** `(sigmoid(y) - t)^2`, the net's output `y` in units of 400 centipawns, averaged
//!   over a mini-batch.
//! - **Optimiser.** AdamW (decoupled weight decay), the learning rate falling along a cosine from
//!   `lr` to `lr * lr_end` over the run. Weights are kept within +/-1.98 so that the quantised
//!   net fits its integers.
//! - **Parallel.** Each mini-batch is split over the threads; each thread sums its gradient, the
//!   sums are added, and the update is split over the threads by parameter.
//! - **Input layout.** The net's inputs follow an [`InputLayout`] (king buckets, mirroring): a
//!   sample keeps the side to move's pieces in the plain layout and each side's king bucket and
//!   mirror side, from which both perspectives' features are worked out when used.
//! - **Factoriser.** With king buckets, a net may be trained *factorised*: besides each bucket's
//!   768 rows, one shared block of 768 rows that every bucket's feature also reads, so what holds
//!   in every bucket is learned from all positions, and each bucket's rows learn only how it
//!   differs. The export adds the shared rows into each bucket's: the search's net is the same.

use std::f32::consts::PI;
use std::io::Write;
use std::time::Instant;

use crate::core::Rng;
use crate::core::bytes::{self, Put, Reader};
use crate::data::Record;
use crate::data::filter::{Filter, Filtered};
use crate::error::{Error, LayoutProblem, TrainProblem};
use crate::nnue::{self, Activation, INPUTS, InputLayout, Network, QA, QB};

/// Scores are turned into expected results with this many centipawns a unit.
pub const EVAL_SCALE: f32 = 400.0;
/// Weights stay within this, so that the quantised values fit.
pub const WEIGHT_CLIP: f32 = 1.98;

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

fn sigmoid(x: f32) -> f32 {
    1.0 / (1.0 + (-x).exp())
}

/// The training target of a record.
pub fn target(r: &Record, wdl: f32) -> f32 {
    wdl * r.result_stm() + (1.0 - wdl) * sigmoid(f32::from(r.score) / EVAL_SCALE)
}

/// The float network: every parameter in one vector, `[ft weights | ft bias | out weights |
/// out bias]`, the feature weights `layout.inputs()` rows, the output layer once for each
/// bucket (`nnue::bucket`).
#[derive(Clone, Debug, PartialEq)]
pub struct FloatNet {
    pub hidden: usize,
    pub activation: Activation,
    /// Output buckets, chosen by the number of pieces (1: a single output layer).
    pub buckets: usize,
    /// How the pieces become inputs (king buckets, mirroring).
    pub layout: InputLayout,
    /// A shared block of `INPUTS` rows after the layout's, read with every bucket's feature.
    pub factorised: bool,
    pub params: Vec<f32>,
}

impl FloatNet {
    pub fn len(layout: &InputLayout, hidden: usize, buckets: usize, factorised: bool) -> usize {
        FloatNet::rows(layout, factorised) * hidden + hidden + (2 * hidden + 1) * buckets
    }

    /// Feature rows: the layout's, then the shared block when factorised.
    fn rows(layout: &InputLayout, factorised: bool) -> usize {
        layout.inputs() + if factorised { INPUTS } else { 0 }
    }

    /// The same net with a shared block of feature rows, zero to begin with (so it computes the
    /// same function): every bucket's feature reads its row there too.
    pub fn factorise(mut self) -> FloatNet {
        if !self.factorised {
            let at = self.layout.inputs() * self.hidden;
            self.params
                .splice(at..at, std::iter::repeat_n(0.0, INPUTS * self.hidden));
            self.factorised = true;
        }
        self
    }

    /// Writes into `out` this net with the shared rows added into each bucket's: the same
    /// function, unfactorised (`out` keeps its allocation from one call to the next).
    fn merge_into(&self, out: &mut FloatNet) {
        let h = self.hidden;
        let rows = self.layout.inputs() * h;
        let block = INPUTS * h;
        out.hidden = h;
        out.activation = self.activation;
        out.buckets = self.buckets;
        out.layout = self.layout;
        out.factorised = false;
        out.params.clear();
        out.params.extend_from_slice(&self.params[..rows]);
        out.params.extend_from_slice(&self.params[rows + block..]);
        let shared = &self.params[rows..rows + block];
        for bucket in out.params[..rows].chunks_exact_mut(block) {
            for (w, s) in bucket.iter_mut().zip(shared) {
                *w += s;
            }
        }
    }

    /// The gradient of this (factorised) net from gradients `merged` of its merged net: each
    /// bucket's rows as they are, each shared row the sum of the buckets' rows it is added to.
    fn unmerge_gradient(&self, merged: &[Vec<f32>], out: &mut Vec<f32>) {
        let h = self.hidden;
        let rows = self.layout.inputs() * h;
        let block = INPUTS * h;
        out.clear();
        out.resize(self.params.len(), 0.0);
        for g in merged {
            for (o, x) in out[..rows].iter_mut().zip(&g[..rows]) {
                *o += x;
            }
            for bucket in g[..rows].chunks_exact(block) {
                for (o, x) in out[rows..rows + block].iter_mut().zip(bucket) {
                    *o += x;
                }
            }
            for (o, x) in out[rows + block..].iter_mut().zip(&g[rows..]) {
                *o += x;
            }
        }
    }

    /// The shared row a layout's feature `f` also reads, when factorised.
    #[inline]
    fn factor_row(&self, f: usize) -> Option<usize> {
        self.factorised.then(|| self.layout.inputs() + f % INPUTS)
    }

    /// Random feature weights (uniform, scaled to the fan-in), small output weights.
    pub fn new(
        hidden: usize,
        activation: Activation,
        buckets: usize,
        layout: InputLayout,
        seed: u64,
    ) -> FloatNet {
        let mut rng = Rng::new(seed);
        let mut uniform =
            |scale: f32| (rng.below(1 << 24) as f32 / (1 << 24) as f32 * 2.0 - 1.0) * scale;
        let mut params = vec![0.0; FloatNet::len(&layout, hidden, buckets, false)];
        let ft = 1.0 / (32f32).sqrt();
        let o = layout.inputs() * hidden;
        for p in &mut params[..o] {
            *p = uniform(ft);
        }
        let out = 1.0 / ((2 * hidden) as f32).sqrt();
        let o = o + hidden;
        for p in &mut params[o..o + 2 * hidden * buckets] {
            *p = uniform(out);
        }
        FloatNet {
            hidden,
            activation,
            buckets,
            layout,
            factorised: false,
            params,
        }
    }

    /// Where the feature biases, the output weights and the output biases start.
    fn offsets(&self) -> (usize, usize, usize) {
        let h = self.hidden;
        let b1 = FloatNet::rows(&self.layout, self.factorised) * h;
        (b1, b1 + h, b1 + h + 2 * h * self.buckets)
    }

    /// The output weights and bias of a position with `pieces` pieces.
    fn output(&self, pieces: usize) -> (usize, usize) {
        let (_, w2, b2) = self.offsets();
        let b = nnue::bucket(pieces as u32, self.buckets);
        (w2 + 2 * self.hidden * b, b2 + b)
    }

    /// The activation and its derivative (the derivative 0 at the clip's ends).
    #[inline(always)]
    fn act_with(activation: Activation, x: f32) -> (f32, f32) {
        let c = x.clamp(0.0, 1.0);
        let inside = if x > 0.0 && x < 1.0 { 1.0 } else { 0.0 };
        match activation {
            Activation::CReLU => (c, inside),
            Activation::SCReLU => (c * c, 2.0 * c * inside),
        }
    }

    /// The feature rows a perspective's features read, in order (each feature's row, then its
    /// shared row when factorised), with every square's file flipped when `mirror` is 7.
    #[inline]
    fn feature_rows<'a>(
        &self,
        feats: &[u16],
        mirror: usize,
        out: &'a mut [usize; 64],
    ) -> &'a [usize] {
        let mut n = 0;
        for &f in feats {
            let f = usize::from(f) ^ mirror;
            out[n] = f;
            n += 1;
            if let Some(r) = self.factor_row(f) {
                out[n] = r;
                n += 1;
            }
        }
        &out[..n]
    }

    /// The output `y` (units of 400 centipawns) for a position's features.
    pub fn forward(&self, stm: &[u16], ntm: &[u16], acc: &mut [f32]) -> f32 {
        self.forward_mirrored(stm, ntm, acc, 0)
    }

    /// `forward` with every square's file flipped (`mirror` 7) or not (0): only in the plain
    /// layout (`Trainer::epoch`).
    fn forward_mirrored(&self, stm: &[u16], ntm: &[u16], acc: &mut [f32], mirror: usize) -> f32 {
        let h = self.hidden;
        let (b1, _, _) = self.offsets();
        // Every piece is a feature: their count picks the bucket.
        let (w2, b2) = self.output(stm.len());
        let (acc_s, acc_n) = acc.split_at_mut(h);
        let mut rows = [0usize; 64];
        let bias = &self.params[b1..b1 + h];
        for (acc_p, feats) in [(&mut *acc_s, stm), (&mut *acc_n, ntm)] {
            let rows = self.feature_rows(feats, mirror, &mut rows);
            sum_rows(&self.params, h, bias, rows, acc_p);
        }
        let w = &self.params[w2..w2 + 2 * h];
        let (w_s, w_n) = w.split_at(h);
        // One call for each activation, so each loop has its own constant in `act_with`.
        let y = match self.activation {
            Activation::CReLU => output(acc_s, acc_n, w_s, w_n, |x| {
                FloatNet::act_with(Activation::CReLU, x).0
            }),
            Activation::SCReLU => output(acc_s, acc_n, w_s, w_n, |x| {
                FloatNet::act_with(Activation::SCReLU, x).0
            }),
        };
        self.params[b2] + y
    }

    /// Adds the gradient of `(sigmoid(y) - target)^2` to `grad`; returns the loss.
    /// With `mirror` 7 the position is seen with its files flipped (a to h): the same chess
    /// but for castling, which the inputs do not hold; 0 leaves it as it is. Mirroring applies
    /// to the plain layout only (a mirrored layout reads both alike).
    pub fn backward(&self, s: &Sample, acc: &mut [f32], grad: &mut [f32], mirror: usize) -> f32 {
        debug_assert!(mirror == 0 || self.layout.is_plain());
        let h = self.hidden;
        let (b1, _, _) = self.offsets();
        let (w2, b2) = self.output(s.pieces());
        let (mut ours, mut other) = ([0u16; 32], [0u16; 32]);
        let stm = s.stm(&mut ours);
        let ntm = s.ntm(&mut other);
        let y = self.forward_mirrored(stm, ntm, acc, mirror);
        let p = sigmoid(y);
        let err = p - s.target;
        let g = 2.0 * err * p * (1.0 - p);
        grad[b2] += g;
        let (acc_s, acc_n) = acc.split_at_mut(h);
        let activation = self.activation;
        let (w_s, w_n) = self.params[w2..w2 + 2 * h].split_at(h);
        let (g_ws, g_wn) = grad[w2..w2 + 2 * h].split_at_mut(h);
        for (acc_p, w, gw) in [(&mut *acc_s, w_s, g_ws), (&mut *acc_n, w_n, g_wn)] {
            for ((a, w), gw) in acc_p.iter_mut().zip(w).zip(gw) {
                let (x, d) = FloatNet::act_with(activation, *a);
                *gw += g * x;
                // The accumulators now hold their gradients.
                *a = g * w * d;
            }
        }
        for ((gb, d_s), d_n) in grad[b1..b1 + h].iter_mut().zip(&*acc_s).zip(&*acc_n) {
            *gb += d_s + d_n;
        }
        let mut rows = [0usize; 64];
        for (acc_p, feats) in [(&*acc_s, stm), (&*acc_n, ntm)] {
            let rows = self.feature_rows(feats, mirror, &mut rows);
            add_to_rows(grad, h, acc_p, rows);
        }
        err * err
    }

    /// The quantised net for the search.
    pub fn quantise(&self, provenance: String) -> Network {
        let (b1, w2, b2) = self.offsets();
        let q = |x: f32, k: i32| (x * k as f32).round().clamp(-32767.0, 32767.0) as i16;
        // The shared rows added into each bucket's, kept within the clip as trained weights are.
        let h = self.hidden;
        let features: Vec<i16> = (0..self.layout.inputs() * h)
            .map(|i| {
                let shared = self
                    .factor_row(i / h)
                    .map_or(0.0, |r| self.params[r * h + i % h]);
                q(
                    (self.params[i] + shared).clamp(-WEIGHT_CLIP, WEIGHT_CLIP),
                    QA,
                )
            })
            .collect();
        Network::from_parts(
            self.activation,
            self.layout,
            features,
            self.params[b1..w2].iter().map(|&w| q(w, QA)).collect(),
            self.params[w2..b2].iter().map(|&w| q(w, QB)).collect(),
            self.params[b2..]
                .iter()
                .map(|&b| (b * (QA * QB) as f32).round() as i32)
                .collect(),
            provenance,
        )
        .expect("the float net's shape is a valid net")
    }

    /// The score in centipawns, as the float net computes it.
    pub fn centipawns(&self, stm: &[u16], ntm: &[u16]) -> f32 {
        let mut acc = vec![0.0; 2 * self.hidden];
        self.forward(stm, ntm, &mut acc) * nnue::SCALE as f32
    }
}

/// Neurons summed at a time in the feature layer: a block of this many floats stays in
/// registers while every feature's row is added into it (AVX2: 8 registers).
const BLOCK: usize = 64;

/// `acc = bias + the sum of the feature rows` (`h` floats a row), a block of neurons at a
/// time. Each neuron's sum is taken in the same order as one row after another would.
#[inline]
fn sum_rows(params: &[f32], h: usize, bias: &[f32], rows: &[usize], acc: &mut [f32]) {
    let whole = h - h % BLOCK;
    for j in (0..whole).step_by(BLOCK) {
        let mut block: [f32; BLOCK] = bias[j..j + BLOCK].try_into().unwrap();
        for &r in rows {
            let row: &[f32; BLOCK] = params[r * h + j..r * h + j + BLOCK].try_into().unwrap();
            for (b, w) in block.iter_mut().zip(row) {
                *b += w;
            }
        }
        acc[j..j + BLOCK].copy_from_slice(&block);
    }
    for j in whole..h {
        acc[j] = bias[j];
        for &r in rows {
            acc[j] += params[r * h + j];
        }
    }
}

/// Adds `d` (`h` floats) to each of the feature rows of `grad`, a block at a time.
#[inline]
fn add_to_rows(grad: &mut [f32], h: usize, d: &[f32], rows: &[usize]) {
    let whole = h - h % BLOCK;
    for j in (0..whole).step_by(BLOCK) {
        let block: [f32; BLOCK] = d[j..j + BLOCK].try_into().unwrap();
        for &r in rows {
            let row: &mut [f32; BLOCK] = (&mut grad[r * h + j..r * h + j + BLOCK])
                .try_into()
                .unwrap();
            for (w, b) in row.iter_mut().zip(&block) {
                *w += b;
            }
        }
    }
    for &r in rows {
        for j in whole..h {
            grad[r * h + j] += d[j];
        }
    }
}

/// The output layer's sum `w_s . act(s) + w_n . act(n)`, in 8 running sums so it vectorises.
#[inline(always)]
fn output(s: &[f32], n: &[f32], w_s: &[f32], w_n: &[f32], act: impl Fn(f32) -> f32) -> f32 {
    let mut sums = [0.0f32; 8];
    let h = s.len();
    let whole = h - h % 8;
    for j in (0..whole).step_by(8) {
        for k in 0..8 {
            sums[k] += w_s[j + k] * act(s[j + k]) + w_n[j + k] * act(n[j + k]);
        }
    }
    let mut y = sums.iter().sum::<f32>();
    for j in whole..h {
        y += w_s[j] * act(s[j]) + w_n[j] * act(n[j]);
    }
    y
}

/// The samples of `records` (their features in `layout` and targets).
pub fn samples(records: &[Record], layout: &InputLayout, wdl: f32) -> Vec<Sample> {
    records.iter().map(|r| sample(r, layout, wdl)).collect()
}

/// What `rookery train` is asked for.
#[derive(Clone, Debug)]
pub struct Config {
    pub hidden: usize,
    pub activation: Activation,
    /// Output buckets (1, 2, 4 or 8).
    pub buckets: usize,
    /// How the pieces become inputs.
    pub layout: InputLayout,
    pub epochs: usize,
    pub batch: usize,
    pub lr: f32,
    /// The final learning rate as a fraction of `lr`.
    pub lr_end: f32,
    pub weight_decay: f32,
    pub wdl: f32,
    pub threads: usize,
    pub seed: u64,
    /// Train on each position and its mirror image (files flipped), alternately: with the plain
    /// layout only, as a mirrored layout reads a position and its mirror image alike.
    pub mirror: bool,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            hidden: 128,
            activation: Activation::SCReLU,
            buckets: 1,
            layout: InputLayout::PLAIN,
            epochs: 30,
            batch: 16_384,
            lr: 0.001,
            lr_end: 0.01,
            weight_decay: 0.01,
            wdl: 0.0,
            threads: 1,
            seed: 1,
            mirror: false,
        }
    }
}

/// The optimiser's state, kept in checkpoints.
#[derive(Clone, Debug, PartialEq)]
pub struct Trainer {
    pub net: FloatNet,
    m: Vec<f32>,
    v: Vec<f32>,
    pub step: u64,
    /// Epochs completed.
    pub epoch: usize,
    /// (train loss, validation loss) of each epoch completed.
    pub history: Vec<(f32, f32)>,
}

/// One epoch's figures, for the progress line.
pub struct Progress {
    pub epoch: usize,
    pub batch: usize,
    pub batches: usize,
    pub loss: f32,
    pub positions_per_second: f64,
}

/// Checkpoints with the input layout and the factoriser flag; `RKC3` (the layout, no
/// factoriser), `RKC2` (the output bucket count, the plain layout) and `RKCK` (one output layer)
/// files still read.
const CHECKPOINT_MAGIC: &[u8; 4] = b"RKC4";
const CHECKPOINT_MAGIC_3: &[u8; 4] = b"RKC3";
const CHECKPOINT_MAGIC_2: &[u8; 4] = b"RKC2";
const CHECKPOINT_MAGIC_1: &[u8; 4] = b"RKCK";

impl Trainer {
    pub fn new(net: FloatNet) -> Trainer {
        let n = net.params.len();
        Trainer {
            net,
            m: vec![0.0; n],
            v: vec![0.0; n],
            step: 0,
            epoch: 0,
            history: Vec::new(),
        }
    }

    /// Mean loss over `data`, on `threads` threads.
    pub fn loss(&self, data: &[Sample], threads: usize) -> f32 {
        if data.is_empty() {
            return 0.0;
        }
        let [total] = sum_in_parts(data, threads, |part| {
            let mut acc = vec![0.0; 2 * self.net.hidden];
            [part
                .iter()
                .map(|x| {
                    let (mut ours, mut other) = ([0u16; 32], [0u16; 32]);
                    let (stm, ntm) = (x.stm(&mut ours), x.ntm(&mut other));
                    let y = self.net.forward(stm, ntm, &mut acc);
                    let e = sigmoid(y) - x.target;
                    f64::from(e * e)
                })
                .sum::<f64>()]
        });
        (total / data.len() as f64) as f32
    }

    /// The learning rate at `step` of `total`.
    fn rate(cfg: &Config, step: u64, total: u64) -> f32 {
        let x = (step as f32 / total.max(1) as f32).min(1.0);
        let end = cfg.lr * cfg.lr_end;
        end + 0.5 * (cfg.lr - end) * (1.0 + (PI * x).cos())
    }

    /// One epoch over `train` in a seeded random order. Returns the mean training loss.
    pub fn epoch(
        &mut self,
        cfg: &Config,
        train: &[Sample],
        mut progress: impl FnMut(&Progress),
    ) -> f32 {
        assert!(
            !cfg.mirror || self.net.layout.is_plain(),
            "mirror images are for the plain layout only"
        );
        let threads = cfg.threads.max(1);
        // A factorised net trains through its merged net (the shared rows added into each
        // bucket's, the same function), whose rows each feature reads once: the gradient of a
        // shared row is the sum of its buckets' (`unmerge_gradient`), so the factoriser costs
        // a pass over the weights a step, not a second row for every feature of every position.
        let mut merged = self.net.factorised.then(|| {
            let mut m = self.net.clone();
            self.net.merge_into(&mut m);
            m
        });
        let mut full = Vec::new();
        let n = merged.as_ref().unwrap_or(&self.net).params.len();
        let mut order: Vec<u32> = (0..train.len() as u32).collect();
        let mut rng = Rng::new(cfg.seed ^ (self.epoch as u64 + 1).wrapping_mul(0x9e37_79b9));
        rng.shuffle(&mut order);
        let batches = train.len().div_ceil(cfg.batch.max(1));
        let total_steps = (batches * cfg.epochs) as u64;
        let mut grads: Vec<Vec<f32>> = (0..threads).map(|_| vec![0.0; n]).collect();
        let start = Instant::now();
        let mut loss_sum = 0.0f64;
        let mut last = Instant::now();
        for (b, batch) in order.chunks(cfg.batch.max(1)).enumerate() {
            let part = batch.len().div_ceil(threads);
            if let Some(m) = merged.as_mut() {
                self.net.merge_into(m);
            }
            let net = merged.as_ref().unwrap_or(&self.net);
            let (mirror, epoch) = (cfg.mirror, self.epoch);
            let losses: Vec<f64> = std::thread::scope(|s| {
                let handles: Vec<_> = grads
                    .iter_mut()
                    .zip(batch.chunks(part))
                    .map(|(g, idx)| {
                        s.spawn(move || {
                            g.iter_mut().for_each(|x| *x = 0.0);
                            let mut acc = vec![0.0; 2 * net.hidden];
                            idx.iter()
                                .map(|&i| {
                                    // With `mirror`, half the positions are seen mirrored in
                                    // each epoch, and each position in every other epoch.
                                    let m = if mirror && (i as usize + epoch) % 2 == 1 {
                                        7
                                    } else {
                                        0
                                    };
                                    f64::from(net.backward(&train[i as usize], &mut acc, g, m))
                                })
                                .sum::<f64>()
                        })
                    })
                    .collect();
                handles.into_iter().map(|h| h.join().unwrap()).collect()
            });
            let used = batch.len().div_ceil(part);
            loss_sum += losses.iter().sum::<f64>();
            let lr = Trainer::rate(cfg, self.step, total_steps);
            self.step += 1;
            if merged.is_some() {
                self.net.unmerge_gradient(&grads[..used], &mut full);
                self.apply(cfg, std::slice::from_ref(&full), batch.len() as f32, lr);
            } else {
                self.apply(cfg, &grads[..used], batch.len() as f32, lr);
            }
            if last.elapsed().as_millis() >= 500 || b + 1 == batches {
                last = Instant::now();
                let seen = (b * cfg.batch + batch.len()) as f64;
                progress(&Progress {
                    epoch: self.epoch + 1,
                    batch: b + 1,
                    batches,
                    loss: (loss_sum / seen) as f32,
                    positions_per_second: seen / start.elapsed().as_secs_f64().max(1e-9),
                });
            }
        }
        self.epoch += 1;
        (loss_sum / train.len().max(1) as f64) as f32
    }

    /// AdamW on the summed gradients, split over the threads by parameter.
    fn apply(&mut self, cfg: &Config, grads: &[Vec<f32>], batch: f32, lr: f32) {
        let (b1, b2, eps) = (0.9f32, 0.999f32, 1e-8f32);
        let t = self.step as i32;
        let c1 = 1.0 - b1.powi(t);
        let c2 = 1.0 - b2.powi(t);
        let wd = cfg.weight_decay;
        let n = self.net.params.len();
        let threads = cfg.threads.max(1);
        let part = n.div_ceil(threads);
        std::thread::scope(|s| {
            for (k, ((p, m), v)) in self
                .net
                .params
                .chunks_mut(part)
                .zip(self.m.chunks_mut(part))
                .zip(self.v.chunks_mut(part))
                .enumerate()
            {
                let base = k * part;
                s.spawn(move || {
                    for i in 0..p.len() {
                        let mut g = 0.0;
                        for gr in grads {
                            g += gr[base + i];
                        }
                        g /= batch;
                        m[i] = b1 * m[i] + (1.0 - b1) * g;
                        v[i] = b2 * v[i] + (1.0 - b2) * g * g;
                        let step = (m[i] / c1) / ((v[i] / c2).sqrt() + eps);
                        p[i] -= lr * (step + wd * p[i]);
                        p[i] = p[i].clamp(-WEIGHT_CLIP, WEIGHT_CLIP);
                    }
                });
            }
        });
    }

    /// The trainer as a checkpoint file: the float net, the optimiser's moments, the epoch and
    /// the loss history, then the checksum of all before it.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::new();
        out.extend_from_slice(CHECKPOINT_MAGIC);
        out.put(self.net.hidden as u32);
        out.put(self.net.activation.code());
        out.put(self.net.buckets as u32);
        out.put(u8::from(self.net.layout.mirror()));
        out.extend_from_slice(self.net.layout.king_buckets());
        out.put(u8::from(self.net.factorised));
        out.put(self.step);
        out.put(self.epoch as u32);
        out.put(self.history.len() as u32);
        for &(a, b) in &self.history {
            out.put(a);
            out.put(b);
        }
        for &x in self.net.params.iter().chain(&self.m).chain(&self.v) {
            out.put(x);
        }
        bytes::seal(&mut out);
        out
    }

    /// A checkpoint read back, checked: its magic, its checksum, and a net shape that can be.
    pub fn from_bytes(bytes: &[u8]) -> Result<Trainer, Error> {
        let refuse = |problem| Error::Train {
            path: String::new(),
            problem,
        };
        let magics = [
            CHECKPOINT_MAGIC_1,
            CHECKPOINT_MAGIC_2,
            CHECKPOINT_MAGIC_3,
            CHECKPOINT_MAGIC,
        ];
        let Some(version) = magics
            .iter()
            .position(|m| bytes.len() >= 12 && &bytes[..4] == *m)
        else {
            return Err(refuse(TrainProblem::NotACheckpoint));
        };
        let bucketed = version >= 1;
        let laid_out = version >= 2;
        let flagged = version >= 3;
        let body = bytes::unseal(bytes).ok_or_else(|| refuse(TrainProblem::Damaged))?;
        let mut r = Reader::new(body);
        let mut fields = || -> Result<Trainer, TrainProblem> {
            let short = TrainProblem::CutShort;
            r.take(4, "the magic").map_err(short)?;
            let hidden = r.read::<u32>("the hidden size").map_err(short)? as usize;
            let code: u8 = r.read("the activation").map_err(short)?;
            let activation = Activation::from_code(code).ok_or(TrainProblem::Activation(code))?;
            if hidden == 0 || hidden > nnue::MAX_HIDDEN {
                return Err(TrainProblem::Hidden {
                    hidden,
                    max: nnue::MAX_HIDDEN,
                });
            }
            let buckets = if bucketed {
                r.read::<u32>("the output buckets").map_err(short)? as usize
            } else {
                1
            };
            if !nnue::valid_buckets(buckets) {
                return Err(TrainProblem::Buckets(buckets));
            }
            let layout = if laid_out {
                let mirror = match r.read::<u8>("the mirror flag").map_err(short)? {
                    0 => false,
                    1 => true,
                    m => return Err(TrainProblem::Layout(LayoutProblem::MirrorFlag(m))),
                };
                let table = r.take(64, "the king buckets").map_err(short)?;
                let table: [u8; 64] = table.try_into().expect("64 bytes");
                InputLayout::new(mirror, table).map_err(TrainProblem::Layout)?
            } else {
                InputLayout::PLAIN
            };
            let factorised = flagged
                && match r.read::<u8>("the factoriser flag").map_err(short)? {
                    0 => false,
                    1 => true,
                    f => return Err(TrainProblem::Factoriser(f)),
                };
            let step = r.read("the step").map_err(short)?;
            let epoch = r.read::<u32>("the epoch").map_err(short)? as usize;
            let hist = r.read::<u32>("the history's length").map_err(short)? as usize;
            let losses = r
                .read_n::<f32>(2 * hist.min(1 << 20), "the loss history")
                .map_err(short)?;
            let history = losses.chunks_exact(2).map(|p| (p[0], p[1])).collect();
            let n = FloatNet::len(&layout, hidden, buckets, factorised);
            let params = r.read_n(n, "the weights").map_err(short)?;
            let m = r.read_n(n, "the first moments").map_err(short)?;
            let v = r.read_n(n, "the second moments").map_err(short)?;
            Ok(Trainer {
                net: FloatNet {
                    hidden,
                    activation,
                    buckets,
                    layout,
                    factorised,
                    params,
                },
                m,
                v,
                step,
                epoch,
                history,
            })
        };
        fields().map_err(refuse)
    }
}

/// The loss curve as an SVG picture: training and validation loss by epoch.
pub fn loss_svg(history: &[(f32, f32)], title: &str) -> String {
    let (w, h, pad) = (640.0f32, 360.0f32, 50.0f32);
    // A logarithmic axis: the first epoch's loss would flatten the rest.
    let all: Vec<f32> = history
        .iter()
        .flat_map(|&(a, b)| [a, b])
        .filter(|v| *v > 0.0)
        .collect();
    let lo = all.iter().copied().fold(f32::INFINITY, f32::min);
    let hi = all.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let (lo, hi) = if lo.is_finite() && hi > lo {
        (lo, hi)
    } else {
        (0.0, 1.0)
    };
    let n = history.len().max(2) - 1;
    let x = |i: usize| pad + (w - 2.0 * pad) * i as f32 / n as f32;
    let (llo, lhi) = (lo.max(1e-12).ln(), hi.max(1e-12).ln());
    let y = |v: f32| {
        let t = (v.max(1e-12).ln() - llo) / (lhi - llo).max(1e-12);
        h - pad - (h - 2.0 * pad) * t
    };
    let line = |pick: fn(&(f32, f32)) -> f32| {
        history
            .iter()
            .enumerate()
            .map(|(i, e)| format!("{:.1},{:.1}", x(i), y(pick(e))))
            .collect::<Vec<_>>()
            .join(" ")
    };
    let mut s = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" font-family=\"sans-serif\" font-size=\"12\">\n\
         <rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n\
         <text x=\"{pad}\" y=\"20\" font-size=\"14\">{title}</text>\n\
         <line x1=\"{pad}\" y1=\"{b}\" x2=\"{r}\" y2=\"{b}\" stroke=\"black\"/>\n\
         <line x1=\"{pad}\" y1=\"{pad}\" x2=\"{pad}\" y2=\"{b}\" stroke=\"black\"/>\n\
         <text x=\"{mid}\" y=\"{lbl}\" text-anchor=\"middle\">epoch (loss on a log scale)</text>\n\
         <text x=\"4\" y=\"{pad}\">{hi:.5}</text>\n<text x=\"4\" y=\"{b}\">{lo:.5}</text>\n",
        b = h - pad,
        r = w - pad,
        mid = w / 2.0,
        lbl = h - 12.0,
    );
    for (i, _) in history.iter().enumerate() {
        s += &format!(
            "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{}</text>\n",
            x(i),
            h - pad + 16.0,
            i + 1
        );
    }
    s += &format!(
        "<polyline fill=\"none\" stroke=\"#1f77b4\" stroke-width=\"2\" points=\"{}\"/>\n",
        line(|e| e.0)
    );
    s += &format!(
        "<polyline fill=\"none\" stroke=\"#d62728\" stroke-width=\"2\" points=\"{}\"/>\n",
        line(|e| e.1)
    );
    s += &format!(
        "<text x=\"{0}\" y=\"{1}\" fill=\"#1f77b4\">training</text>\n<text x=\"{0}\" y=\"{2}\" fill=\"#d62728\">validation</text>\n</svg>\n",
        w - pad - 80.0,
        pad + 10.0,
        pad + 26.0
    );
    s
}

/// Writes the loss history as CSV (`epoch,train,validation`).
pub fn loss_csv(history: &[(f32, f32)], out: &mut dyn Write) -> std::io::Result<()> {
    writeln!(out, "epoch,train_loss,validation_loss")?;
    for (i, (a, b)) in history.iter().enumerate() {
        writeln!(out, "{},{a:.6},{b:.6}", i + 1)?;
    }
    Ok(())
}

/// Splits `records` into training and validation sets: a seeded shuffle, then the last
/// `fraction` (at least one position when there are two or more) for validation.
pub fn split(mut records: Vec<Record>, fraction: f64, seed: u64) -> (Vec<Record>, Vec<Record>) {
    let mut rng = Rng::new(seed);
    rng.shuffle(&mut records);
    let k = val_count(records.len(), fraction);
    let val = records.split_off(records.len() - k);
    (records, val)
}

/// Validation positions for `fraction` of `n`: at least one when there are two or more.
fn val_count(n: usize, fraction: f64) -> usize {
    let k = (n as f64 * fraction).round() as usize;
    if k == 0 && fraction > 0.0 && n >= 2 {
        1
    } else {
        k
    }
}

/// `sums` of `data` cut into one part a thread (`threads` of them), added up part by part in
/// order.
fn sum_in_parts<T: Sync, const N: usize>(
    data: &[T],
    threads: usize,
    sums: impl Fn(&[T]) -> [f64; N] + Sync,
) -> [f64; N] {
    let chunk = data.len().div_ceil(threads.max(1)).max(1);
    std::thread::scope(|s| {
        let parts: Vec<_> = data
            .chunks(chunk)
            .map(|part| s.spawn(|| sums(part)))
            .collect();
        parts.into_iter().fold([0.0; N], |mut total, h| {
            let part = h.join().expect("a summing thread panicked");
            for (t, p) in total.iter_mut().zip(part) {
                *t += p;
            }
            total
        })
    })
}

/// How well a quantised net fits labelled positions, as the search would read it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Fit {
    pub positions: usize,
    /// Mean squared error against the training target (`target`), as `rookery train` reports it.
    pub loss: f64,
    /// Mean distance of the net's score from the search's, in centipawns.
    pub mean_abs_cp: f64,
}

/// `net`'s fit to `records` with the target blend `wdl`, on `threads` threads: what its
/// validation loss would be, for any net file on any data (a held-out set of other games makes
/// nets of different shapes and data comparable, which a split of positions does not: a game's
/// other positions stay in the training set).
pub fn fit(net: &Network, records: &[Record], wdl: f32, threads: usize) -> Fit {
    if records.is_empty() {
        return Fit {
            positions: 0,
            loss: 0.0,
            mean_abs_cp: 0.0,
        };
    }
    let [loss, abs] = sum_in_parts(records, threads, |part| {
        part.iter().fold([0.0f64; 2], |[loss, abs], r| {
            // A record is seen from the side to move, whose pieces are White.
            let cp = net.evaluate_board(&r.board(), shakmaty::Color::White);
            let e = sigmoid(cp as f32 / EVAL_SCALE) - target(r, wdl);
            [
                loss + f64::from(e * e),
                abs + f64::from((cp - i32::from(r.score)).abs()),
            ]
        })
    });
    let n = records.len() as f64;
    Fit {
        positions: records.len(),
        loss: loss / n,
        mean_abs_cp: abs / n,
    }
}

/// How a validation set is split off the training data.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ValSplit {
    /// Runs of consecutive positions (of a data set in game order, whole games but for a run's
    /// two ends): validation positions whose games the net never trained on, so the loss says
    /// how it does on new games, and nets of more weights cannot lower it by remembering.
    Games,
    /// Positions picked one by one: a validation position's game mates stay in the training set
    /// (the split the earlier nets were trained on; docs/training.md says which).
    Positions,
}

impl ValSplit {
    pub fn parse(s: &str) -> Option<ValSplit> {
        match s {
            "games" => Some(ValSplit::Games),
            "positions" => Some(ValSplit::Positions),
            _ => None,
        }
    }

    /// `fraction` of `records` split off for validation this way, with `seed`.
    pub fn split(
        self,
        records: Vec<Record>,
        fraction: f64,
        seed: u64,
    ) -> (Vec<Record>, Vec<Record>) {
        match self {
            ValSplit::Games => split_runs(records, fraction, seed),
            ValSplit::Positions => split(records, fraction, seed),
        }
    }
}

/// The longest run of consecutive positions `split_runs` moves to validation: about 64 games
/// of self-play, so the games cut at a run's ends are a few percent of its positions.
pub const VAL_RUN: usize = 4096;

/// A seeded split of `fraction` of `records` for validation, in runs of consecutive positions
/// (`ValSplit::Games`): at most `VAL_RUN` long and at least 16 of them where the data allows.
/// Both parts keep the records' order.
pub fn split_runs(
    mut records: Vec<Record>,
    fraction: f64,
    seed: u64,
) -> (Vec<Record>, Vec<Record>) {
    let n = records.len();
    let k = val_count(n, fraction);
    if k == 0 {
        return (records, Vec::new());
    }
    let run = (k / 16).clamp(1, VAL_RUN);
    let mut runs: Vec<usize> = (0..n.div_ceil(run)).collect();
    Rng::new(seed).shuffle(&mut runs);
    let mut chosen = vec![false; runs.len()];
    let mut taken = 0;
    for r in runs {
        if taken >= k {
            break;
        }
        chosen[r] = true;
        taken += (n - r * run).min(run);
    }
    let mut val = Vec::with_capacity(taken);
    let mut i = 0;
    records.retain(|r| {
        let keep = !chosen[i / run];
        if !keep {
            val.push(*r);
        }
        i += 1;
        keep
    });
    (records, val)
}

/// Loads the data sets named, as records.
pub fn load_all(paths: &[String]) -> Result<Vec<Record>, Error> {
    Ok(load_filtered(paths, &Filter::default())?.0)
}

/// The records of every data set in `paths` that pass `filter`, in order, and the counts read
/// and kept.
pub fn load_filtered(paths: &[String], filter: &Filter) -> Result<(Vec<Record>, Filtered), Error> {
    let mut all = Vec::new();
    let mut counts = Filtered::default();
    for p in paths {
        all.extend(crate::data::store::load_filtered(p, filter, &mut counts)?);
    }
    Ok((all, counts))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ReadError;
    use shakmaty::{Chess, Color, Position};

    /// Positions for the tests: the perft suites' positions and a ply below each.
    fn records(label: impl Fn(&Chess) -> (i32, f64)) -> Vec<Record> {
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

    fn material(pos: &Chess) -> i32 {
        let values = [100, 300, 300, 500, 900, 0];
        let mut s = 0;
        for (_, p) in pos.board().iter() {
            let v = values[p.role as usize - 1];
            s += if p.color == pos.turn() { v } else { -v };
        }
        s
    }

    /// The split by games moves whole runs of consecutive positions to validation, about the
    /// fraction asked for, both parts in their order; the seed picks the runs.
    #[test]
    fn the_split_by_games_keeps_runs_of_positions_together() {
        // Each record's score is its index, so order and runs can be read back.
        let records: Vec<Record> = (0..20_000)
            .map(|i| Record {
                score: i as i16,
                ..Record::default()
            })
            .collect();
        let (train, val) = split_runs(records.clone(), 0.05, 7);
        let run = 1000 / 16;
        assert!((1000..1000 + run).contains(&val.len()), "{}", val.len());
        assert_eq!(train.len() + val.len(), records.len());
        for part in [&train, &val] {
            assert!(
                part.windows(2).all(|w| w[0].score < w[1].score),
                "order kept"
            );
        }
        // Validation is whole runs: each stretch of consecutive indices starts on a run's
        // boundary and is a whole number of runs long.
        let index = |r: &Record| r.score as usize;
        let mut start = 0;
        for i in 1..=val.len() {
            if i == val.len() || index(&val[i]) != index(&val[i - 1]) + 1 {
                let (first, len) = (index(&val[start]), i - start);
                assert_eq!(first % run, 0, "a stretch from {first}");
                assert!(
                    len % run == 0 || first + len == records.len(),
                    "a stretch of {len} from {first}"
                );
                start = i;
            }
        }
        assert_eq!(
            split_runs(records.clone(), 0.05, 7).1,
            val,
            "the seed decides"
        );
        assert_ne!(split_runs(records.clone(), 0.05, 8).1, val);
        // Tiny sets still get a validation position; no fraction, none.
        let (t, v) = split_runs(records[..3].to_vec(), 0.01, 1);
        assert_eq!((t.len(), v.len()), (2, 1));
        assert!(split_runs(records[..3].to_vec(), 0.0, 1).1.is_empty());
    }

    #[test]
    fn gradients_agree_with_finite_differences() {
        let kb4 = InputLayout::preset("mirror-kb4").unwrap();
        let kb8 = InputLayout::preset("mirror-kb8").unwrap();
        // Hidden sizes below a block of neurons, and one block and some (`sum_rows`).
        for (h, activation, mirror, buckets, layout, factorised) in [
            (6, Activation::SCReLU, 0, 1, InputLayout::PLAIN, false),
            (6, Activation::CReLU, 0, 1, InputLayout::PLAIN, false),
            (6, Activation::SCReLU, 7, 1, InputLayout::PLAIN, false),
            (6, Activation::SCReLU, 0, 8, InputLayout::PLAIN, false),
            (6, Activation::SCReLU, 0, 2, kb4, false),
            (6, Activation::CReLU, 0, 1, kb8, false),
            (6, Activation::SCReLU, 0, 2, kb4, true),
            (70, Activation::SCReLU, 0, 8, InputLayout::PLAIN, false),
            (70, Activation::CReLU, 7, 1, InputLayout::PLAIN, false),
            (70, Activation::SCReLU, 0, 2, kb4, true),
        ] {
            let recs = records(|p| (material(p), 0.5));
            // Positions whose kings are in different buckets, where the layout has them.
            let mut picked: Vec<Record> = Vec::new();
            for r in &recs {
                let bucket = |k: u8| layout.relative(usize::from(k)).0;
                if picked.len() < 6
                    && (picked.len() < 3 || !picked.iter().any(|p| bucket(p.ksq) == bucket(r.ksq)))
                {
                    picked.push(*r);
                }
            }
            let data = samples(&picked, &layout, 0.5);
            let mut net = FloatNet::new(h, activation, buckets, layout, 3);
            if factorised {
                net = net.factorise();
                // Shared rows of their own, not zeros, so both sources of each input count.
                let at = layout.inputs() * h;
                for (i, w) in net.params[at..at + INPUTS * h].iter_mut().enumerate() {
                    *w = 0.05 * ((i % 7) as f32 - 3.0);
                }
            }
            // Biases away from the clip points, where the derivative is not defined.
            let (b1, _, _) = net.offsets();
            // The output layer the first position reads, and one no position here reads.
            let (w2, b2) = net.output(data[0].pieces());
            let unused = if buckets > 1 { net.output(2).0 } else { w2 };
            for j in 0..h {
                net.params[b1 + j] = 0.3 + 0.05 * (j % 7) as f32;
            }
            let mut grad = vec![0.0; net.params.len()];
            let mut acc = vec![0.0; 2 * h];
            for s in &data {
                net.backward(s, &mut acc, &mut grad, mirror);
            }
            let loss = |n: &FloatNet| -> f64 {
                data.iter()
                    .map(|s| {
                        let mut a = vec![0.0; 2 * h];
                        let (mut ours, mut other) = ([0u16; 32], [0u16; 32]);
                        let (stm, ntm) = (s.stm(&mut ours), s.ntm(&mut other));
                        let y = n.forward_mirrored(stm, ntm, &mut a, mirror);
                        let e = f64::from(sigmoid(y) - s.target);
                        e * e
                    })
                    .sum()
            };
            // The first feature of each side, and the highest of all (in a bucketed layout, a
            // bucket above the first).
            let (mut ours, mut other) = ([0u16; 32], [0u16; 32]);
            let first = usize::from(data[0].stm(&mut ours)[0]) ^ mirror;
            let theirs = usize::from(data[0].ntm(&mut other)[0]) ^ mirror;
            let highest = data
                .iter()
                .flat_map(|s| {
                    let (mut a, mut b) = ([0u16; 32], [0u16; 32]);
                    let mut all = s.stm(&mut a).to_vec();
                    all.extend_from_slice(s.ntm(&mut b));
                    all
                })
                .max()
                .map_or(0, |f| usize::from(f) ^ mirror);
            if layout.buckets() > 1 {
                assert!(highest >= INPUTS, "{highest}");
            }
            // The shared row the first feature also reads (the first's own when not factorised).
            let shared = net.factor_row(first).unwrap_or(first);
            let checked = [
                shared * h + 4,
                first * h,
                first * h + 3,
                theirs * h + 1,
                highest * h + 2,
                highest * h + 5,
                first * h + h - 1,
                theirs * h + h - 2,
                b1 + 2,
                w2 + 1,
                w2 + 7,
                b2,
                unused + 3,
            ];
            for &i in &checked {
                let h = 1e-3f32;
                let mut plus = net.clone();
                plus.params[i] += h;
                let mut minus = net.clone();
                minus.params[i] -= h;
                let numeric = (loss(&plus) - loss(&minus)) / (2.0 * f64::from(h));
                let analytic = f64::from(grad[i]);
                assert!(
                    (numeric - analytic).abs() < 1e-3 + 0.02 * analytic.abs(),
                    "{activation:?} {} parameter {i}: numeric {numeric}, analytic {analytic}",
                    layout.describe()
                );
            }
            // The gradient reaches the highest feature's row: the check above is not of zeros.
            assert!(
                grad[highest * h..highest * h + h]
                    .iter()
                    .any(|g| g.abs() > 1e-7),
                "{}",
                layout.describe()
            );
        }
    }

    /// Training through the merged net gives the factorised net's own gradient: each bucket's
    /// rows as they are, each shared row the sum over the buckets.
    #[test]
    fn the_merged_net_gives_the_factorised_gradient() {
        let layout = InputLayout::preset("mirror-kb4").unwrap();
        let recs = records(|p| (material(p), 0.5));
        let data = samples(&recs[..200], &layout, 0.5);
        let mut net = FloatNet::new(8, Activation::SCReLU, 2, layout, 11).factorise();
        let at = layout.inputs() * 8;
        for (i, w) in net.params[at..at + INPUTS * 8].iter_mut().enumerate() {
            *w = 0.03 * ((i % 5) as f32 - 2.0);
        }
        let mut acc = vec![0.0; 16];
        let mut direct = vec![0.0; net.params.len()];
        for s in &data {
            net.backward(s, &mut acc, &mut direct, 0);
        }
        let mut merged = FloatNet::new(1, Activation::CReLU, 1, InputLayout::PLAIN, 1);
        net.merge_into(&mut merged);
        assert!(!merged.factorised);
        assert_eq!(merged.params.len(), net.params.len() - INPUTS * 8);
        let mut halves = vec![vec![0.0; merged.params.len()]; 2];
        for (i, s) in data.iter().enumerate() {
            let (mut ours, mut other) = ([0u16; 32], [0u16; 32]);
            let (stm, ntm) = (s.stm(&mut ours), s.ntm(&mut other));
            assert!((merged.centipawns(stm, ntm) - net.centipawns(stm, ntm)).abs() < 1e-3);
            merged.backward(s, &mut acc, &mut halves[i % 2], 0);
        }
        let mut via = Vec::new();
        net.unmerge_gradient(&halves, &mut via);
        assert_eq!(via.len(), direct.len());
        let shared = at..at + INPUTS * 8;
        assert!(direct[shared.clone()].iter().any(|g| g.abs() > 1e-4));
        for (i, (a, b)) in via.iter().zip(&direct).enumerate() {
            assert!(
                (a - b).abs() < 1e-4 + 1e-3 * b.abs(),
                "parameter {i}: {a} against {b}"
            );
        }
    }

    #[test]
    fn it_learns_material_and_the_quantised_net_agrees_with_the_float_net() {
        // Labels made from material alone: the net must learn the piece values.
        let recs = records(|p| (material(p), 0.5));
        assert!(recs.len() > 1000, "{}", recs.len());
        let (train, val) = split(recs, 0.1, 9);
        let cfg = Config {
            hidden: 32,
            // Output buckets: the quantised net must pick the same layer as the float net.
            buckets: 4,
            epochs: 40,
            batch: 256,
            lr: 0.01,
            wdl: 0.0,
            threads: 2,
            ..Config::default()
        };
        let train_s = samples(&train, &cfg.layout, cfg.wdl);
        let val_s = samples(&val, &cfg.layout, cfg.wdl);
        let mut t = Trainer::new(FloatNet::new(
            cfg.hidden,
            cfg.activation,
            cfg.buckets,
            cfg.layout,
            5,
        ));
        let before = t.loss(&val_s, 2);
        for _ in 0..cfg.epochs {
            t.epoch(&cfg, &train_s, |_| {});
        }
        let after = t.loss(&val_s, 2);
        assert!(after < before / 5.0, "validation loss {before} -> {after}");
        // Held-out positions: the learned score is near the material count.
        let mut err = 0.0;
        for (r, s) in val.iter().zip(&val_s) {
            let (mut ours, mut other) = ([0u16; 32], [0u16; 32]);
            let cp = t.net.centipawns(s.stm(&mut ours), s.ntm(&mut other));
            err += (cp - f32::from(r.score)).abs();
        }
        let mean = err / val.len() as f32;
        assert!(mean < 60.0, "mean error {mean} centipawns");
        quantised_agrees(&t.net, &val);
        // `fit` scores the exported net as validation scored the float net, on any threads.
        let q = t.net.quantise("test".into());
        let f = fit(&q, &val, cfg.wdl, 3);
        assert_eq!(f.positions, val.len());
        assert!(
            (f.loss - f64::from(after)).abs() < 0.1 * f64::from(after) + 1e-5,
            "fit {} against validation {after}",
            f.loss
        );
        assert!(
            (f.mean_abs_cp - f64::from(mean)).abs() < 4.0,
            "{f:?} against {mean}"
        );
        let one = fit(&q, &val, cfg.wdl, 1);
        assert!(
            (one.loss - f.loss).abs() < 1e-12 && (one.mean_abs_cp - f.mean_abs_cp).abs() < 1e-9,
            "the threads split the sum only: {one:?} against {f:?}"
        );
        let untrained = FloatNet::new(cfg.hidden, cfg.activation, cfg.buckets, cfg.layout, 5);
        let f0 = fit(&untrained.quantise("test".into()), &val, cfg.wdl, 2);
        assert!(f0.loss > 5.0 * f.loss, "{f0:?} against {f:?}");
        // A checkpoint reads back whole.
        assert_eq!(Trainer::from_bytes(&t.to_bytes()).unwrap(), t);
        let mut damaged = t.to_bytes();
        damaged[40] ^= 4;
        let e = Trainer::from_bytes(&damaged).unwrap_err();
        assert!(e.to_string().contains("damaged"));
        assert_eq!(
            e,
            Error::Train {
                path: String::new(),
                problem: TrainProblem::Damaged
            }
        );
    }

    /// The quantised net scores as the float net does, within a few centipawns. (The output
    /// weights' steps of 1/64 dominate the difference.)
    fn quantised_agrees(net: &FloatNet, records: &[Record]) {
        let q = net.quantise("test".into());
        assert_eq!(*q.layout(), net.layout);
        let (mut worst, mut sum) = (0.0f32, 0.0f32);
        for r in records {
            let (mut s, mut n) = ([0u16; 32], [0u16; 32]);
            let k = features(r, &net.layout, &mut s, &mut n);
            let float = net.centipawns(&s[..k], &n[..k]);
            let quant = q.evaluate_board(&r.board(), Color::White) as f32;
            worst = worst.max((float - quant).abs());
            sum += (float - quant).abs();
        }
        let mean = sum / records.len() as f32;
        assert!(
            mean < 4.0 && worst < 15.0,
            "{}: quantised net off by {mean} on average, {worst} at worst",
            net.layout.describe()
        );
    }

    /// A net of king buckets and mirroring learns (its loss falls), exports a net of its layout
    /// that scores as it does, and its checkpoint reads back with the layout.
    #[test]
    fn a_bucketed_mirrored_net_trains_and_exports_its_layout() {
        let recs = records(|p| (material(p), 0.5));
        let (train, val) = split(recs, 0.1, 9);
        for factorised in [false, true] {
            bucketed_net_trains(&train, &val, factorised);
        }
    }

    /// With the factoriser, as without: the loss falls, the export (the shared rows added into
    /// each bucket's) scores as the float net, the checkpoint keeps the flag.
    fn bucketed_net_trains(train: &[Record], val: &[Record], factorised: bool) {
        let cfg = Config {
            hidden: 16,
            buckets: 2,
            layout: InputLayout::preset("mirror-kb4").unwrap(),
            epochs: 8,
            batch: 128,
            lr: 0.01,
            threads: 2,
            ..Config::default()
        };
        let train_s = samples(train, &cfg.layout, cfg.wdl);
        let val_s = samples(val, &cfg.layout, cfg.wdl);
        let mut net = FloatNet::new(cfg.hidden, cfg.activation, cfg.buckets, cfg.layout, 5);
        if factorised {
            let before = net.clone();
            net = net.factorise();
            assert_eq!(net.params.len(), before.params.len() + INPUTS * cfg.hidden);
            // The shared rows start at zero: the same function as before.
            for s in &val_s[..20] {
                let (mut ours, mut other) = ([0u16; 32], [0u16; 32]);
                let (stm, ntm) = (s.stm(&mut ours), s.ntm(&mut other));
                assert_eq!(net.centipawns(stm, ntm), before.centipawns(stm, ntm));
            }
        }
        let mut t = Trainer::new(net);
        let before = t.loss(&val_s, 2);
        for _ in 0..cfg.epochs {
            t.epoch(&cfg, &train_s, |_| {});
        }
        let after = t.loss(&val_s, 2);
        assert!(after < before / 2.0, "validation loss {before} -> {after}");
        if factorised {
            // The shared rows learned something, so the export's sum is tested.
            let shared =
                cfg.layout.inputs() * cfg.hidden..(cfg.layout.inputs() + INPUTS) * cfg.hidden;
            assert!(t.net.params[shared].iter().any(|w| w.abs() > 1e-3));
        }
        quantised_agrees(&t.net, train);
        quantised_agrees(&t.net, val);
        let back = Trainer::from_bytes(&t.to_bytes()).unwrap();
        assert_eq!(back.net.layout, cfg.layout);
        assert_eq!(back.net.factorised, factorised);
        assert_eq!(back, t);
    }

    /// A checkpoint of `t` with `edit` made to its body, sealed again with a checksum that
    /// matches: what the checks after the checksum must catch.
    fn resealed(t: &Trainer, edit: impl FnOnce(&mut Vec<u8>)) -> Vec<u8> {
        let mut b = t.to_bytes();
        b.truncate(b.len() - 8);
        edit(&mut b);
        bytes::seal(&mut b);
        b
    }

    #[test]
    fn a_checkpoint_with_an_unknown_activation_or_cut_short_is_refused_by_name() {
        let t = Trainer::new(FloatNet::new(
            4,
            Activation::CReLU,
            2,
            InputLayout::PLAIN,
            1,
        ));
        assert_eq!(Trainer::from_bytes(&t.to_bytes()).unwrap(), t);
        // A checkpoint of the format before layouts (`RKC2`, no layout after the output
        // buckets, at byte 13) reads with the plain layout.
        let old = resealed(&t, |b| {
            b.drain(13..13 + 66);
            b[..4].copy_from_slice(b"RKC2");
        });
        assert_eq!(Trainer::from_bytes(&old).unwrap(), t);
        // One before the factoriser (`RKC3`, no flag after the layout, at byte 78) reads as
        // not factorised.
        let old = resealed(&t, |b| {
            b.remove(13 + 65);
            b[..4].copy_from_slice(b"RKC3");
        });
        assert_eq!(Trainer::from_bytes(&old).unwrap(), t);
        let e = Trainer::from_bytes(&resealed(&t, |b| b[13 + 65] = 2)).unwrap_err();
        assert_eq!(e.to_string(), "a factoriser flag of 2 (0 or 1)");
        // A layout no net can have.
        let e = Trainer::from_bytes(&resealed(&t, |b| b[13] = 9)).unwrap_err();
        assert_eq!(
            e.to_string(),
            "unsupported input layout: mirror flag 9 (0 or 1)"
        );
        let e = Trainer::from_bytes(&resealed(&t, |b| b[14 + 60] = 17)).unwrap_err();
        assert!(e.to_string().contains("king bucket 17 on e8"), "{e}");
        let e = Trainer::from_bytes(&resealed(&t, |b| b[14 + 60] = 1)).unwrap_err();
        assert!(e.to_string().contains("cut short"), "{e}");
        // Byte 8, after the magic and the hidden size, is the activation's code.
        let e = Trainer::from_bytes(&resealed(&t, |b| b[8] = 7)).unwrap_err();
        assert_eq!(
            e,
            Error::Train {
                path: String::new(),
                problem: TrainProblem::Activation(7)
            }
        );
        assert_eq!(
            e.in_file("x.ckpt").to_string(),
            "x.ckpt: unknown activation code 7"
        );
        let e = Trainer::from_bytes(&resealed(&t, |b| b.truncate(b.len() - 4))).unwrap_err();
        assert!(
            matches!(
                e,
                Error::Train {
                    problem: TrainProblem::CutShort(ReadError::Short {
                        what: "the second moments",
                        ..
                    }),
                    ..
                }
            ),
            "{e:?}"
        );
        assert!(
            e.to_string().starts_with("the checkpoint is cut short"),
            "{e}"
        );
        let e = Trainer::from_bytes(&resealed(&t, |b| b[9] = 3)).unwrap_err();
        assert!(e.to_string().contains("output buckets"), "{e}");
        let e = Trainer::from_bytes(b"RKNN and some more bytes").unwrap_err();
        assert_eq!(e.to_string(), "not a Rookery training checkpoint");
    }
}
