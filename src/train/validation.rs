//! The validation set: split off the training data position by position or in runs of
//! consecutive positions (whole games, but for a run's ends).

use crate::core::Rng;
use crate::data::Record;

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

#[cfg(test)]
mod tests {
    use super::*;

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
}
