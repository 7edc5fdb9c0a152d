//! The training loop: what `rookery train` is asked for ([`Config`]), the [`Trainer`] with the
//! optimiser's state, and an epoch's passes over the samples on every thread.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use super::network::FloatNet;
use super::sample::{Sample, sigmoid};
use super::sum_in_parts;
use crate::core::Rng;
use crate::nnue::{Activation, InputLayout};

/// What `rookery train` is asked for.
#[derive(Clone, Debug)]
pub struct Config {
    pub hidden: usize,
    pub activation: Activation,
    /// Output buckets (1, 2, 4 or 8).
    pub buckets: usize,
    /// How the pieces become inputs.
    pub layout: InputLayout,
    /// The deep head's layers (`L1`, `L2`) after the feature transformer, or none.
    pub head: Option<(usize, usize)>,
    /// The deep head reads pairs' products (`FloatNet::paired`).
    pub paired: bool,
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
    /// Keep every feature weight the search reads (factorised: a bucket's own plus the shared
    /// one) within what 8 bits hold at the feature scale ([`super::network::EIGHT_BIT_CLIP`]),
    /// so the search updates from 8-bit rows.
    pub eight_bit_features: bool,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            hidden: 128,
            activation: Activation::SCReLU,
            buckets: 1,
            layout: InputLayout::PLAIN,
            head: None,
            paired: false,
            epochs: 30,
            batch: 16_384,
            lr: 0.001,
            lr_end: 0.01,
            weight_decay: 0.01,
            wdl: 0.0,
            threads: 1,
            seed: 1,
            mirror: false,
            eight_bit_features: false,
        }
    }
}

impl Config {
    /// A fresh float net of this shape (hidden size, activation, buckets, layout, deep head),
    /// its weights drawn with `seed`.
    pub fn new_net(&self, seed: u64) -> FloatNet {
        match self.head {
            Some(head) if self.paired => FloatNet::new_paired(
                self.hidden,
                self.activation,
                self.buckets,
                self.layout,
                head,
                seed,
            ),
            _ => FloatNet::new_with_head(
                self.hidden,
                self.activation,
                self.buckets,
                self.layout,
                self.head,
                seed,
            ),
        }
    }
}

/// The optimiser's state, kept in checkpoints.
#[derive(Clone, Debug, PartialEq)]
pub struct Trainer {
    pub net: FloatNet,
    pub(super) m: Vec<f32>,
    pub(super) v: Vec<f32>,
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

/// What may end an epoch before its last batch: a flag raised from elsewhere (`stop`), and a
/// time limit (`time`: the start and the length), over which the learning rate then falls: the
/// cosine runs over the time, not over the steps, so a run cut off by its time has come down
/// its whole schedule.
#[derive(Clone, Copy, Debug, Default)]
pub struct Budget<'a> {
    pub stop: Option<&'a AtomicBool>,
    pub time: Option<(Instant, Duration)>,
}

impl Budget<'_> {
    /// True once the flag is raised or the time is up.
    pub fn spent(&self) -> bool {
        self.stop.is_some_and(|s| s.load(Ordering::Relaxed))
            || self
                .time
                .is_some_and(|(start, limit)| start.elapsed() >= limit)
    }

    /// How far through its time the run is (0 to 1), if it has a time limit.
    fn time_fraction(&self) -> Option<f32> {
        self.time.map(|(start, limit)| {
            (start.elapsed().as_secs_f32() / limit.as_secs_f32().max(1e-6)).min(1.0)
        })
    }
}

