//! Static evaluations: the tutorial's material count and the Simplified Evaluation Function.

pub mod hce;
pub mod material;
pub mod pesto;
pub mod pst;
pub mod terms;
pub mod trace;
pub mod tuned;
