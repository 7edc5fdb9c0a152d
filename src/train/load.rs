//! The data sets a run trains on, read as records, filtered.

use crate::data::Record;
use crate::data::filter::{Filter, Filtered};
use crate::error::Error;

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
