//! The evaluation's tuner (`rookery tune`): Texel's method in the form most engines use today
//! (A. Grant, "Evaluation & Tuning in Chess Engines"). Each position's trace (`eval::trace`) makes
//! the evaluation a sum over the parameters; the tuner fits the sigmoid's scale K to the results
//! first, then minimises the mean squared error between sigmoid(K * eval) and the label (the
//! game's result, blended with the search's score by lambda) over every parameter at once with
//! Adam, full batch, the gradient summed on every core.
//!
//! King danger is non-linear in its parameter; it enters as its value at the starting parameters
//! plus its derivative times the change (linearised).

use shakmaty::{Color, Position};

use crate::data::Sample;
use crate::eval::hce::{PHASE_MAX, S, param};
use crate::eval::trace::Coefficients;

/// One position, ready for the tuner: the evaluation is
/// `(base.0 + sum c * p.mg) * mg_weight + (base.1 + sum c * p.eg) * eg_weight`, White's view.
#[derive(Clone, Debug)]
pub struct Entry {
    /// Sparse counts: linear counts and the non-linear parts' derivatives, by parameter.
    pub counts: Vec<(u16, f32, f32)>,
    /// Everything no parameter scales (fixed parts, non-linear values less their linear part).
    pub base: (f32, f32),
    pub mg_weight: f32,
    pub eg_weight: f32,
    /// The game's result for White (1, 0.5, 0).
    pub result: f32,
    /// The search's score for White, when recorded.
    pub score: Option<f32>,
}

impl Entry {
    /// The entry of `sample`, traced with the parameters `params`.
    pub fn new(sample: &Sample, params: &[S]) -> Entry {
        let pos = &sample.pos;
        let (c, _) = Coefficients::of(pos.board(), pos.turn());
        let mut counts: Vec<(u16, f32, f32)> = c
            .counts
            .iter()
            .map(|&(p, n)| (p, n as f32, n as f32))
            .collect();
        let mut base = (c.fixed.0 as f32, c.fixed.1 as f32);
        for &(p, value, (dmg, deg)) in &c.nonlinear {
            let now = params[p as usize];
            base.0 += value.0 as f32 - (dmg * f64::from(now.0)) as f32;
            base.1 += value.1 as f32 - (deg * f64::from(now.1)) as f32;
            counts.push((p, dmg as f32, deg as f32));
        }
        let phase = c.phase as f32 / PHASE_MAX as f32;
        let score = sample.score.map(|s| {
            if pos.turn() == Color::White {
                s as f32
            } else {
                -s as f32
            }
        });
        Entry {
            counts,
            base,
            mg_weight: phase,
            eg_weight: (1.0 - phase) * c.scale as f32 / 64.0,
            result: sample.result as f32,
            score,
        }
    }

    /// The evaluation (White's view) with `params` (mg, eg interleaved).
    pub fn eval(&self, params: &[f32]) -> f32 {
        let (mut mg, mut eg) = self.base;
        for &(p, cm, ce) in &self.counts {
            mg += cm * params[2 * p as usize];
            eg += ce * params[2 * p as usize + 1];
        }
        mg * self.mg_weight + eg * self.eg_weight
    }

    /// The label: the result, blended with the search's score by `lambda` when there is one.
    pub fn target(&self, k: f32, lambda: f32) -> f32 {
        match self.score {
            Some(s) => lambda * sigmoid(k * s) + (1.0 - lambda) * self.result,
            None => self.result,
        }
    }
}

pub fn sigmoid(x: f32) -> f32 {
    1.0 / (1.0 + (-x).exp())
}

