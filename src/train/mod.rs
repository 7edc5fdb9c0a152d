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
//! - **Input layout.** The net's inputs follow an [`InputLayout`](crate::nnue::InputLayout) (king buckets, mirroring): a
//!   sample keeps the side to move's pieces in the plain layout and each side's king bucket and
//!   mirror side, from which both perspectives' features are worked out when used.
//! - **Factoriser.** With king buckets, a net may be trained *factorised*: besides each bucket's
//!   768 rows, one shared block of 768 rows that every bucket's feature also reads, so what holds
//!   in every bucket is learned from all positions, and each bucket's rows learn only how it
//!   differs. The export adds the shared rows into each bucket's: the search's net is the same.
//!
//! One file a concept: `sample.rs` the samples (features and targets), `network.rs` the float
//! net and its passes, `optimiser.rs` AdamW and its schedule, `trainer.rs` the training loop,
//! `checkpoint.rs` its checkpoint files, `validation.rs` the validation split, `fit.rs` a net's
//! fit to labelled positions, `load.rs` the data sets read, `plot.rs` the loss curve, `live.rs` a short run that reports as
//! it goes (the Lab's and Python's). Everything
//! a caller needs is re-exported here.

mod checkpoint;
mod fit;
pub mod live;
mod load;
mod network;
mod optimiser;
mod plot;
mod sample;
mod trainer;
mod validation;

pub use fit::{Fit, best_deep_scale, fit};
pub use load::{load_all, load_filtered};
pub use network::{EIGHT_BIT_CLIP, FloatNet, WEIGHT_CLIP, deep_scales};
pub use plot::{loss_csv, loss_svg};
pub use sample::{EVAL_SCALE, Sample, features, other_side, plain_features, samples, target};
pub use trainer::{Budget, Config, EpochEnd, Progress, Trainer};
pub use validation::{VAL_RUN, ValSplit, split, split_runs};

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
