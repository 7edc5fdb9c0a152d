//! The float network: its parameters, its forward and backward passes, the factoriser's shared
//! rows, and its export as the search's quantised net.

use super::sample::{Sample, sigmoid};
use crate::core::Rng;
use crate::nnue::deep::{self, Deep, MAX_L1, MAX_L2, NARROW, QL1_RANGE};
use crate::nnue::{self, Activation, INPUTS, InputLayout, MAX_HIDDEN, Network, QA, QB};

/// The scale, a power of two in [`QL1_RANGE`], at which a deep head's first-layer weights lose
/// the least to [`narrow_rounding_loss`] (the finer on a tie). A finer scale rounds closer and
/// clips more; a handful of large weights no longer coarsens the grid for all the others.
pub fn narrow_scale(weights: &[f32]) -> i32 {
    deep_scales()
        .map(|q| (narrow_rounding_loss(weights, q), q))
        .min_by(|a, b| a.0.total_cmp(&b.0).then(b.1.cmp(&a.1)))
        .map_or(*QL1_RANGE.start(), |(_, q)| q)
}

/// What `weights` lose when each is rounded to the 8-bit grid of scale `q` and clipped to
/// [`NARROW`] either way: the sum of the squared differences, clipped weights included.
pub fn narrow_rounding_loss(weights: &[f32], q: i32) -> f64 {
    let (k, narrow) = (q as f32, f32::from(NARROW));
    weights
        .iter()
        .map(|&w| {
            let d = w - (w * k).round().clamp(-narrow, narrow) / k;
            f64::from(d) * f64::from(d)
        })
        .sum()
}

/// The scales a deep head's first layer may be written at: the powers of two in [`QL1_RANGE`].
pub fn deep_scales() -> impl Iterator<Item = i32> {
    (0..)
        .map(|i| QL1_RANGE.start() << i)
        .take_while(|q| QL1_RANGE.contains(q))
}

/// Weights stay within this, so that the quantised values fit.
pub const WEIGHT_CLIP: f32 = 1.98;

/// Feature weights trained for 8-bit rows stay within this: quantised by `QA`, 127 at most.
pub const EIGHT_BIT_CLIP: f32 = 127.0 / QA as f32;

/// The float network: every parameter in one vector, `[ft weights | ft bias | out weights |
/// out bias]`, the feature weights `layout.inputs()` rows, the output layer once for each
/// bucket (`nnue::bucket`). With a deep head (`head`: `L1`, `L2`) the output layers give way
/// to each bucket's head, `[w1 | b1 | w2 | b2 | w3 | b3]`: `w1` a row of `2N` inputs (`N` when
/// `paired`: pairs' products, `nnue::Input::Paired`) for each first-layer neuron, `w2` a row of `L2` for each first-layer neuron, `w3` the `L2` output
/// weights (`nnue::deep` has the quantised net's).
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
    /// The deep head's layers (`L1`, `L2`), if any.
    pub head: Option<(usize, usize)>,
    /// The deep head reads pairs' products: each perspective's first half of the clipped
    /// hidden layer times its second half.
    pub paired: bool,
    pub params: Vec<f32>,
}

/// What a deep head's forward pass leaves for its backward pass: the activated inputs and their
/// derivatives, and each layer's sums before the activation.
struct Trace {
    a: [f32; 2 * MAX_HIDDEN],
    /// Each hidden value's activation's derivative; paired, whether it lies inside the clip
    /// (1 or 0), its clipped value in `c`.
    d: [f32; 2 * MAX_HIDDEN],
    c: [f32; 2 * MAX_HIDDEN],
    z1: [f32; MAX_L1],
    z2: [f32; MAX_L2],
}

thread_local! {
    /// Each thread's trace of a deep head, made once: a position's forward pass fills what its
    /// backward pass reads, so nothing is cleared between positions.
    static TRACE: std::cell::RefCell<Trace> = std::cell::RefCell::new(Trace::new());
}

impl Trace {
    fn new() -> Trace {
        Trace {
            a: [0.0; 2 * MAX_HIDDEN],
            d: [0.0; 2 * MAX_HIDDEN],
            c: [0.0; 2 * MAX_HIDDEN],
            z1: [0.0; MAX_L1],
            z2: [0.0; MAX_L2],
        }
    }
}

impl FloatNet {
    pub fn len(
        layout: &InputLayout,
        hidden: usize,
        buckets: usize,
        factorised: bool,
        head: Option<(usize, usize)>,
        paired: bool,
    ) -> usize {
        FloatNet::rows(layout, factorised) * hidden
            + hidden
            + FloatNet::head_len(hidden, head, paired) * buckets
    }