/// How an epoch ended.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EpochEnd {
    /// Mean training loss over the positions it trained on.
    pub loss: f32,
    /// Positions it trained on.
    pub positions: usize,
    /// False when the budget ended it before its last batch.
    pub complete: bool,
}

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

    /// One epoch over `train` in a seeded random order. Returns the mean training loss.
    pub fn epoch(
        &mut self,
        cfg: &Config,
        train: &[Sample],
        progress: impl FnMut(&Progress),
    ) -> f32 {
        self.epoch_within(cfg, train, Budget::default(), progress)
            .loss
    }

    /// One epoch over `train` in a seeded random order, ended early when `budget` is spent
    /// (checked before each batch). An epoch ended early counts as one if it trained at all.
    pub fn epoch_within(
        &mut self,
        cfg: &Config,
        train: &[Sample],
        budget: Budget<'_>,
        mut progress: impl FnMut(&Progress),
    ) -> EpochEnd {
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
        let mut seen = 0;
        for (b, batch) in order.chunks(cfg.batch.max(1)).enumerate() {
            if budget.spent() {
                break;
            }
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
            let lr = match budget.time_fraction() {
                Some(x) => Trainer::rate_at(cfg, x),
                None => Trainer::rate(cfg, self.step, total_steps),
            };
            seen += batch.len();
            self.step += 1;
            if merged.is_some() {
                self.net.unmerge_gradient(&grads[..used], &mut full);
                self.apply(cfg, std::slice::from_ref(&full), batch.len() as f32, lr);
            } else {
                self.apply(cfg, &grads[..used], batch.len() as f32, lr);
            }
            if b == 0 || last.elapsed().as_millis() >= 500 || b + 1 == batches {
                last = Instant::now();
                let seen = seen as f64;
                progress(&Progress {
                    epoch: self.epoch + 1,
                    batch: b + 1,
                    batches,
                    loss: (loss_sum / seen) as f32,
                    positions_per_second: seen / start.elapsed().as_secs_f64().max(1e-9),
                });
            }
        }
        if seen > 0 {
            self.epoch += 1;
        }
        EpochEnd {
            loss: (loss_sum / seen.max(1) as f64) as f32,
            positions: seen,
            complete: seen == train.len(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::Record;
    use crate::error::{Error, TrainProblem};
    use crate::nnue::INPUTS;
    use crate::train::fit::fit;
    use crate::train::sample::tests::{material, records};
    use crate::train::sample::{features, samples};
    use crate::train::validation::split;
    use shakmaty::Color;

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
        let val_s = samples(&val, &cfg.layout, cfg.wdl);
        let (t, before, after) = trained(&cfg, &train, &val);
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
        reads_back(&t.net, &val);
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
        let untrained = cfg.new_net(5);
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

    /// A net of `cfg`'s shape (seed 5) trained `cfg.epochs` on `train`, with its loss on `val`
    /// before and after.
    fn trained(cfg: &Config, train: &[Record], val: &[Record]) -> (Trainer, f32, f32) {
        let train_s = samples(train, &cfg.layout, cfg.wdl);
        let val_s = samples(val, &cfg.layout, cfg.wdl);
        let mut t = Trainer::new(cfg.new_net(5));
        let before = t.loss(&val_s, 2);
        for _ in 0..cfg.epochs {
            t.epoch(cfg, &train_s, |_| {});
        }
        let after = t.loss(&val_s, 2);
        (t, before, after)
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

    /// A net with a deep head (`-> 16 -> 8 -> 1`, both activations, output buckets, mirrored
    /// inputs, one reading pairs' products) learns the piece values, exports a net of the
    /// version that holds it (4, paired 5) that scores as the float net does, and its checkpoint
    /// and net file read back whole.
    #[test]
    fn a_net_with_a_deep_head_trains_and_exports_it() {
        let recs = records(|p| (material(p), 0.5));
        let (train, val) = split(recs, 0.1, 9);
        let mirror = InputLayout::preset("mirror").unwrap();
        for (activation, layout, paired) in [
            (Activation::SCReLU, InputLayout::PLAIN, false),
            (Activation::CReLU, mirror, false),
            (Activation::SCReLU, mirror, true),
        ] {
            let cfg = Config {
                hidden: 32,
                activation,
                buckets: 2,
                layout,
                head: Some((16, 8)),
                paired,
                epochs: 30,
                batch: 256,
                lr: 0.01,
                threads: 2,
                ..Config::default()
            };
            let (t, before, after) = trained(&cfg, &train, &val);
            assert!(
                after < before / 5.0,
                "{activation:?}: validation loss {before} -> {after}"
            );
            assert_eq!(t.net.paired, paired);
            quantised_agrees(&t.net, &val);
            let q = t.net.quantise("test".into());
            assert_eq!(
                q.deep().map(|d| (d.l1, d.l2, d.paired)),
                Some((16, 8, paired))
            );
            assert_eq!(q.deep().unwrap().inputs(), if paired { 32 } else { 64 });
            // The first layer is narrow, and its scale no coarser than the finest that clips
            // nothing: at half of that the widest weight would be within half of the bound.
            let d = q.deep().unwrap();
            let narrow = crate::nnue::deep::NARROW.unsigned_abs();
            assert!(d.narrow && d.widest() <= narrow, "{}", d.widest());
            assert!(
                d.ql1 == 4096 || d.widest() >= narrow / 2,
                "{} {}",
                d.ql1,
                d.widest()
            );
            assert!(d.ql1.count_ones() == 1 && d.ql1 >= 16, "{}", d.ql1);
            // The scale chosen on positions fits them at least as well as every other (the
            // rounding-error scale above among them), and the net it names is written at it.
            let (best, chosen) = crate::train::best_deep_scale(&t.net, &val, 0.0, 2).unwrap();
            for q in crate::train::deep_scales() {
                let other = fit(&t.net.quantise_at(String::new(), q), &val, 0.0, 2);
                assert!(
                    chosen.loss <= other.loss,
                    "{best}: {} > {q}: {}",
                    chosen.loss,
                    other.loss
                );
            }
            assert_eq!(
                t.net.quantise_at(String::new(), best).deep().unwrap().ql1,
                best
            );
            let head = if paired { "32 paired -> 16" } else { "16" };
            assert!(
                q.architecture()
                    .contains(&format!("x 2 -> {head} -> 8 -> 1 x 2 buckets")),
                "{}",
                q.architecture()
            );
            let bytes = q.to_bytes();
            let version: u32 = if paired { 5 } else { 4 };
            assert_eq!(&bytes[4..8], &version.to_le_bytes());
            assert_eq!(crate::nnue::Network::from_bytes(&bytes).unwrap(), q);
            assert_eq!(Trainer::from_bytes(&t.to_bytes()).unwrap(), t);
            reads_back(&t.net, &val);
        }
    }

    /// A written net read back as floats (`FloatNet::from_network`, `rookery train --init`) has
    /// its shape, scores as it does, is written again as the same net at its first layer's
    /// scale, and each weight lies within half the coarsest step of the float net's, or inside
    /// it where the written one was clipped. Every shape: with a deep head (paired too), one
    /// output layer with output buckets, king buckets trained factorised or not.
    fn reads_back(net: &FloatNet, records: &[Record]) {
        let q = net.quantise("test".into());
        let back = FloatNet::from_network(&q);
        assert_eq!(
            (back.hidden, back.activation, back.buckets, back.layout),
            (net.hidden, net.activation, net.buckets, net.layout)
        );
        assert_eq!(
            (back.head, back.paired, back.factorised),
            (net.head, net.paired, false)
        );
        let ql1 = q.deep().map_or(64, |d| d.ql1);
        assert_eq!(
            back.quantise_at("test".into(), ql1).to_bytes(),
            q.to_bytes()
        );
        quantised_agrees(&back, records);
        if !net.factorised {
            assert_eq!(back.params.len(), net.params.len());
            for (i, (&b, &f)) in back.params.iter().zip(&net.params).enumerate() {
                assert!(
                    (b - f).abs() <= 0.5 / 16.0 + 1e-6 || b.abs() < f.abs(),
                    "parameter {i}: {b} read back, {f} written"
                );
            }
        }
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

    /// Trained for 8-bit feature rows from a start with feature weights well beyond them, with
    /// the factoriser and without: the loss still falls, every feature weight the search reads
    /// ends within the clip, and the written net's are those weights rounded, all in 8 bits (so
    /// the search updates from 8-bit rows).
    #[test]
    fn eight_bit_features_train_into_8_bit_rows() {
        let recs = records(|p| (material(p), 0.5));
        let (train, val) = split(recs, 0.1, 9);
        for factorised in [false, true] {
            eight_bit_net_trains(&train, &val, factorised);
        }
    }

    fn eight_bit_net_trains(train: &[Record], val: &[Record], factorised: bool) {
        let cfg = Config {
            eight_bit_features: true,
            ..bucketed_config()
        };
        let train_s = samples(train, &cfg.layout, cfg.wdl);
        let val_s = samples(val, &cfg.layout, cfg.wdl);
        let mut net = cfg.new_net(5);
        let end = net.feature_weights_end();
        for (i, w) in net.params[..end].iter_mut().enumerate() {
            *w = if i % 7 == 0 { 1.5 } else { *w * 4.0 };
        }
        if factorised {
            net = net.factorise();
            // The shared block large as well, so that the sums need the own weights moved.
            let shared = end..net.feature_weights_end();
            for (i, w) in net.params[shared].iter_mut().enumerate() {
                *w = if i % 5 == 0 { -1.2 } else { 0.3 };
            }
        }
        assert!(!net.quantise(String::new()).eight_bit_rows());
        let t = trained_down(net, &cfg, &train_s, &val_s);
        let limit = super::super::network::EIGHT_BIT_CLIP;
        let h = cfg.hidden;
        let read = |i: usize| {
            t.net.params[i]
                + t.net
                    .factor_row(i / h)
                    .map_or(0.0, |r| t.net.params[r * h + i % h])
        };
        assert!((0..end).all(|i| read(i).abs() <= limit * (1.0 + 1e-6)));
        if factorised {
            // The shared block keeps the wider clip: its large weights stay, the own ones moved.
            let shared = end..t.net.feature_weights_end();
            assert!(t.net.params[shared].iter().any(|w| w.abs() > limit));
        }
        // The written net's feature weights are those the search reads, rounded, all in 8 bits.
        let q = t.net.quantise(String::new());
        assert!(q.eight_bit_rows());
        let ft = q.feature_layer().0;
        assert!(
            (0..end).all(|i| i32::from(ft[i]) == (read(i) * crate::nnue::QA as f32).round() as i32)
        );
        assert!(ft.iter().any(|&w| w.abs() == 127));
    }

    /// `net` trained `cfg.epochs` epochs, its validation loss at least halved.
    fn trained_down(net: FloatNet, cfg: &Config, train: &[Sample], val: &[Sample]) -> Trainer {
        let mut t = Trainer::new(net);
        let before = t.loss(val, 2);
        for _ in 0..cfg.epochs {
            t.epoch(cfg, train, |_| {});
        }
        let after = t.loss(val, 2);
        assert!(after < before / 2.0, "validation loss {before} -> {after}");
        t
    }

    /// A small king-bucketed net's training, for the tests with and without the factoriser.
    fn bucketed_config() -> Config {
        Config {
            hidden: 16,
            buckets: 2,
            layout: InputLayout::preset("mirror-kb4").unwrap(),
            epochs: 8,
            batch: 128,
            lr: 0.01,
            threads: 2,
            ..Config::default()
        }
    }

    /// With the factoriser, as without: the loss falls, the export (the shared rows added into
    /// each bucket's) scores as the float net, the checkpoint keeps the flag.
    fn bucketed_net_trains(train: &[Record], val: &[Record], factorised: bool) {
        let cfg = bucketed_config();
        let train_s = samples(train, &cfg.layout, cfg.wdl);
        let val_s = samples(val, &cfg.layout, cfg.wdl);
        let mut net = cfg.new_net(5);
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
        let t = trained_down(net, &cfg, &train_s, &val_s);
        if factorised {
            // The shared rows learned something, so the export's sum is tested.
            let shared =
                cfg.layout.inputs() * cfg.hidden..(cfg.layout.inputs() + INPUTS) * cfg.hidden;
            assert!(t.net.params[shared].iter().any(|w| w.abs() > 1e-3));
        }
        quantised_agrees(&t.net, train);
        quantised_agrees(&t.net, val);
        reads_back(&t.net, val);
        let back = Trainer::from_bytes(&t.to_bytes()).unwrap();
        assert_eq!(back.net.layout, cfg.layout);
        assert_eq!(back.net.factorised, factorised);
        assert_eq!(back, t);
    }
}
