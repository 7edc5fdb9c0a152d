//! The optimiser: AdamW (decoupled weight decay) on the trainer's parameters, its learning rate
//! falling along a cosine over the run.

use std::f32::consts::PI;

use super::network::{EIGHT_BIT_CLIP, WEIGHT_CLIP};
use super::trainer::{Config, Trainer};

impl Trainer {
    /// The learning rate at `step` of `total`.
    pub(super) fn rate(cfg: &Config, step: u64, total: u64) -> f32 {
        Trainer::rate_at(cfg, step as f32 / total.max(1) as f32)
    }

    /// The learning rate `x` of the way through the run (0 to 1).
    pub(super) fn rate_at(cfg: &Config, x: f32) -> f32 {
        let x = x.clamp(0.0, 1.0);
        let end = cfg.lr * cfg.lr_end;
        end + 0.5 * (cfg.lr - end) * (1.0 + (PI * x).cos())
    }

    /// AdamW on the summed gradients, split over the threads by parameter.
    pub(super) fn apply(&mut self, cfg: &Config, grads: &[Vec<f32>], batch: f32, lr: f32) {
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
        // The feature weights trained for 8-bit rows have a clip of their own.
        if cfg.eight_bit_features {
            self.net.clip_feature_weights(EIGHT_BIT_CLIP);
        }
    }
}
