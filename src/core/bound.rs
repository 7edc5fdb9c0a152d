//! What a search result says about the true value: exact, at least, or at most.

use serde::Serialize;

/// How a score relates to the true value of a move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Bound {
    Exact,
    /// The move is at least this good (it caused a cut-off).
    Lower,
    /// The move is at most this good (it was refuted without an exact score).
    Upper,
}

impl Bound {
    /// What a fail-soft search result `score` says about the true value, given the window
    /// `alpha..beta` it was searched with.
    pub fn from_window(score: i32, alpha: i32, beta: i32) -> Bound {
        if score >= beta {
            Bound::Lower
        } else if score > alpha {
            Bound::Exact
        } else {
            Bound::Upper
        }
    }
}