    /// A bucket's parameters after the feature layer: its output layer, or its deep head.
    fn head_len(hidden: usize, head: Option<(usize, usize)>, paired: bool) -> usize {
        match head {
            None => 2 * hidden + 1,
            Some((l1, l2)) => FloatNet::head_sizes(hidden, l1, l2, paired).iter().sum(),
        }
    }

    /// A deep head's six layers' sizes (`Deep::sizes_for`).
    fn head_sizes(hidden: usize, l1: usize, l2: usize, paired: bool) -> [usize; 6] {
        Deep::sizes_for(deep::inputs(hidden, paired), l1, l2)
    }

    /// This net's [`FloatNet::head_len`].
    fn bucket_len(&self) -> usize {
        FloatNet::head_len(self.hidden, self.head, self.paired)
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
    pub(super) fn merge_into(&self, out: &mut FloatNet) {
        let h = self.hidden;
        let rows = self.layout.inputs() * h;
        let block = INPUTS * h;
        out.hidden = h;
        out.activation = self.activation;
        out.buckets = self.buckets;
        out.layout = self.layout;
        out.factorised = false;
        out.head = self.head;
        out.paired = self.paired;
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
    pub(super) fn unmerge_gradient(&self, merged: &[Vec<f32>], out: &mut Vec<f32>) {
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
    pub(super) fn factor_row(&self, f: usize) -> Option<usize> {
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
        FloatNet::new_with_head(hidden, activation, buckets, layout, None, seed)
    }

    /// `new` with a deep head of `head` (`L1`, `L2`) neurons, or none: each of its layers'
    /// weights uniform and scaled to the fan-in, its biases zero.
    pub fn new_with_head(
        hidden: usize,
        activation: Activation,
        buckets: usize,
        layout: InputLayout,
        head: Option<(usize, usize)>,
        seed: u64,
    ) -> FloatNet {
        FloatNet::build(hidden, activation, buckets, layout, head, false, seed)
    }

    /// `new_with_head` with a deep head of `head` neurons that reads pairs' products
    /// ([`FloatNet::paired`]).
    pub fn new_paired(
        hidden: usize,
        activation: Activation,
        buckets: usize,
        layout: InputLayout,
        head: (usize, usize),
        seed: u64,
    ) -> FloatNet {
        FloatNet::build(hidden, activation, buckets, layout, Some(head), true, seed)
    }

    fn build(
        hidden: usize,
        activation: Activation,
        buckets: usize,
        layout: InputLayout,
        head: Option<(usize, usize)>,
        paired: bool,
        seed: u64,
    ) -> FloatNet {
        let paired = paired && head.is_some();
        let mut rng = Rng::new(seed);
        let mut uniform =
            |scale: f32| (rng.below(1 << 24) as f32 / (1 << 24) as f32 * 2.0 - 1.0) * scale;
        let mut params = vec![0.0; FloatNet::len(&layout, hidden, buckets, false, head, paired)];
        let ft = 1.0 / (32f32).sqrt();
        let o = layout.inputs() * hidden;
        for p in &mut params[..o] {
            *p = uniform(ft);
        }
        let o = o + hidden;
        let fan_in = |n: usize| 1.0 / (n as f32).sqrt();
        match head {
            None => {
                let out = fan_in(2 * hidden);
                for p in &mut params[o..o + 2 * hidden * buckets] {
                    *p = uniform(out);
                }
            }
            Some((l1, l2)) => {
                let [n1, nb1, n2, nb2, n3, _] = FloatNet::head_sizes(hidden, l1, l2, paired);
                let n = deep::inputs(hidden, paired);
                for bucket in params[o..].chunks_exact_mut(FloatNet::head_len(hidden, head, paired))
                {
                    let (w1, rest) = bucket.split_at_mut(n1);
                    let (w2, rest) = rest[nb1..].split_at_mut(n2);
                    let w3 = &mut rest[nb2..nb2 + n3];
                    for (w, scale) in [(w1, fan_in(n)), (w2, fan_in(l1)), (w3, fan_in(l2))] {
                        for p in w {
                            *p = uniform(scale);
                        }
                    }
                }
            }
        }
        FloatNet {
            hidden,
            activation,
            buckets,
            layout,
            factorised: false,
            head,
            paired,
            params,
        }
    }

    /// Where the deep head of the bucket of a position with `pieces` pieces starts.
    fn head_at(&self, pieces: usize) -> usize {
        let (_, heads, _) = self.offsets();
        let b = nnue::bucket(pieces as u32, self.buckets);
        heads + self.bucket_len() * b
    }

    /// Where the feature weights end (the feature biases start).
    pub fn feature_weights_end(&self) -> usize {
        self.offsets().0
    }

    /// Every feature weight as the search reads it kept within `limit` either way: a bucket's
    /// own weight, and factorised, its sum with the shared weight it also reads (the own weight
    /// moves; the shared block keeps the wider clip).
    pub fn clip_feature_weights(&mut self, limit: f32) {
        let rows = self.layout.inputs() * self.hidden;
        if !self.factorised {
            for w in &mut self.params[..rows] {
                *w = w.clamp(-limit, limit);
            }
            return;
        }
        let block = INPUTS * self.hidden;
        let (own, shared) = self.params.split_at_mut(rows);
        for bucket in own.chunks_exact_mut(block) {
            for (w, &s) in bucket.iter_mut().zip(&shared[..block]) {
                *w = w.clamp(-limit - s, limit - s);
            }
        }
    }

    /// Where the feature biases, the output weights and the output biases start (with a deep
    /// head, the second is where the heads start).
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
        self.forward_traced(stm, ntm, acc, mirror, None)
    }

    /// `forward_mirrored`, leaving a deep head's inputs and sums in `trace` when given one.
    fn forward_traced(
        &self,
        stm: &[u16],
        ntm: &[u16],
        acc: &mut [f32],
        mirror: usize,
        trace: Option<&mut Trace>,
    ) -> f32 {
        let h = self.hidden;
        let (b1, _, _) = self.offsets();
        let (acc_s, acc_n) = acc.split_at_mut(h);
        let mut rows = [0usize; 64];
        let bias = &self.params[b1..b1 + h];
        for (acc_p, feats) in [(&mut *acc_s, stm), (&mut *acc_n, ntm)] {
            let rows = self.feature_rows(feats, mirror, &mut rows);
            sum_rows(&self.params, h, bias, rows, acc_p);
        }
        if let Some((l1, l2)) = self.head {
            // Every piece is a feature: their count picks the bucket.
            let at = self.head_at(stm.len());
            return match trace {
                Some(t) => self.head_forward(acc, at, l1, l2, t),
                None => TRACE.with_borrow_mut(|t| self.head_forward(acc, at, l1, l2, t)),
            };
        }
        let (w2, b2) = self.output(stm.len());
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
        match self.head {
            Some(_) => TRACE.with_borrow_mut(|t| self.backward_with(s, acc, grad, mirror, Some(t))),
            None => self.backward_with(s, acc, grad, mirror, None),
        }
    }

    /// [`FloatNet::backward`] with the trace a deep head needs.
    fn backward_with(
        &self,
        s: &Sample,
        acc: &mut [f32],
        grad: &mut [f32],
        mirror: usize,
        mut trace: Option<&mut Trace>,
    ) -> f32 {
        debug_assert!(mirror == 0 || self.layout.is_plain());
        let h = self.hidden;
        let (b1, _, _) = self.offsets();
        let (mut ours, mut other) = ([0u16; 32], [0u16; 32]);
        let stm = s.stm(&mut ours);
        let ntm = s.ntm(&mut other);
        let y = self.forward_traced(stm, ntm, acc, mirror, trace.as_deref_mut());
        let p = sigmoid(y);
        let err = p - s.target;
        let g = 2.0 * err * p * (1.0 - p);
        let activation = self.activation;
        if let (Some((l1, l2)), Some(t)) = (self.head, &trace) {
            self.head_backward(acc, grad, self.head_at(s.pieces()), l1, l2, t, g);
        } else {
            let (w2, b2) = self.output(s.pieces());
            grad[b2] += g;
            let (acc_s, acc_n) = acc.split_at_mut(h);
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
        }
        let (acc_s, acc_n) = acc.split_at_mut(h);
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

    /// A deep head's output from the feature layer's sums `acc` (both perspectives), its
    /// parameters at `at`; `t` keeps the activated inputs and each layer's sums.
    fn head_forward(&self, acc: &[f32], at: usize, l1: usize, l2: usize, t: &mut Trace) -> f32 {
        let h = self.hidden;
        let n = deep::inputs(h, self.paired);
        let activation = self.activation;
        let [n1, nb1, n2, nb2, n3, _] = FloatNet::head_sizes(h, l1, l2, self.paired);
        let p = &self.params[at..];
        let (w1, p) = p.split_at(n1);
        let (b1, p) = p.split_at(nb1);
        let (w2, p) = p.split_at(n2);
        let (b2, p) = p.split_at(nb2);
        let (w3, p) = p.split_at(n3);
        let b3 = p[0];
        if self.paired {
            // Each value clipped, kept with whether it lies inside; then each perspective's
            // first half times its second.
            for ((c, d), &x) in t.c.iter_mut().zip(&mut t.d).zip(&acc[..2 * h]) {
                (*c, *d) = FloatNet::act_with(Activation::CReLU, x);
            }
            let half = h / 2;
            for (p, a) in t.a[..n].chunks_exact_mut(half).enumerate() {
                let c = &t.c[p * h..(p + 1) * h];
                for ((a, &x), &y) in a.iter_mut().zip(&c[..half]).zip(&c[half..]) {
                    *a = x * y;
                }
            }
        } else {
            for ((a, d), &x) in t.a.iter_mut().zip(&mut t.d).zip(&acc[..n]) {
                (*a, *d) = FloatNet::act_with(activation, x);
            }
        }
        let a = &t.a[..n];
        for ((z, row), &b) in t.z1.iter_mut().zip(w1.chunks_exact(n)).zip(b1) {
            *z = b + dot(row, a);
        }
        t.z2[..l2].copy_from_slice(b2);
        for (&z, row) in t.z1[..l1].iter().zip(w2.chunks_exact(l2)) {
            let x = FloatNet::act_with(activation, z).0;
            for (z2, &w) in t.z2[..l2].iter_mut().zip(row) {
                *z2 += x * w;
            }
        }
        let mut y = b3;
        for (&z, &w) in t.z2[..l2].iter().zip(w3) {
            y += FloatNet::act_with(activation, z).0 * w;
        }
        y
    }

    /// Adds a deep head's gradients (at `at`) for an output gradient `g` to `grad`, and leaves
    /// in `acc` the gradient of the feature layer's sums.
    #[allow(clippy::too_many_arguments)]
    fn head_backward(
        &self,
        acc: &mut [f32],
        grad: &mut [f32],
        at: usize,
        l1: usize,
        l2: usize,
        t: &Trace,
        g: f32,
    ) {
        let h = self.hidden;
        let n = deep::inputs(h, self.paired);
        let activation = self.activation;
        let [n1, nb1, n2, nb2, n3, _] = FloatNet::head_sizes(h, l1, l2, self.paired);
        let p = &self.params[at..];
        let (w1, p) = p.split_at(n1);
        let (w2, p) = p[nb1..].split_at(n2);
        let w3 = &p[nb2..nb2 + n3];
        let gp = &mut grad[at..];
        let (g_w1, gp) = gp.split_at_mut(n1);
        let (g_b1, gp) = gp.split_at_mut(nb1);
        let (g_w2, gp) = gp.split_at_mut(n2);
        let (g_b2, gp) = gp.split_at_mut(nb2);
        let (g_w3, gp) = gp.split_at_mut(n3);
        gp[0] += g;
        // The output layer, then the second layer's sums' gradients.
        let mut d2 = [0f32; MAX_L2];
        for m in 0..l2 {
            let (x, d) = FloatNet::act_with(activation, t.z2[m]);
            g_w3[m] += g * x;
            d2[m] = g * w3[m] * d;
            g_b2[m] += d2[m];
        }
        // The second layer, then the first layer's sums' gradients.
        let mut d1 = [0f32; MAX_L1];
        for j in 0..l1 {
            let (x, d) = FloatNet::act_with(activation, t.z1[j]);
            let row = &w2[j * l2..(j + 1) * l2];
            let g_row = &mut g_w2[j * l2..(j + 1) * l2];
            let mut back = 0.0;
            for m in 0..l2 {
                g_row[m] += x * d2[m];
                back += row[m] * d2[m];
            }
            d1[j] = back * d;
            g_b1[j] += d1[j];
        }
        // The first layer, then its inputs' gradients (in the first `n` of `acc`).
        let a = &t.a[..n];
        let acc = &mut acc[..2 * h];
        acc[..n].fill(0.0);
        for j in 0..l1 {
            let dj = d1[j];
            if dj == 0.0 {
                continue;
            }
            let row = &w1[j * n..(j + 1) * n];
            let g_row = &mut g_w1[j * n..(j + 1) * n];
            for ((gw, da), (&w, &x)) in g_row.iter_mut().zip(&mut acc[..n]).zip(row.iter().zip(a)) {
                *gw += dj * x;
                *da += dj * w;
            }
        }
        if self.paired {
            // Input `p * N/2 + i` is `c[p N + i] * c[p N + N/2 + i]`: each factor's gradient is
            // the product's times the other factor, where the factor lies inside its clip. The
            // other side's first (its inputs sit above the side to move's), so that each input's
            // gradient is read before its place is written.
            let half = h / 2;
            for p in [1, 0] {
                for i in 0..half {
                    let g = acc[p * half + i];
                    let (x, y) = (p * h + i, p * h + half + i);
                    acc[y] = g * t.c[x] * t.d[y];
                    acc[x] = g * t.c[y] * t.d[x];
                }
            }
        } else {
            // Through the activation: its derivative at each sum, kept by the forward pass.
            for (da, &d) in acc.iter_mut().zip(&t.d[..n]) {
                *da *= d;
            }
        }
    }

    /// The quantised net for the search, a deep head's first layer at the scale that loses least
    /// to rounding and clipping (`narrow_scale`).
    pub fn quantise(&self, provenance: String) -> Network {
        self.quantise_at(provenance, self.first_deep_scale())
    }

    /// The quantised net with a deep head's first layer at the scale `ql1` (a power of two in
    /// [`QL1_RANGE`], its weights clipped to [`NARROW`]); a net without a head ignores it.
    pub fn quantise_at(&self, provenance: String, ql1: i32) -> Network {
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
        let ft_bias: Vec<i16> = self.params[b1..b1 + h].iter().map(|&w| q(w, QA)).collect();
        if let Some((l1, l2)) = self.head {
            let n = deep::inputs(h, self.paired);
            let sizes = FloatNet::head_sizes(h, l1, l2, self.paired);
            let clip = f32::from(NARROW);
            let mut w1 = vec![0i8; sizes[0] * self.buckets];
            let mut floats: [Vec<f32>; 5] = Default::default();
            for (b, bucket) in self.params[w2..]
                .chunks_exact(self.bucket_len())
                .enumerate()
            {
                let (weights, mut rest) = bucket.split_at(sizes[0]);
                let block = &mut w1[sizes[0] * b..sizes[0] * (b + 1)];
                for (j, row) in weights.chunks_exact(n).enumerate() {
                    for (i, &w) in row.iter().enumerate() {
                        block[deep::w1_index(i, j, l1)] =
                            (w * ql1 as f32).round().clamp(-clip, clip) as i8;
                    }
                }
                for (v, &len) in floats.iter_mut().zip(&sizes[1..]) {
                    v.extend_from_slice(&rest[..len]);
                    rest = &rest[len..];
                }
            }
            let [b1v, w2v, b2v, w3v, b3v] = floats;
            let head = Deep::with_inputs(
                h,
                self.paired,
                l1,
                l2,
                self.buckets,
                w1,
                b1v,
                w2v,
                b2v,
                w3v,
                b3v,
            )
            .and_then(|d| d.with_scale(ql1))
            .expect("the float net's head is a valid head");
            return Network::from_deep_parts(
                self.activation,
                self.layout,
                features,
                ft_bias,
                head,
                provenance,
            )
            .expect("the float net's shape is a valid net");
        }
        Network::from_parts(
            self.activation,
            self.layout,
            features,
            ft_bias,
            self.params[w2..b2].iter().map(|&w| q(w, QB)).collect(),
            self.params[b2..]
                .iter()
                .map(|&b| (b * (QA * QB) as f32).round() as i32)
                .collect(),
            provenance,
        )
        .expect("the float net's shape is a valid net")
    }

    /// The scale of a deep head's 8-bit first layer by [`narrow_scale`] (the smallest of
    /// [`QL1_RANGE`] without a head, where nothing reads it).
    fn first_deep_scale(&self) -> i32 {
        let Some((l1, l2)) = self.head else {
            return *QL1_RANGE.start();
        };
        let n1 = FloatNet::head_sizes(self.hidden, l1, l2, self.paired)[0];
        let (_, w2, _) = self.offsets();
        let weights: Vec<f32> = self.params[w2..]
            .chunks_exact(self.bucket_len())
            .flat_map(|bucket| &bucket[..n1])
            .copied()
            .collect();
        narrow_scale(&weights)
    }

    /// A written net read back as floats, to train on from where it stands (`rookery train
    /// --init`): each weight its quantised value over its scale, so that quantising the result
    /// at the net's own first-layer scale gives the same net. Not factorised: a written net's
    /// shared rows are already added into each bucket's.
    pub fn from_network(net: &Network) -> FloatNet {
        let (ft_w, ft_b) = net.feature_layer();
        let qa = QA as f32;
        let mut params: Vec<f32> = ft_w
            .iter()
            .chain(ft_b)
            .map(|&w| f32::from(w) / qa)
            .collect();
        let (head, paired) = match net.deep() {
            Some(d) => {
                let sizes = FloatNet::head_sizes(net.hidden(), d.l1, d.l2, d.paired);
                let ql1 = d.ql1 as f32;
                let w1 = d.first_layer();
                let layers = d.float_layers();
                for b in 0..net.buckets() {
                    let rows = &w1[sizes[0] * b..sizes[0] * (b + 1)];
                    params.extend(rows.iter().map(|&w| f32::from(w) / ql1));
                    for (layer, &len) in layers.iter().zip(&sizes[1..]) {
                        params.extend_from_slice(&layer[len * b..len * (b + 1)]);
                    }
                }
                (Some((d.l1, d.l2)), d.paired)
            }
            None => {
                let (w, b) = net.output_layers();
                params.extend(w.iter().map(|&w| f32::from(w) / QB as f32));
                params.extend(b.iter().map(|&b| b as f32 / (QA * QB) as f32));
                (None, false)
            }
        };
        let float = FloatNet {
            hidden: net.hidden(),
            activation: net.activation(),
            buckets: net.buckets(),
            layout: *net.layout(),
            factorised: false,
            head,
            paired,
            params,
        };
        debug_assert_eq!(
            float.params.len(),
            FloatNet::len(
                &float.layout,
                float.hidden,
                float.buckets,
                false,
                head,
                paired
            )
        );
        float
    }

    /// This net of one king bucket as a net of `layout`'s king buckets that computes the same
    /// function (`rookery train --init` with more king buckets): every bucket reads the
    /// feature rows this net has; factorised, those rows become the shared block and each
    /// bucket's own rows start at zero, so a bucket learns only how it differs. The head and
    /// the rest stay as they are. `None` unless this net has one bucket, is not factorised,
    /// and mirrors as `layout` does.
    pub fn into_king_buckets(self, layout: InputLayout, factorised: bool) -> Option<FloatNet> {
        if self.factorised || self.layout.buckets() != 1 || self.layout.mirror() != layout.mirror()
        {
            return None;
        }
        let rows = INPUTS * self.hidden;
        let (features, rest) = self.params.split_at(rows);
        let mut params =
            Vec::with_capacity(FloatNet::rows(&layout, factorised) * self.hidden + rest.len());
        if factorised {
            params.resize(layout.inputs() * self.hidden, 0.0);
            params.extend_from_slice(features);
        } else {
            for _ in 0..layout.buckets() {
                params.extend_from_slice(features);
            }
        }
        params.extend_from_slice(rest);
        let net = FloatNet {
            layout,
            factorised,
            params,
            ..self
        };
        debug_assert_eq!(
            net.params.len(),
            FloatNet::len(
                &net.layout,
                net.hidden,
                net.buckets,
                factorised,
                net.head,
                net.paired
            )
        );
        Some(net)
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

/// `a . b` in 8 running sums, so it vectorises.
#[inline(always)]
fn dot(a: &[f32], b: &[f32]) -> f32 {
    let mut sums = [0.0f32; 8];
    let (ac, ar) = a.as_chunks::<8>();
    let (bc, br) = b.as_chunks::<8>();
    for (x, y) in ac.iter().zip(bc) {
        for k in 0..8 {
            sums[k] += x[k] * y[k];
        }
    }
    let mut total = sums.iter().sum::<f32>();
    for (x, y) in ar.iter().zip(br) {
        total += x * y;
    }
    total
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::Record;
    use crate::train::sample::samples;
    use crate::train::sample::tests::{material, records};

    /// The scale rounds the weights closest, clipping counted: a few large weights no longer
    /// force a coarse grid on the many small ones when clipping them costs less, and they do
    /// when it costs more.
    #[test]
    fn the_narrow_scale_loses_the_least_to_rounding_and_clipping() {
        let lost = narrow_rounding_loss;
        let mut small: Vec<f32> = (0..20_000)
            .map(|i| ((i % 201) as f32 - 100.0) / 1000.0)
            .collect();
        let q = narrow_scale(&small);
        for other in deep_scales() {
            assert!(
                lost(&small, q) <= lost(&small, other),
                "{q} against {other}"
            );
        }
        // All within 0.1: nothing is clipped until 64 / q < 0.1, so the finest such scale.
        assert_eq!(q, 512);
        // Three of 0.15 among them: clipping them to 0.125 costs less than a coarser grid.
        small.extend([0.15, -0.15, 0.15]);
        assert_eq!(narrow_scale(&small), 512);
        // Many of 1.5: clipping them costs more, so the grid is coarse enough to hold them.
        small.extend(std::iter::repeat_n(1.5, 2_000));
        assert_eq!(narrow_scale(&small), 32);
    }

    /// The derivative of `loss` by parameter `i`, from central differences of 0.001.
    fn numeric_gradient(net: &FloatNet, i: usize, loss: impl Fn(&FloatNet) -> f64) -> f64 {
        let eps = 1e-3f32;
        let mut plus = net.clone();
        plus.params[i] += eps;
        let mut minus = net.clone();
        minus.params[i] -= eps;
        (loss(&plus) - loss(&minus)) / (2.0 * f64::from(eps))
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
                let numeric = numeric_gradient(&net, i, loss);
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

    /// A deep head's gradients, from the output back through both of its layers into the
    /// feature layer, agree with finite differences, for both activations, a bucket read and
    /// the feature rows and biases the head sends its gradient to, with pairs' products too
    /// (both halves of each side's hidden layer).
    #[test]
    fn a_deep_heads_gradients_agree_with_finite_differences() {
        let kb4 = InputLayout::preset("mirror-kb4").unwrap();
        for (activation, layout, factorised, paired) in [
            (Activation::SCReLU, InputLayout::PLAIN, false, false),
            (Activation::CReLU, InputLayout::PLAIN, false, false),
            (Activation::SCReLU, kb4, true, false),
            (Activation::SCReLU, InputLayout::PLAIN, false, true),
            (Activation::CReLU, kb4, true, true),
        ] {
            let (h, l1, l2) = (16, 8, 4);
            let recs = records(|p| (material(p), 0.5));
            let data = samples(&recs[..6], &layout, 0.5);
            let mut net = if paired {
                FloatNet::new_paired(h, activation, 2, layout, (l1, l2), 3)
            } else {
                FloatNet::new_with_head(h, activation, 2, layout, Some((l1, l2)), 3)
            };
            assert_eq!(net.paired, paired);
            if factorised {
                net = net.factorise();
            }
            // Biases inside the clips, so that the derivatives are defined and not all zero.
            let (b1, heads, _) = net.offsets();
            for j in 0..h {
                net.params[b1 + j] = 0.3 + 0.05 * (j % 7) as f32;
            }
            let at = net.head_at(data[0].pieces());
            assert!(at >= heads);
            let [n1, nb1, n2, nb2, n3, _] = FloatNet::head_sizes(h, l1, l2, paired);
            assert_eq!(n1, deep::inputs(h, paired) * l1);
            for j in 0..nb1 {
                net.params[at + n1 + j] = 0.2 + 0.05 * j as f32;
            }
            for m in 0..nb2 {
                net.params[at + n1 + nb1 + n2 + m] = 0.3 + 0.05 * m as f32;
            }
            let mut grad = vec![0.0; net.params.len()];
            let mut acc = vec![0.0; 2 * h];
            for s in &data {
                net.backward(s, &mut acc, &mut grad, 0);
            }
            let loss = |n: &FloatNet| -> f64 {
                data.iter()
                    .map(|s| {
                        let mut a = vec![0.0; 2 * h];
                        let (mut ours, mut other) = ([0u16; 32], [0u16; 32]);
                        let y = n.forward(s.stm(&mut ours), s.ntm(&mut other), &mut a);
                        let e = f64::from(sigmoid(y) - s.target);
                        e * e
                    })
                    .sum()
            };
            let (mut ours, mut other) = ([0u16; 32], [0u16; 32]);
            let first = usize::from(data[0].stm(&mut ours)[0]);
            let theirs = usize::from(data[0].ntm(&mut other)[0]);
            let w2 = at + n1 + nb1;
            let w3 = w2 + n2 + nb2;
            let checked = [
                first * h,
                first * h + 5,
                first * h + h / 2 + 1,
                theirs * h + 3,
                theirs * h + h - 1,
                b1 + 1,
                b1 + h / 2 + 2,
                at + 2,
                at + h + 7,
                at + n1 - 1,
                at + n1 + 3,
                w2 + 1,
                w2 + n2 - 2,
                w2 + n2,
                w3,
                w3 + n3 - 1,
                w3 + n3,
            ];
            for &i in &checked {
                let numeric = numeric_gradient(&net, i, loss);
                let analytic = f64::from(grad[i]);
                assert!(
                    (numeric - analytic).abs() < 1e-4 + 0.02 * analytic.abs(),
                    "{activation:?} {} parameter {i}: numeric {numeric}, analytic {analytic}",
                    layout.describe()
                );
            }
            // Every part of the head and the feature rows got a gradient: the checks are not
            // of zeros.
            for range in [
                at..at + n1,
                w2..w2 + n2,
                w3..w3 + n3 + 1,
                first * h..first * h + h,
            ] {
                assert!(
                    grad[range.clone()].iter().any(|g| g.abs() > 1e-6),
                    "{range:?}"
                );
            }
        }
    }

    /// A net without king buckets, spread over a layout's buckets (`rookery train --init`
    /// with more buckets), scores every position as it did, factorised or not, with or without
    /// a deep head, and its positions reach more than one bucket; factorised, its buckets' own
    /// rows start at zero and merging gives each bucket the rows of the net it came from. A net
    /// that mirrors otherwise, has buckets already or is factorised is not spread.
    #[test]
    fn a_net_spread_over_king_buckets_scores_as_it_did() {
        let mirror = InputLayout::preset("mirror").unwrap();
        let recs = records(|p| (material(p), 0.5));
        let one = samples(&recs, &mirror, 0.0);
        for head in [None, Some((8, 4))] {
            let mut net = FloatNet::new_with_head(16, Activation::SCReLU, 2, mirror, head, 5);
            // Weights large enough to put hidden values inside the clips.
            for (i, w) in net.params.iter_mut().enumerate() {
                *w = 0.02 * ((i * 7 % 11) as f32 - 4.0);
            }
            for preset in ["mirror-kb4", "mirror-kb8"] {
                let layout = InputLayout::preset(preset).unwrap();
                let spread = samples(&recs, &layout, 0.0);
                let reached: std::collections::BTreeSet<usize> = spread
                    .iter()
                    .flat_map(|s| {
                        let (mut ours, mut other) = ([0u16; 32], [0u16; 32]);
                        let (stm, ntm) = (s.stm(&mut ours), s.ntm(&mut other));
                        [stm[0], ntm[0]].map(|f| usize::from(f) / INPUTS)
                    })
                    .collect();
                assert!(reached.len() > 1, "{preset}: {reached:?}");
                for factorised in [false, true] {
                    let mut scored = 0;
                    let big = net.clone().into_king_buckets(layout, factorised).unwrap();
                    assert_eq!((big.layout, big.factorised), (layout, factorised));
                    assert_eq!(
                        big.params.len(),
                        FloatNet::len(&layout, 16, 2, factorised, head, false)
                    );
                    for (a, b) in one.iter().zip(&spread) {
                        let (mut o1, mut t1, mut o2, mut t2) =
                            ([0u16; 32], [0u16; 32], [0u16; 32], [0u16; 32]);
                        let was = net.centipawns(a.stm(&mut o1), a.ntm(&mut t1));
                        let now = big.centipawns(b.stm(&mut o2), b.ntm(&mut t2));
                        assert!(
                            (was - now).abs() < 1e-3,
                            "{preset} {factorised}: {was} {now}"
                        );
                        scored += usize::from(was.abs() > 0.1);
                    }
                    assert!(
                        scored > one.len() / 2,
                        "{preset}: {scored} of {}",
                        one.len()
                    );
                    if factorised {
                        let rows = layout.inputs() * 16;
                        assert!(big.params[..rows].iter().all(|&w| w == 0.0));
                        let mut merged =
                            FloatNet::new(1, Activation::CReLU, 1, InputLayout::PLAIN, 1);
                        big.merge_into(&mut merged);
                        for bucket in merged.params[..rows].chunks_exact(INPUTS * 16) {
                            assert_eq!(bucket, &net.params[..INPUTS * 16]);
                        }
                    }
                }
            }
        }
        let kb4 = InputLayout::preset("mirror-kb4").unwrap();
        let plain = FloatNet::new(16, Activation::SCReLU, 2, InputLayout::PLAIN, 1);
        assert!(plain.into_king_buckets(kb4, false).is_none());
        let bucketed = FloatNet::new(16, Activation::SCReLU, 2, kb4, 1);
        assert!(bucketed.clone().into_king_buckets(kb4, true).is_none());
        assert!(bucketed.factorise().into_king_buckets(kb4, false).is_none());
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
}