/// Mean squared error of the evaluations against the labels, on every core.
pub fn loss(entries: &[Entry], params: &[f32], k: f32, lambda: f32, threads: usize) -> f64 {
    let chunk = entries.len().div_ceil(threads.max(1)).max(1);
    let total: f64 = std::thread::scope(|s| {
        let handles: Vec<_> = entries
            .chunks(chunk)
            .map(|part| {
                s.spawn(move || {
                    part.iter()
                        .map(|e| {
                            let d = sigmoid(k * e.eval(params)) - e.target(k, lambda);
                            f64::from(d * d)
                        })
                        .sum::<f64>()
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap_or(0.0)).sum()
    });
    total / entries.len().max(1) as f64
}

/// The gradient of the loss by every parameter (mg, eg interleaved), on every core.
fn gradient(entries: &[Entry], params: &[f32], k: f32, lambda: f32, threads: usize) -> Vec<f64> {
    let chunk = entries.len().div_ceil(threads.max(1)).max(1);
    let n = params.len();
    let parts: Vec<Vec<f64>> = std::thread::scope(|s| {
        let handles: Vec<_> = entries
            .chunks(chunk)
            .map(|part| {
                s.spawn(move || {
                    let mut g = vec![0f64; n];
                    for e in part {
                        let sig = sigmoid(k * e.eval(params));
                        // d/d eval of (sig - y)^2.
                        let common =
                            f64::from(2.0 * (sig - e.target(k, lambda)) * sig * (1.0 - sig) * k);
                        let (wm, we) = (f64::from(e.mg_weight), f64::from(e.eg_weight));
                        for &(p, cm, ce) in &e.counts {
                            g[2 * p as usize] += common * f64::from(cm) * wm;
                            g[2 * p as usize + 1] += common * f64::from(ce) * we;
                        }
                    }
                    g
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_default())
            .collect()
    });
    let mut g = vec![0f64; n];
    for part in parts {
        for (a, b) in g.iter_mut().zip(part) {
            *a += b;
        }
    }
    let m = entries.len().max(1) as f64;
    g.iter_mut().for_each(|x| *x /= m);
    g
}

/// The sigmoid's scale that fits the evaluations to the results best (labels without scores),
/// by golden-section search.
pub fn fit_k(entries: &[Entry], params: &[f32], threads: usize) -> f32 {
    let f = |k: f64| loss(entries, params, k as f32, 0.0, threads);
    golden_section_min(f, 0.0005, 0.02, 40) as f32
}

/// The minimum of `f` on `lo..hi`, where `f` falls and then rises, by `steps` golden-section
/// steps (each keeps 0.618 of the interval).
pub fn golden_section_min(f: impl Fn(f64) -> f64, mut lo: f64, mut hi: f64, steps: usize) -> f64 {
    let r = (5f64.sqrt() - 1.0) / 2.0;
    let (mut a, mut b) = (hi - r * (hi - lo), lo + r * (hi - lo));
    let (mut fa, mut fb) = (f(a), f(b));
    for _ in 0..steps {
        if fa < fb {
            hi = b;
            b = a;
            fb = fa;
            a = hi - r * (hi - lo);
            fa = f(a);
        } else {
            lo = a;
            a = b;
            fa = fb;
            b = lo + r * (hi - lo);
            fb = f(b);
        }
    }
    (lo + hi) / 2.0
}

/// Settings of a tuning run.
#[derive(Clone, Debug)]
pub struct Settings {
    pub epochs: usize,
    pub lambda: f32,
    pub learning_rate: f64,
    pub threads: usize,
    /// The sigmoid's scale; fitted when `None`.
    pub k: Option<f32>,
    /// Keep the piece-square tables as they are; tune the other terms only.
    pub terms_only: bool,
    /// Weight of the pull toward the starting values: `l2 * (value - start)^2` (centipawns) is
    /// added to the loss for every parameter. A value the data barely sees (a king in the far
    /// corner of the other side, in the endgame) then stays near its start instead of following
    /// a few hundred positions.
    pub l2: f64,
}

/// What a run found.
pub struct Tuned {
    pub params: Vec<S>,
    pub k: f32,
    pub loss_before: f64,
    pub loss_after: f64,
}

/// Tunes `start` on `entries`, calling `epoch(n, loss)` after each epoch.
pub fn tune(
    entries: &[Entry],
    start: &[S],
    settings: &Settings,
    mut epoch: impl FnMut(usize, f64),
) -> Tuned {
    let mut params: Vec<f32> = start
        .iter()
        .flat_map(|s| [s.0 as f32, s.1 as f32])
        .collect();
    let start_values = params.clone();
    let threads = settings.threads.max(1);
    let k = settings
        .k
        .unwrap_or_else(|| fit_k(entries, &params, threads));
    let loss_before = loss(entries, &params, k, settings.lambda, threads);
    let n = params.len();
    let (mut m, mut v) = (vec![0f64; n], vec![0f64; n]);
    let (b1, b2, eps) = (0.9f64, 0.999f64, 1e-8f64);
    for t in 1..=settings.epochs {
        let mut g = gradient(entries, &params, k, settings.lambda, threads);
        for ((gi, p), p0) in g.iter_mut().zip(&params).zip(&start_values) {
            *gi += 2.0 * settings.l2 * f64::from(p - p0);
        }
        if settings.terms_only {
            g[2 * param::PSQ..].iter_mut().for_each(|x| *x = 0.0);
        }
        for i in 0..n {
            m[i] = b1 * m[i] + (1.0 - b1) * g[i];
            v[i] = b2 * v[i] + (1.0 - b2) * g[i] * g[i];
            let mh = m[i] / (1.0 - b1.powi(t as i32));
            let vh = v[i] / (1.0 - b2.powi(t as i32));
            params[i] -= (settings.learning_rate * mh / (vh.sqrt() + eps)) as f32;
        }
        // Parameters nothing in the data moves (the pawn tables' first and last ranks) stay.
        if t % 10 == 0 || t == settings.epochs {
            epoch(t, loss(entries, &params, k, settings.lambda, threads));
        }
    }
    let loss_after = loss(entries, &params, k, settings.lambda, threads);
    let rounded: Vec<S> = params
        .chunks(2)
        .map(|p| S(p[0].round() as i32, p[1].round() as i32))
        .collect();
    debug_assert_eq!(rounded.len(), param::COUNT);
    Tuned {
        params: rounded,
        k,
        loss_before,
        loss_after,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::Rng;
    use crate::eval::trace::current;

    /// Labels made by the evaluation with the bishop pair worth (60, 90) instead of its value:
    /// the values in force, the entries, and the sigmoid's scale.
    fn bishop_pair_data() -> (Vec<S>, Vec<Entry>, f32) {
        let mut rng = Rng::new(5);
        let mut samples = Vec::new();
        while samples.len() < 6_000 {
            rng.playout(160, |ply, pos| {
                if ply > 10 && ply % 3 == 0 {
                    samples.push(Sample {
                        pos: pos.clone(),
                        result: 0.5,
                        score: None,
                        id: None,
                    });
                }
            });
        }
        let start = current();
        let mut target = start.clone();
        target[param::BISHOP_PAIR] = S(60, 90);
        let k = 0.006f32;
        let target_f: Vec<f32> = target
            .iter()
            .flat_map(|s| [s.0 as f32, s.1 as f32])
            .collect();
        let entries: Vec<Entry> = samples
            .iter()
            .map(|s| {
                let mut e = Entry::new(s, &start);
                e.result = sigmoid(k * e.eval(&target_f));
                e
            })
            .collect();
        (start, entries, k)
    }

    fn settings(k: f32, l2: f64) -> Settings {
        Settings {
            epochs: 400,
            lambda: 0.0,
            learning_rate: 1.0,
            threads: 2,
            k: Some(k),
            terms_only: true,
            l2,
        }
    }

    /// A changed term comes back, tuned from the value in force.
    #[test]
    fn a_known_value_is_recovered() {
        let (start, entries, k) = bishop_pair_data();
        let tuned = tune(&entries, &start, &settings(k, 0.0), |_, _| {});
        let bp = tuned.params[param::BISHOP_PAIR];
        assert!((bp.0 - 60).abs() <= 4 && (bp.1 - 90).abs() <= 4, "{bp:?}");
        assert!(tuned.loss_after < tuned.loss_before / 10.0);
    }

    /// The L2 pull is a prior: weak, the data's value still comes back nearly whole; strong,
    /// the value stays close to where it started although the data asks for more.
    #[test]
    fn the_l2_pull_holds_values_toward_their_start() {
        let (start, entries, k) = bishop_pair_data();
        let from = start[param::BISHOP_PAIR];
        let weak = tune(&entries, &start, &settings(k, 1e-9), |_, _| {}).params[param::BISHOP_PAIR];
        assert!(
            (weak.0 - 60).abs() <= 6 && (weak.1 - 90).abs() <= 6,
            "{weak:?}"
        );
        let strong =
            tune(&entries, &start, &settings(k, 1e-2), |_, _| {}).params[param::BISHOP_PAIR];
        assert!(
            (strong.0 - from.0).abs() <= 3 && (strong.1 - from.1).abs() <= 3,
            "{strong:?} from {from:?}"
        );
    }
}
