//! The tools to measure engines against each other: players (this crate's engines and external
//! UCI/xboard programs), the runner that plays matches and tournaments, and the statistics.

pub mod player;
pub mod runner;
pub mod stats;
