//! A quantised net's fit to labelled positions, as the search reads it: the loss `rookery train`
//! reports and the mean distance from the search's scores.

use super::network::{FloatNet, deep_scales};
use super::sample::{EVAL_SCALE, sigmoid, target};
use super::sum_in_parts;
use crate::data::Record;
use crate::nnue::Network;

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

/// The scale of a deep head's first layer (one of [`deep_scales`]) at which the quantised
/// `net` fits `records` best, with that fit; `None` for a net without a head or no records.
/// Rounding to a finer grid and clipping more of the largest weights pull against each other,
/// and what decides is the loss the search's net would have, not a proxy on the weights.
pub fn best_deep_scale(
    net: &FloatNet,
    records: &[Record],
    wdl: f32,
    threads: usize,
) -> Option<(i32, Fit)> {
    if net.head.is_none() || records.is_empty() {
        return None;
    }
    deep_scales()
        .map(|q| {
            (
                q,
                fit(&net.quantise_at(String::new(), q), records, wdl, threads),
            )
        })
        .min_by(|a, b| a.1.loss.total_cmp(&b.1.loss))
}
