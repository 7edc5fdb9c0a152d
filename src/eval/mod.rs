//! Static evaluations: the tutorial's material count and the Simplified Evaluation Function.

pub mod material;
pub mod pst;
